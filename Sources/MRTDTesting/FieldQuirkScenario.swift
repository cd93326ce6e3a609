import Foundation
public import MRTDCore
import MRTDCrypto
public import MRTDProtocol
public import MRTDSimulation

/// How a scenario's chip is opened: every chip quirk of docs/field-quirks.md is read under each, so
/// that no quirk passes in one mode and regresses in another.
public enum FieldQuirkAccessMode: String, Sendable, CaseIterable, CustomStringConvertible {
    case bac = "BAC"
    case paceGM = "PACE-GM"
    case paceIM = "PACE-IM"
    case paceCAM = "PACE-CAM"

    public var description: String { rawValue }

    /// The PACEInfo of the mode's chip (ECDH on NIST P-256, AES-128), nil for BAC.
    public var paceInfo: PACEInfo? {
        let mapping: PACEMapping
        switch self {
        case .bac: return nil
        case .paceGM: mapping = .gm
        case .paceIM: mapping = .im
        case .paceCAM: mapping = .cam
        }
        return PACEInfo(protocol: PACEProtocol(mapping: mapping, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 12)
    }
}

/// One row of docs/field-quirks.md as a read to run: a virtual chip with the quirk, the same chip
/// without it, and what the read must end with. The in-process tests and the pcscd + vpcd tests
/// run the same scenarios.
public struct FieldQuirkScenario: Sendable, CustomStringConvertible {
    public var name: String
    public var quirk: VirtualChipQuirk
    /// How the chip is opened.
    public var mode: FieldQuirkAccessMode
    /// The chip with the quirk.
    public var configuration: VirtualChipConfiguration
    /// The same chip, well behaved.
    public var wellBehaved: VirtualChipConfiguration
    public var access: AccessPolicy
    public var dataGroups: [Int]
    /// Whether the read is tried with ``wrongKey`` (the `wrong-key-*` rows): both chips must refuse it.
    public var usesWrongKey: Bool
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
        ReadOptions(accessKey: .mrz(usesWrongKey ? Self.wrongKey : Self.key), dataGroups: dataGroups, access: access,
                    recovery: recovery)
    }

    /// The link a row's chip is read over.
    public enum Link: Sendable {
        case extended, short
    }

    /// The chip of `mode` with the specimen's files (and DG15 for Active Authentication when
    /// `activeAuthentication` says so), answering `9000` at the end of a file.
    public static func chip(
        _ mode: FieldQuirkAccessMode, link: Link = .extended, activeAuthentication: ActiveAuthenticationKeySpec? = nil
    ) throws -> VirtualChipConfiguration {
        try chip(mode, link: link, authentication: activeAuthentication.map { try AuthenticationFixture.make(activeAuthentication: $0) })
    }

