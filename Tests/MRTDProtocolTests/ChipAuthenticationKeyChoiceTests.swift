import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Testing
import MRTDSimulation

/// Two Chip Authentication keys on the same curve (issue 32, gmrtd#447; TR-03110-3 §A.1.1.2: with
/// several keys keyId tells them apart; overlaps BSI TR-03105-5.1 ISO7816_D_04-06 and D_13): the key
/// is chosen by its key identifier, for Chip Authentication from DG14 and for PACE-CAM from
/// EF.CardSecurity, and a layout that breaks the rule fails with a specific reason, never a pass.
@Suite struct ChipAuthenticationKeyChoiceTests {
    static let key = RecoveryTests.key

    static func caRead(_ keys: [ChipAuthenticationKeySpec], faults: DG14Faults = []) async throws -> ChipReadOutcome {
        let setup = try AuthenticationMatrixTests.setup(ca: keys, dg14Faults: faults)
        let outcome = try await AuthenticationMatrixTests.read(setup)
        #expect(outcome.files[.dg(1)] == setup.specimen.files[.dg(1)], "the read goes on whatever CA gave")
        return outcome
    }

    /// DG14 with a 3DES key (id 1) and an AES key (id 2) on brainpoolP256r1: the reader takes the
    /// stronger protocol and names key 2 in MSE; the chip answers under key 2's session keys (a
    /// wrong key reference would fail the key confirmation).
    @Test func dg14WithTwoKeysOnOneCurveUsesTheKeyItsInfoNames() async throws {
        let outcome = try await Self.caRead([
            .init(domainParameterID: 13, cipher: .tripleDES, keyID: 1), .init(domainParameterID: 13, cipher: .aes128, keyID: 2),
        ])
        #expect(outcome.checks.chipAuthentication.result == .passedUnverifiedKey, "\(outcome.checks.chipAuthentication)")
        #expect(outcome.checks.chipAuthentication.protocol == "id-CA-ECDH-AES-CBC-CMAC-128", "\(outcome.checks.chipAuthentication)")
    }

    /// Two keys on one curve, one without a keyId: the info naming the other key's id is used; the
    /// key without an id cannot be told apart and is not guessed at.
    @Test func aKeyWithoutAnIdBesideOneWithAnIdIsNotGuessed() async throws {
        let outcome = try await Self.caRead([
            .init(domainParameterID: 13, cipher: .aes128), .init(domainParameterID: 13, cipher: .aes128, keyID: 2),
        ])
        #expect(outcome.checks.chipAuthentication.result == .passedUnverifiedKey, "\(outcome.checks.chipAuthentication)")
    }

    /// Two keys on one curve and no keyId anywhere (TR-03110-3 says it MUST be there), or infos whose
    /// ids match no key: Chip Authentication fails with `chipAuthenticationKeyIDMismatch`, the read
    /// goes on, nothing passes.
    @Test func twoKeysWithoutIdsOrWithIdsThatMatchNothingFailSpecifically() async throws {
        let withoutIDs = try await Self.caRead([
            .init(domainParameterID: 13, cipher: .aes128), .init(domainParameterID: 13, cipher: .aes128),
        ])
        #expect(withoutIDs.checks.chipAuthentication.result == .failed)
        #expect(withoutIDs.checks.chipAuthentication.reason == ChipAuthenticationFailure.keyIDMismatch.code)
        let mismatched = try await Self.caRead([
            .init(domainParameterID: 13, cipher: .aes128, keyID: 1), .init(domainParameterID: 13, cipher: .aes128, keyID: 2),
        ], faults: .keyIDMismatch)
        #expect(mismatched.checks.chipAuthentication.result == .failed)
        #expect(mismatched.checks.chipAuthentication.reason == ChipAuthenticationFailure.keyIDMismatch.code)
    }

    static let cam = PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)

    static func camRead(_ layout: CAMKeyLayout) async throws -> DocumentReader.Read {
        let specimen = try SpecimenDocument.make()
        let config = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: key, infos: [cam], bac: false, camKeys: layout)
        var trust = TrustStore()
        _ = trust.addAnchor(try TestPKI.csca(), source: "test", isTestMaterial: true)
        return await DocumentReader.read(
            transport: VirtualChip(configuration: config), options: ReadOptions(accessKey: .mrz(key), dataGroups: [1], trustStore: trust))
    }

    /// PACE-CAM with a generic Chip Authentication key on the PACE curve listed before the CAM key:
    /// the key whose keyId is the PACEInfo's parameterId (13) is the CAM key, whatever the order;
    /// with ids that do not follow that rule, or no id, the CAM key is still found, by the CAM
    /// equation itself (the only proof that counts); the check's detail says which key and how.
    @Test(arguments: [
        (CAMKeyLayout.withOtherKeyOnTheCurve(camKeyID: 13, otherKeyID: 1), "CAM key keyId 13, the PACEInfo's parameterId"),
        (.withOtherKeyOnTheCurve(camKeyID: 2, otherKeyID: 1), "CAM key keyId 2, found by the CAM equation (the parameterId names no such key)"),
        (.withOtherKeyOnTheCurve(camKeyID: nil, otherKeyID: 13), "CAM key without keyId, found by the CAM equation"),
        (.single, "CAM key keyId 1, found by the CAM equation (the parameterId names no such key)"),
    ] as [(CAMKeyLayout, String)])
    func pacecamFindsItsKeyAmongTwoOnTheCurve(_ layout: CAMKeyLayout, _ how: String) async throws {
        let read = try await Self.camRead(layout)
        #expect(read.result.status == .valid, "\(layout): \(read.result.error?.message ?? "")")
        #expect(read.result.access?.protocol == "PACE")
        #expect(read.result.checks.chipAuthentication.result == .passed, "\(layout): \(read.result.checks.chipAuthentication)")
        #expect(read.result.checks.chipAuthentication.detail == how, "\(layout)")
    }
}
