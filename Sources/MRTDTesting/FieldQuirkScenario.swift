public import MRTDCore
import MRTDCrypto
public import MRTDProtocol
public import MRTDSimulation

/// One row of docs/field-quirks.md as a read to run: a virtual chip with the quirk, the same chip
/// without it, and what the read must end with. The in-process tests and the pcscd + vpcd tests
/// run the same scenarios.
public struct FieldQuirkScenario: Sendable, CustomStringConvertible {
    public var name: String
    public var quirk: VirtualChipQuirk
    /// The chip with the quirk.
    public var configuration: VirtualChipConfiguration
    /// The same chip, well behaved.
    public var wellBehaved: VirtualChipConfiguration
    public var access: AccessPolicy
    public var dataGroups: [Int]
    /// nil: the read ends `valid` with the well-behaved chip's files; else the error code it must
    /// end with (nothing can be done).
    public var expectedError: String?

    public var description: String { name }

    public static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    /// With `aa-6a88` (irmamobile#672), what `checks.activeAuthentication` must say and how many
    /// INTERNAL AUTHENTICATE the chip refuses: without DG15 none is sent and AA is `notPerformed`
    /// (`noDG15`); with DG15 signed in the SOD the refusal is reported, AA `failed`, and not retried.
    public var expectedActiveAuthentication: (result: CheckResult, reason: String, internalAuthenticates: Int)? {
        guard quirk == .aa6A88 else { return nil }
        return configuration.files[.dg(15)] == nil
            ? (.notPerformed, "noDG15", 0)
            : (.failed, "activeAuthenticationRefused 6A88", 1)
    }

    /// The overall status the read must end with: `failed` with ``expectedError``; `invalid` for the
    /// `aa-6a88` chip whose SOD signs DG15 (a refused Active Authentication is a failed inspection,
    /// docs/verification.md); else `valid` with the well-behaved chip's files.
    public var expectedStatus: ReadResult.Status {
        if expectedError != nil { return .failed }
        return expectedActiveAuthentication?.result == .failed ? .invalid : .valid
    }

    /// The read options for this scenario (the trust store is the caller's).
    public func options(recovery: RecoveryPolicy = .init(reconnectDelay: .zero)) -> ReadOptions {
        ReadOptions(accessKey: .mrz(Self.key), dataGroups: dataGroups, access: access, recovery: recovery)
    }