    /// The chip of `mode` with the specimen's files and `fixture`'s DG14/DG15 and chip-side keys.
    public static func chip(
        _ mode: FieldQuirkAccessMode, link: Link = .extended, authentication fixture: AuthenticationFixture?
    ) throws -> VirtualChipConfiguration {
        let specimen = try SpecimenDocument.make(extraDataGroups: fixture?.extraDataGroups ?? [:])
        let extended = link == .extended
        var config: VirtualChipConfiguration
        if let info = mode.paceInfo {
            config = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: key, infos: [info])
            config.extendedLength = extended
            config.maxReadLength = extended ? 65_536 : 256
        } else {
            config = VirtualChipConfiguration(files: specimen.files, accessKey: key, extendedLength: extended)
        }
        // The well-behaved reference answers 9000 at the end of a file.
        config.endOfFileStatus = .success
        if let fixture { config.authentication = fixture.chip }
        return config
    }

    /// Every scenario but `lock-after-failed-access`, which takes several reads of one chip: each
    /// chip quirk under BAC, PACE-GM, PACE-IM and PACE-CAM, and the rows' own variants.
    public static func all() throws -> [FieldQuirkScenario] {
        func row(_ name: String, _ quirk: VirtualChipQuirk, _ mode: FieldQuirkAccessMode, _ base: VirtualChipConfiguration,
                 access: AccessPolicy? = nil, dataGroups: [Int] = [1, 2], error: String? = nil) -> FieldQuirkScenario {
            let wrongKey = quirk.wrongKeyRefusal != nil
            return FieldQuirkScenario(
                name: "\(quirk) (\(mode)\(name.isEmpty ? "" : ", " + name))", quirk: quirk, mode: mode,
                configuration: base.with(quirks: [quirk]), wellBehaved: base,
                access: access ?? (mode == .bac ? .bac : .auto), dataGroups: dataGroups, usesWrongKey: wrongKey,
                expectedError: wrongKey ? ErrorCode.accessDenied.rawValue : error)
        }
        let aa = ActiveAuthenticationKeySpec.rsa(bits: 1024, digest: .sha1)
        var scenarios: [FieldQuirkScenario] = []
        for mode in FieldQuirkAccessMode.allCases {
            // One chip per mode and link, copied into each row (`with(quirks:)` copies it).
            let chip = try Self.chip(mode), short = try Self.chip(mode, link: .short)
            scenarios += [
                row("", .respond61xx, mode, chip),
                row("", .smBare6700Extended, mode, chip),
                row("extended length", .le00Refused6B00, mode, chip),
                row("short APDUs", .eof6282, mode, short),
                row("", .efDir6982BeforeAccess, mode, chip),
                row("", .efDirRefused6A81, mode, chip),
                row("", .efDirRefused6A86, mode, chip),
                row("", .efDirRefused6A87, mode, chip),
                row("DG15 in the SOD", .aa6A88, mode, try Self.chip(mode, activeAuthentication: aa), dataGroups: Self.withAADataGroups),
                // A chip that wants PACE refuses BAC: `auto` takes PACE on a PACE chip, BAC asked
                // for on a BAC chip ends `bacNotSupported`.
                row("", .bac6A88, mode, chip, error: mode == .bac ? ErrorCode.bacNotSupported.rawValue : nil),
                row("", .extendedAnnouncedRefused, mode, chip),
                row("DG1", .slowRead1500ms, mode, chip, dataGroups: [1]),
                row("DG1", .slowPACE4500ms, mode, chip, dataGroups: [1]),
                row("", .selectAID6999, mode, chip),
                row("", .wrongKey6985, mode, chip),
                row("", .wrongKey6988, mode, chip),
                row("", .sfiRefusedPlain6A82, mode, chip),
                row("short APDUs", .readPastEnd6B00, mode, short),
                row("extended length", .readPastEnd6B00, mode, chip),
                row("", .paceParameterID6A87, mode, chip),
            ]
        }
        let dh2048 = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 2)
        var dhChip = try VirtualChipConfiguration.paceChip(document: try SpecimenDocument.make(), accessKey: key, infos: [dh2048])
        dhChip.endOfFileStatus = .success
        return scenarios + [
            // DH-2048 needs extended length for the terminal's own 264-byte GA commands (no command
            // chaining here); the chip's answers of the same size come in 61xx pieces all the same.
            row("DH-2048", .respond61xx, .paceGM, dhChip, access: .pace),
            // NFCPassportReader#174: an Active Authentication signature of RSA-2048 does not fit a
            // short protected answer; the chip sends it in 61xx pieces.
            row("short APDUs, AA RSA-2048", .respond61xx, .bac,
                try chip(.bac, link: .short, activeAuthentication: .rsa(bits: 2048, digest: .sha256)), dataGroups: Self.withAADataGroups),
            // EF.CardAccess, read in plain before PACE, is asked for with Le 00 on a short link.
            row("short APDUs", .le00Refused6B00, .paceGM, try chip(.paceGM, link: .short)),
            row("no DG15", .aa6A88, .bac, try chip(.bac), dataGroups: Self.withAADataGroups),
        ]
    }

    /// What each quirk ends with under each access mode, as a markdown table (docs/field-quirks.md,
    /// "Every quirk under every access mode"): the statuses the scenarios assert, variants side by side.
    public static func matrixMarkdown(_ scenarios: [FieldQuirkScenario]) -> String {
        let modes = FieldQuirkAccessMode.allCases
        var quirks: [VirtualChipQuirk] = []
        for scenario in scenarios where !quirks.contains(scenario.quirk) { quirks.append(scenario.quirk) }
        var lines = ["| quirk | " + modes.map(\.rawValue).joined(separator: " | ") + " |",
                     "|---|" + String(repeating: "---|", count: modes.count)]
        for quirk in quirks {
            let cells = modes.map { mode -> String in
                let variants = scenarios.filter { $0.quirk == quirk && $0.mode == mode }
                let texts = variants.map { scenario -> String in
                    var text = scenario.expectedStatus.rawValue
                    if let code = scenario.expectedError { text += " `\(code)`" }
                    if scenario.expectedActiveAuthentication?.result == .failed { text += " (AA failed)" }
                    guard variants.count > 1 else { return text }
                    let variant = scenario.name.split(separator: ",", maxSplits: 1).dropFirst().first
                        .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " )")) } ?? "default"
                    return "\(text) (\(variant))"
                }
                return texts.isEmpty ? "—" : texts.joined(separator: "; ")
            }
            lines.append("| `\(quirk)` | " + cells.joined(separator: " | ") + " |")
        }
        return lines.joined(separator: "\n") + "\n"
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
