import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// Chip Authentication and Active Authentication against the virtual chip, over BAC: every key
/// agreement and cipher variant, key encodings, several keys, and the negative cases of
/// RELIABILITY CA-01, CA-02 and a bad AA signature, each with its specific error.
@Suite struct AuthenticationMatrixTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    struct Setup: Sendable {
        var fixture: AuthenticationFixture
        var specimen: SpecimenDocument
        var chip: VirtualChip
    }

    static func setup(
        ca: [ChipAuthenticationKeySpec] = [], aa: ActiveAuthenticationKeySpec? = nil, dg14Faults: DG14Faults = [],
        chipFaults: VirtualChipAuthentication.Faults = [], adjust: (inout VirtualChipAuthentication) -> Void = { _ in }
    ) throws -> Setup {
        let fixture = try AuthenticationFixture.make(
            chipAuthentication: ca, activeAuthentication: aa, dg14Faults: dg14Faults, chipFaults: chipFaults)
        let specimen = try fixture.specimen()
        var config = VirtualChipConfiguration(files: specimen.files, accessKey: key)
        var chipSide = fixture.chip
        adjust(&chipSide)
        config.authentication = chipSide
        return Setup(fixture: fixture, specimen: specimen, chip: VirtualChip(configuration: config))
    }

    static func read(_ setup: Setup) async throws -> ChipReadOutcome {
        try await ChipSession(transport: setup.chip, options: ReadOptions(accessKey: .mrz(key))).run()
    }

    // MARK: Chip Authentication

    static let caMatrix: [ChipAuthenticationKeySpec] = [
        .init(domainParameterID: 13, cipher: .tripleDES),
        .init(domainParameterID: 13, cipher: .aes128),
        .init(domainParameterID: 12, cipher: .aes192, keyEncoding: .named),
        .init(domainParameterID: 15, cipher: .aes256),
        .init(domainParameterID: 18, cipher: .aes128, keyEncoding: .standardizedID),
        .init(domainParameterID: 9, cipher: .tripleDES, keyEncoding: .named),
        // secp192r1, as Russian passports' DG14 has it (gmrtd#10; tananaev/passport-reader#54).
        .init(domainParameterID: 8, cipher: .tripleDES),
        .init(domainParameterID: 17, cipher: .aes256, version: 2),
        .init(domainParameterID: 0, cipher: .tripleDES),
        .init(domainParameterID: 1, cipher: .aes128),
        .init(domainParameterID: 2, cipher: .aes256, keyEncoding: .standardizedID),
        .init(domainParameterID: 2, cipher: .tripleDES, version: 1),
        .init(domainParameterID: 1, cipher: .aes192, version: 2),
    ]

    @Test(arguments: caMatrix)
    func chipAuthenticationSwitchesEveryLaterReadToItsKeys(_ spec: ChipAuthenticationKeySpec) async throws {
        let setup = try Self.setup(ca: [spec])
        let outcome = try await Self.read(setup)
        for file in [LDSFile.com, .sod, .dg(1), .dg(2), .dg(14)] {
            #expect(outcome.files[file] == setup.specimen.files[file], "\(file) differs")
        }
        let check = outcome.checks.chipAuthentication
        #expect(check.result == .passedUnverifiedKey)
        #expect(check.reason == "keyFileUnverified: DG14" && check.keyFile == "DG14")
        #expect(check.protocol?.hasPrefix(ChipAuthenticationProtocol(keyAgreement: spec.keyAgreement, cipher: spec.cipher).name) == true)
        #expect(check.keyAgreement?.hasPrefix(spec.keyAgreement.rawValue) == true)
        // RELIABILITY CA-02: DG1 and DG2 came after CA, so under its keys; the chip saw them there.
        #expect(await setup.chip.chipAuthenticationCompleted)
        let underCA = await setup.chip.commandsUnderChipAuthenticationKeys
        #expect(underCA.filter { $0 == 0xB0 }.count >= 2, "DG1 and DG2 read under the CA keys")
        #expect(outcome.checks.activeAuthentication == .notPerformed("noDG15"))
    }

    @Test(arguments: [ChipAuthenticationProtocol(keyAgreement: .ecdh, cipher: .tripleDES),
                      ChipAuthenticationProtocol(keyAgreement: .ecdh, cipher: .aes128)])
    func withSeveralKeysTheKeyIDIsSentAndTheRightKeyUsed(_ caProtocol: ChipAuthenticationProtocol) async throws {
        let setup = try Self.setup(ca: [
            .init(domainParameterID: 13, cipher: caProtocol.cipher, keyID: 7),
            .init(domainParameterID: 12, cipher: caProtocol.cipher, keyID: 9),
        ])
        let outcome = try await Self.read(setup)
        #expect(outcome.checks.chipAuthentication.result == .passedUnverifiedKey)
        #expect(outcome.files[.dg(2)] == setup.specimen.files[.dg(2)])
        let dg14 = try SecurityInfos(dg14: try #require(setup.fixture.dg14))
        let parameters = try #require(try ChipAuthenticationParameters.select(from: dg14))
        #expect(parameters.sendKeyID && parameters.keyID != nil)
    }

    /// A chip without extended length refuses extended APDUs (6700): GENERAL AUTHENTICATE and
    /// INTERNAL AUTHENTICATE must stay short under secure messaging.
    @Test(arguments: [SymmetricCipher.aes128, .tripleDES])
    func aShortAPDUChipGetsShortAuthenticationCommands(_ cipher: SymmetricCipher) async throws {
        let fixture = try AuthenticationFixture.make(
            chipAuthentication: [.init(domainParameterID: 13, cipher: cipher)], activeAuthentication: .rsa(bits: 1024, digest: .sha1))
        let specimen = try fixture.specimen()
        var config = VirtualChipConfiguration(files: specimen.files, accessKey: Self.key, extendedLength: false)
        config.authentication = fixture.chip
        let outcome = try await ChipSession(transport: VirtualChip(configuration: config),
                                            options: ReadOptions(accessKey: .mrz(Self.key))).run()
        #expect(outcome.checks.chipAuthentication.result == .passedUnverifiedKey)
        #expect(outcome.checks.activeAuthentication.result == .passedUnverifiedKey)
        #expect(!outcome.transport.extendedLength)
    }

    @Test func dg14NotListedLeavesChipAuthenticationNotPerformed() async throws {
        let setup = try Self.setup(aa: .rsa(bits: 1024, digest: .sha1))
        let outcome = try await Self.read(setup)
        #expect(outcome.checks.chipAuthentication == .notPerformed("noDG14"))
        #expect(await !setup.chip.chipAuthenticationCompleted)
    }

    // MARK: RELIABILITY CA-01: a failed CA is reported as such, never as a pass

    @Test(arguments: [
        (ChipAuthenticationKeySpec(domainParameterID: 13, cipher: .aes128, keyID: 1), DG14Faults.keyIDMismatch, ChipAuthenticationFailure.keyIDMismatch),
        (.init(domainParameterID: 13, cipher: .aes128), .corruptedPublicKey, .publicKeyInvalid),
        (.init(domainParameterID: 2, cipher: .tripleDES), .corruptedPublicKey, .publicKeyInvalid),
        (.init(domainParameterID: 13, cipher: .tripleDES, keyEncoding: .explicit), .invalidDomainParameters, .domainParametersInvalid),
        (.init(domainParameterID: 1, cipher: .aes128), .invalidDomainParameters, .domainParametersInvalid),
    ])
    func damagedDG14FailsChipAuthenticationWithItsCode(
        _ spec: ChipAuthenticationKeySpec, _ fault: DG14Faults, _ failure: ChipAuthenticationFailure
    ) async throws {
        let setup = try Self.setup(ca: [spec], dg14Faults: fault)
        let outcome = try await Self.read(setup)
        #expect(outcome.checks.chipAuthentication.result == .failed)
        #expect(outcome.checks.chipAuthentication.reason == failure.code)
        #expect(outcome.warnings.contains { $0.contains(failure.code) }, "the failure is reported, not silent")
        #expect(await !setup.chip.chipAuthenticationCompleted)
        // The data groups are still read (under the BAC keys) and say so.
        #expect(outcome.files[.dg(1)] == setup.specimen.files[.dg(1)])
    }

    @Test func aKeyReferenceTheChipDoesNotKnowIsRejected() async throws {
        let setup = try Self.setup(
            ca: [.init(domainParameterID: 13, cipher: .tripleDES, keyID: 1), .init(domainParameterID: 12, cipher: .tripleDES, keyID: 2)]
        ) { chip in
            for i in chip.chipAuthenticationKeys.indices { chip.chipAuthenticationKeys[i].keyID = 40 + i }
        }
        let outcome = try await Self.read(setup)
        #expect(outcome.checks.chipAuthentication.result == .failed)
        #expect(outcome.checks.chipAuthentication.reason == ChipAuthenticationFailure.keyReferenceRejected.code)
    }

    @Test(arguments: [SymmetricCipher.tripleDES, .aes128])
    func aPlainRefusalEndsTheReadWithTheChipAuthenticationCode(_ cipher: SymmetricCipher) async throws {
        let setup = try Self.setup(ca: [.init(domainParameterID: 13, cipher: cipher)], chipFaults: .refusesChipAuthenticationInPlain)
        let read = await DocumentReader.read(transport: setup.chip, options: ReadOptions(accessKey: .mrz(Self.key)))
        #expect(read.result.status == .failed)
        #expect(read.result.error?.code.rawValue == ChipAuthenticationFailure.keyReferenceRejected.code)
    }

    // MARK: RELIABILITY CA-02: the chip must answer under the new keys

    @Test(arguments: [VirtualChipAuthentication.Faults.keepsOldKeysAfterChipAuthentication, .chipAuthenticationWithWrongPrivateKey])
    func aChipNotAnsweringUnderTheCAKeysFailsTheRead(_ fault: VirtualChipAuthentication.Faults) async throws {
        for spec in [ChipAuthenticationKeySpec(domainParameterID: 13, cipher: .aes128), .init(domainParameterID: 2, cipher: .tripleDES)] {
            let setup = try Self.setup(ca: [spec], chipFaults: fault)
            await #expect {
                _ = try await Self.read(setup)
            } throws: { error in
                guard case ProtocolError.chipAuthentication(.keyConfirmationFailed, _) = error else { return false }
                return true
            }
            let read = await DocumentReader.read(transport: setup.chip, options: ReadOptions(accessKey: .mrz(Self.key)))
            #expect(read.result.status == .failed)
            #expect(read.result.error?.code == .chipAuthenticationKeyConfirmationFailed)
        }
    }

    // MARK: Active Authentication

    static let aaMatrix: [ActiveAuthenticationKeySpec] = [
        .rsa(bits: 1024, digest: .sha1),
        .rsa(bits: 2048, digest: .sha1),
        .rsa(bits: 2048, digest: .sha224),
        .rsa(bits: 2048, digest: .sha256),
        .rsa(bits: 2048, digest: .sha384),
        .rsa(bits: 2048, digest: .sha512),
        .ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true),
        .ecdsa(curveID: 13, digest: .sha256, plain: false, withInfo: true),
        .ecdsa(curveID: 15, digest: .sha384, plain: true, withInfo: false),
        .ecdsa(curveID: 18, digest: .sha512, plain: true, withInfo: true),
        .ecdsa(curveID: 16, digest: .sha1, plain: false, withInfo: true),
    ]

    @Test(arguments: aaMatrix)
    func activeAuthenticationVerifiesEveryKeyAndHash(_ spec: ActiveAuthenticationKeySpec) async throws {
        let setup = try Self.setup(aa: spec)
        let outcome = try await Self.read(setup)
        let check = outcome.checks.activeAuthentication
        #expect(check.result == .passedUnverifiedKey, "\(check)")
        #expect(check.reason == "keyFileUnverified: DG15" && check.keyFile == "DG15" && check.protocol == "id-AA")
        switch spec {
        case .rsa(_, let digest): #expect(check.algorithm == "RSA-ISO9796-2 \(digest.rawValue)")
        case .ecdsa(_, let digest, let plain, _): #expect(check.algorithm == "ECDSA \(digest.rawValue) \(plain ? "plain" : "DER")")
        }
    }

    @Test(arguments: [ActiveAuthenticationKeySpec.rsa(bits: 2048, digest: .sha256), .ecdsa(curveID: 13, digest: .sha256, plain: true, withInfo: true)])
    func aBadSignatureFailsActiveAuthentication(_ spec: ActiveAuthenticationKeySpec) async throws {
        let setup = try Self.setup(aa: spec, chipFaults: .activeAuthenticationBadSignature)
        let outcome = try await Self.read(setup)
        #expect(outcome.checks.activeAuthentication.result == .failed)
        #expect(outcome.checks.activeAuthentication.reason?.hasPrefix("activeAuthenticationSignatureInvalid") == true)
        #expect(outcome.files[.dg(15)] == setup.specimen.files[.dg(15)])
    }

    @Test func chipAndActiveAuthenticationTogetherBothPassUnverified() async throws {
        let setup = try Self.setup(ca: [.init(domainParameterID: 13, cipher: .aes128)],
                                   aa: .ecdsa(curveID: 13, digest: .sha256, plain: true, withInfo: true))
        let read = await DocumentReader.read(transport: setup.chip, options: ReadOptions(accessKey: .mrz(Self.key)))
        #expect(read.result.checks.chipAuthentication.result == .passedUnverifiedKey)
        #expect(read.result.checks.activeAuthentication.result == .passedUnverifiedKey)
        #expect(read.result.dataGroupsRead == ["EF_COM", "EF_SOD", "DG1", "DG2", "DG14", "DG15"])
        // INTERNAL AUTHENTICATE itself went under the CA keys.
        #expect(await setup.chip.commandsUnderChipAuthenticationKeys.contains(0x88))
    }
}
