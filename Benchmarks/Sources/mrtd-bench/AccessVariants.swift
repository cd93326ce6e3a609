import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import MRTDSimulation

/// The reads the harness measures: the standard read (EF.COM, EF.SOD, DG1, DG2, DG14, DG15) of the
/// specimen passport as `mrtdd --simulate` presents it: DG14 with a Chip Authentication key
/// (brainpoolP256r1, explicit parameters, AES-128), DG15 with an Active Authentication key (ECDSA
/// P-256, SHA-256, plain signatures), DG2 with the 19,988-byte specimen JPEG (DG2 is 20,061 bytes).
/// Each read runs BAC or PACE, then Chip Authentication (skipped after PACE-CAM, which
/// authenticates the chip itself) and Active Authentication.
enum AccessVariants {
    static let chipAuthenticationKey = ChipAuthenticationKeySpec(domainParameterID: 13, cipher: .aes128)
    static let activeAuthenticationKey = ActiveAuthenticationKeySpec.ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true)

    /// Every variant, keyed as in the JSON. `bac`/`bacShort` and `pace-gm-brainpoolP256r1`/`...Short`
    /// are the same reads with extended length on and off; the others vary the PACE mapping and group.
    static func make() throws -> [ReadVariant] {
        let key = try MRZ(SpecimenDocument.erikssonMRZ).accessKey
        let fixture = try AuthenticationFixture.make(
            chipAuthentication: [chipAuthenticationKey], activeAuthentication: activeAuthenticationKey)
        let specimen = try fixture.specimen()

        func bac(_ name: String, extended: Bool) -> ReadVariant {
            var chip = VirtualChipConfiguration(files: specimen.files, accessKey: key, extendedLength: extended)
            chip.authentication = fixture.chip
            return ReadVariant(
                name: name, chip: chip,
                options: ReadOptions(accessKey: .mrz(key), reader: .init(preferExtendedLength: extended), access: .bac),
                access: .bac)
        }
        func pace(_ name: String, _ mapping: PACEMapping, _ agreement: KeyAgreementAlgorithm, parameterID: Int,
                  extended: Bool = true) throws -> ReadVariant {
            guard let proto = PACEProtocol(mapping: mapping, keyAgreement: agreement, cipher: .aes128) else {
                throw BenchError.check("\(name): no such PACE protocol")
            }
            let info = PACEInfo(protocol: proto, parameterID: parameterID)
            var chip = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: key, infos: [info], bac: false)
            chip.authentication = fixture.chip
            chip.extendedLength = extended
            return ReadVariant(
                name: name, chip: chip,
                options: ReadOptions(accessKey: .mrz(key), reader: .init(preferExtendedLength: extended), access: .pace),
                access: .pace(info))
        }
        // Terminal Authentication: BAC, CA, then TA (RSA-2048 v1.5 SHA-256 terminal key: deterministic
        // signatures, so the recorded read replays byte for byte) and DG3 / DG4 after it.
        func terminalAuthentication(_ name: String) throws -> ReadVariant {
            let set = try EACTestSet.make(algorithmOID: TerminalAuthenticationAlgorithm.oid(for: .rsaPKCS1v15(.sha256))!, rsaBits: 2048)
            let document = try SpecimenDocument.make(
                extraDataGroups: fixture.extraDataGroups.merging(EACTestSet.biometricDataGroups) { a, _ in a })
            var chip = VirtualChipConfiguration(files: document.files, accessKey: key)
            chip.authentication = fixture.chip
            set.equip(&chip, chipDate: .init(year: 2026, month: 1, day: 1))
            var options = ReadOptions(accessKey: .mrz(key), dataGroups: [1, 2, 3, 4, 14, 15], access: .bac)
            options.terminal = set.credentials()
            return ReadVariant(name: name, chip: chip, options: options, access: .bac, terminal: set)
        }
        return [
            try terminalAuthentication("bac-ta-rsa2048"),
            bac("bac", extended: true),
            bac("bacShort", extended: false),
            try pace("pace-gm-brainpoolP256r1", .gm, .ecdh, parameterID: 13),
            try pace("pace-gm-brainpoolP256r1Short", .gm, .ecdh, parameterID: 13, extended: false),
            try pace("pace-im-brainpoolP256r1", .im, .ecdh, parameterID: 13),
            try pace("pace-cam-brainpoolP256r1", .cam, .ecdh, parameterID: 13),
            try pace("pace-gm-p521", .gm, .ecdh, parameterID: 18),
            try pace("pace-im-p521", .im, .ecdh, parameterID: 18),
            try pace("pace-cam-p521", .cam, .ecdh, parameterID: 18),
            try pace("pace-dh-gm-2048", .gm, .dh, parameterID: 2),
        ]
    }
}