    /// Every scenario but `lock-after-failed-access`, which takes several reads of one chip.
    public static func all() throws -> [FieldQuirkScenario] {
        let specimen = try SpecimenDocument.make()
        func bac(extendedLength: Bool = true) -> VirtualChipConfiguration {
            // The well-behaved reference answers 9000 at the end of a file.
            VirtualChipConfiguration(files: specimen.files, accessKey: key, extendedLength: extendedLength,
                                     endOfFileStatus: .success)
        }
        func pace(_ info: PACEInfo, extendedLength: Bool = true, bac: Bool = false) throws -> VirtualChipConfiguration {
            var config = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: key, infos: [info], bac: bac)
            config.extendedLength = extendedLength
            config.maxReadLength = extendedLength ? 65_536 : 256
            config.endOfFileStatus = .success
            return config
        }
        // Active Authentication: DG15 (RSA 1024) listed in EF.COM and hashed into the SOD.
        func bacWithAA() throws -> VirtualChipConfiguration {
            let fixture = try AuthenticationFixture.make(activeAuthentication: .rsa(bits: 1024, digest: .sha1))
            var config = VirtualChipConfiguration(files: try SpecimenDocument.make(extraDataGroups: fixture.extraDataGroups).files,
                                                  accessKey: key, extendedLength: true, endOfFileStatus: .success)
            config.authentication = fixture.chip
            return config
        }
        let gm = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 12)
        let dh2048 = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 2)
        func row(_ name: String, _ quirk: VirtualChipQuirk, _ base: VirtualChipConfiguration, access: AccessPolicy,
                 dataGroups: [Int] = [1, 2], error: String? = nil) -> FieldQuirkScenario {
            FieldQuirkScenario(name: "\(quirk) (\(name))", quirk: quirk, configuration: base.with(quirks: [quirk]),
                               wellBehaved: base, access: access, dataGroups: dataGroups, expectedError: error)
        }
        return [
            row("BAC, extended length", .respond61xx, bac(), access: .bac),
            // DH-2048 needs extended length for the terminal's own 264-byte GA commands (no command
            // chaining here); the chip's answers of the same size come in 61xx pieces all the same.
            row("PACE DH-2048", .respond61xx, try pace(dh2048), access: .pace),
            row("PACE ECDH, short APDUs", .respond61xx, try pace(gm, extendedLength: false), access: .pace),
            row("BAC", .smBare6700Extended, bac(), access: .bac),
            row("PACE, short APDUs", .le00Refused6B00, try pace(gm, extendedLength: false), access: .auto),
            row("PACE, extended length", .le00Refused6B00, try pace(gm), access: .auto),
            row("BAC, short APDUs", .eof6282, bac(extendedLength: false), access: .bac),
            row("PACE", .efDir6982BeforeAccess, try pace(gm), access: .auto),
            row("PACE", .efDirRefused6A81, try pace(gm), access: .auto),
            row("PACE", .efDirRefused6A86, try pace(gm), access: .auto),
            row("BAC", .efDirRefused6A87, bac(), access: .auto),
            row("BAC, no DG15", .aa6A88, bac(), access: .bac, dataGroups: Self.withAADataGroups),
            row("BAC, DG15 in the SOD", .aa6A88, try bacWithAA(), access: .bac, dataGroups: Self.withAADataGroups),
            row("PACE chip, access auto", .bac6A88, try pace(gm, bac: true), access: .auto),
            row("PACE chip, BAC asked for", .bac6A88, try pace(gm, bac: true), access: .bac, error: "bacNotSupported"),
            row("BAC", .extendedAnnouncedRefused, bac(), access: .bac),
            row("BAC, DG1", .slowRead1500ms, bac(), access: .bac, dataGroups: [1]),
            row("PACE, DG1", .slowPACE4500ms, try pace(gm), access: .pace, dataGroups: [1]),
            row("PACE", .selectAID6999, try pace(gm), access: .auto),
        ]
    }

    /// What the `aa-6a88` rows ask for: DG15 among them, so that only its absence keeps AA from running.
    public static let withAADataGroups = [1, 2, 14, 15]

    /// `lock-after-failed-access`: a BAC chip that goes mute after ``VirtualChip/lockThreshold``
    /// failed authentications.
    public static func lockingChip() throws -> VirtualChipConfiguration {
        let specimen = try SpecimenDocument.make()
        return VirtualChipConfiguration(files: specimen.files, accessKey: key).with(quirks: [.lockAfterFailedAccess])
    }

    /// How a chip that lists DG2 gives no portrait (NFCPassportReader#265).
    public enum PortraitAnswer: String, Sendable, CaseIterable {
        /// SELECT (or READ BINARY by short EF identifier) of DG2 answers `6A82`.
        case fileNotFound
        /// DG2 exists with nothing in it: its first READ BINARY answers `6B00`, no data.
        case emptyFile
    }

    /// A BAC chip whose EF.COM and EF.SOD list DG1 and DG2 (hashes and all, signed by the TEST-ONLY
    /// document signer) but that gives no DG2, as `answer` says: the 2018 Russian passport of
    /// NFCPassportReader#265, read to the end with no portrait.
    public static func portraitlessChip(_ answer: PortraitAnswer) throws -> VirtualChipConfiguration {
        var files = try SpecimenDocument.make().files
        switch answer {
        case .fileNotFound: files[.dg(2)] = nil
        case .emptyFile: files[.dg(2)] = []
        }
        return VirtualChipConfiguration(files: files, accessKey: key, extendedLength: true, endOfFileStatus: .success)
    }

    /// An access key that does not open the specimen.
    public static let wrongKey = try! MRZKey(documentNumber: "X12345678", dateOfBirth: "800101", dateOfExpiry: "300101")
}
