import Testing
@testable import MRTDCore
import SwiftASN1

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex)! }

@Suite("SecurityInfos: EF.CardAccess, DG14, EF.CardSecurity")
struct SecurityInfosTests {
    static let brainpoolP256r1Prime = "A9FB57DBA1EEA9BC3E660A909D838D726E3BF623D52620282013481D1F6E5377"

    @Test func paceInfoEncodesAsAppendixG1Prints() throws {
        let protocolG1 = try #require(PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128))
        #expect(protocolG1.name == "id-PACE-ECDH-GM-AES-CBC-CMAC-128")
        #expect(PACEInfo(protocol: protocolG1, parameterID: 13).rawBytes
            == bytes("3012060A04007F0007020204020202010202010D"))
        let cam = try PACEInfo(berEncoded: bytes("3012060A04007F0007020204060202010202010D"))
        #expect(cam.paceProtocol == PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128))
        #expect(cam.parameterID == 13)
        #expect(cam.version == 2)
    }

    @Test func oidTableHasNineteenProtocolsThatRoundTrip() {
        #expect(PACEProtocol.all.count == 19)
        for p in PACEProtocol.all { #expect(PACEProtocol(oid: p.oid) == p) }
        #expect(PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .tripleDES) == nil)
        #expect(PACEProtocol(mapping: .cam, keyAgreement: .dh, cipher: .aes128) == nil)
        #expect(PACEProtocol(oid: "0.4.0.127.0.7.2.2.4.5.2") == nil)
        #expect(PACEProtocol(oid: "0.4.0.127.0.7.2.2.4.2") == nil)
        #expect(ChipAuthenticationProtocol(oid: "0.4.0.127.0.7.2.2.3.1.1")?.name == "id-CA-DH-3DES-CBC-CBC")
    }

    @Test func chipAuthenticationPublicKeyOfAppendixIParses() throws {
        let info = try ChipAuthenticationPublicKeyInfo(berEncoded: bytes(
            "3062060904007F0007020201023052300C060704007F0007010202010D034200041872709494399E7470A6431BE25E83EEE24FEA568C2ED28DB48E05DB3A610DC884D256A40E35EFCB59BF6753D3A489D28C7A4D973C2DA138A6E7A4A08F68E16F02010D"))
        #expect(info.keyAgreement == .ecdh)
        #expect(info.keyID == 13)
        #expect(try info.algorithm.domainParameters == .standardized(13))
        #expect(try info.publicKey.hex.hasPrefix("041872709494399E"))
        #expect(info.subjectPublicKeyInfo.count == 0x54)
        // Rebuilding it from its parts gives the same bytes.
        let rebuilt = try ChipAuthenticationPublicKeyInfo(
            keyAgreement: .ecdh, algorithm: .standardized(13), publicKey: info.publicKey, keyID: 13)
        #expect(rebuilt.rawBytes == info.rawBytes)
    }

    @Test func singaporeCardAccessHasOneECDHGenericMappingAES256Info() throws {
        guard let file = sharedSample("gmrtd/cardaccess/EF_CardAccess_SG.bin") else { return }
        let infos = try SecurityInfos(derEncoded: file)
        #expect(infos.paceInfos.count == 1)
        #expect(infos.paceInfos.first?.paceProtocol == PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes256))
        #expect(infos.paceInfos.first?.parameterID == 13)
        #expect(infos.rawBytes == file)
    }

    @Test(arguments: [
        ("openpace/cardaccess/EF_CardAccess_BSI_EAC_WorkedExample_ECDH.bin", "0.4.0.127.0.7.2.2.4.2.2", 13),
        ("openpace/cardaccess/EF_CardAccess_BSI_EAC_WorkedExample_DH.bin", "0.4.0.127.0.7.2.2.4.1.2", 0),
        ("openpace/cardaccess/EF_CardAccess_DE_testcard_new.bin", "0.4.0.127.0.7.2.2.4.2.2", 13),
        ("openpace/cardaccess/EF_CardAccess_dan.bin", "0.4.0.127.0.7.2.2.4.2.2", 13),
    ])
    func germanCardAccessFilesListPACEAndChipAuthentication(path: String, paceOID: String, parameterID: Int) throws {
        guard let file = sharedSample(path) else { return }
        let infos = try SecurityInfos(derEncoded: file)
        #expect(infos.paceInfos.map(\.protocolOID.description) == [paceOID])
        #expect(infos.paceInfos.first?.parameterID == parameterID)
        #expect(!infos.chipAuthenticationInfos.isEmpty)
        #expect(!infos.chipAuthenticationDomainParameterInfos.isEmpty)
        // CardInfoLocator (id-CI, 0.4.0.127.0.7.2.2.6) is kept, unparsed.
        #expect(infos.unknown.contains { $0.protocolOID == "0.4.0.127.0.7.2.2.6" && $0.problem == nil })
        #expect(infos.unknown.allSatisfy { $0.problem == nil })
    }

    @Test func testcardWithTrailingGarbageParsesTheSetOnly() throws {
        guard let file = sharedSample("openpace/cardaccess/EF_CardAccess_DE_testcard_new.bin") else { return }
        let infos = try SecurityInfos(derEncoded: file)
        #expect(infos.rawBytes.count == 133)
        #expect(file.count > infos.rawBytes.count)
    }

    @Test func oldTestcardCarriesExplicitBrainpoolParameters() throws {
        guard let file = sharedSample("openpace/cardaccess/EF_CardAccess_DE_testcard_old.bin") else { return }
        let infos = try SecurityInfos(derEncoded: file)
        let pace = try #require(infos.paceInfos.first)
        #expect(pace.version == 1)
        #expect(pace.parameterID == nil)
        let domain = try #require(infos.paceDomainParameterInfos.first)
        #expect(domain.family?.mapping == .gm)
        #expect(domain.family?.keyAgreement == .ecdh)
        guard case .ec(let ec) = try domain.domainParameter.domainParameters else {
            Issue.record("explicit EC parameters expected")
            return
        }
        #expect(ec.p.hex == Self.brainpoolP256r1Prime)
        #expect(ec.generator.count == 65)
        #expect(ec.cofactor == [1])
        #expect(infos.chipAuthenticationDomainParameterInfos.count == 1)
    }

    @Test func cardWithChipAuthenticationMappingListsBothMappings() throws {
        guard let file = sharedSample("openpace/cardaccess/EF_CardAccess_ca3.bin") else { return }
        let infos = try SecurityInfos(derEncoded: file)
        #expect(Set(infos.paceInfos.compactMap(\.paceProtocol?.mapping)) == [.gm, .cam])
        #expect(infos.chipAuthenticationInfos.map(\.keyID) == [0x48, 0x4F])
    }

    @Test func slovenianCardAccessKeepsProprietaryInfoAndIgnoresTrailingStatusWord() throws {
        guard let file = sharedSample("openpace/cardaccess/EF_CardAccess_slowenia.bin") else { return }
        let infos = try SecurityInfos(derEncoded: file)
        #expect(infos.paceInfos.isEmpty)
        #expect(infos.chipAuthenticationInfos.first?.chipAuthenticationProtocol
            == ChipAuthenticationProtocol(keyAgreement: .ecdh, cipher: .tripleDES))
        #expect(infos.unknown.map(\.protocolOID).contains("1.0.24727.3.0.9"))
    }

    @Test(arguments: ["gmrtd/dg14/EF_DG14_AT.bin", "gmrtd/dg14/EF_DG14_MY.bin"])
    func dg14HoldsAnExplicitBrainpoolChipAuthenticationKey(path: String) throws {
        guard let file = sharedSample(path) else { return }
        let infos = try SecurityInfos(dg14: file)
        let key = try #require(infos.chipAuthenticationPublicKeyInfos.first)
        #expect(key.keyAgreement == .ecdh)
        #expect(key.algorithm.algorithm == SecurityProtocolOID.ecPublicKey)
        guard case .ec(let ec) = try key.algorithm.domainParameters else {
            Issue.record("explicit EC parameters expected")
            return
        }
        #expect(ec.p.hex == Self.brainpoolP256r1Prime)
        #expect(try key.publicKey.count == 65)
        #expect(try key.publicKey.first == 0x04)
        #expect(!infos.chipAuthenticationInfos.isEmpty)
    }

    @Test(arguments: [
        "gmrtd/cardsecurity/EF_CardSecurity_DE.bin", "gmrtd/cardsecurity/EF_CardSecurity_FI.bin",
        "openpace/cardsecurity/EF_CardSecurity_BSI_EAC_WorkedExample_DH.bin",
        "openpace/cardsecurity/EF_CardSecurity_BSI_EAC_WorkedExample_ECDH.bin",
        "openpace/cardsecurity/EF_CardSecurity_dan.bin",
    ])
    func cardSecurityContentIsSecurityInfosWithAChipKey(path: String) throws {
        guard let file = sharedSample(path) else { return }
        let cardSecurity = try CardSecurity(rawBytes: file)
        #expect(cardSecurity.eContent.first == 0x31)
        #expect(!cardSecurity.securityInfos.chipAuthenticationPublicKeyInfos.isEmpty)
        for key in cardSecurity.securityInfos.chipAuthenticationPublicKeyInfos {
            #expect(throws: Never.self) { _ = try key.algorithm.domainParameters }
        }
    }

    @Test func workedExampleCardSecurityHoldsTheCAKeyOfTheExample() throws {
        guard let file = sharedSample("openpace/cardsecurity/EF_CardSecurity_BSI_EAC_WorkedExample_ECDH.bin") else { return }
        let infos = try CardSecurity(rawBytes: file).securityInfos
        let key = try #require(infos.chipAuthenticationPublicKeyInfos.first)
        #expect(try key.publicKey.hex == "04A44EBE5451DF7AADB01E459B8C928A87746A57927C8C28A6775C97A7E1FE8D9A46FF4A1CC7E4D1389AEA19758E4F75C28C598FD734AEBEB135337CF95BE12E94")
        #expect(try key.algorithm.domainParameters == .standardized(13))
    }

    @Test func dhCardSecurityKeyIsAnInteger() throws {
        guard let file = sharedSample("openpace/cardsecurity/EF_CardSecurity_BSI_EAC_WorkedExample_DH.bin") else { return }
        let key = try #require(try CardSecurity(rawBytes: file).securityInfos.chipAuthenticationPublicKeyInfos.first)
        #expect(key.keyAgreement == .dh)
        #expect(try key.publicKey.count >= 100)
    }

    // MARK: Negative cases (RELIABILITY PACE-01)

    @Test func cardAccessWithWrongOuterTagIsMalformed() {
        #expect(throws: SecurityInfosError.self) { try SecurityInfos(derEncoded: bytes("3012060A04007F0007020204020202010202010D")) }
    }

    @Test func truncatedCardAccessIsMalformed() {
        #expect(throws: SecurityInfosError.self) { try SecurityInfos(derEncoded: bytes("3114 3012060A04007F000702020402020201")) }
    }

    @Test func elementWithoutOIDIsMalformed() {
        #expect(throws: SecurityInfosError.self) { try SecurityInfos(derEncoded: bytes("3105 3003 020102")) }
    }

    @Test func malformedPACEInfoIsKeptAsUnknownWithItsProblem() throws {
        // PACEInfo whose version is an OCTET STRING.
        let infos = try SecurityInfos(derEncoded: bytes("3111 300F060A04007F00070202040202 040102"))
        #expect(infos.paceInfos.isEmpty)
        #expect(infos.unknown.first?.problem != nil)
    }

    @Test func dg14WithWrongTagIsRejected() {
        #expect(throws: SecurityInfosError.wrongOuterTag(expected: 0x6E, found: 0x6F)) {
            try SecurityInfos(dg14: bytes("6F02 3100"))
        }
    }

    @Test func cardSecurityThatIsNotSignedDataIsRejected() {
        #expect(throws: SecurityInfosError.self) { try CardSecurity(rawBytes: bytes("3100")) }
        #expect(throws: SecurityInfosError.self) {
            try CardSecurity(rawBytes: bytes("300B06092A864886F70D010701"))
        }
    }

    @Test func builtSecurityInfosRoundTrip() throws {
        let built = SecurityInfos(infos: [
            .pace(PACEInfo(protocol: PACEProtocol(mapping: .im, keyAgreement: .dh, cipher: .aes256)!, parameterID: 2)),
            .chipAuthentication(ChipAuthenticationInfo(protocol: .init(keyAgreement: .ecdh, cipher: .aes128), version: 1)),
            .activeAuthentication(ActiveAuthenticationInfo(signatureAlgorithm: "1.2.840.10045.4.3.2")),
        ])
        let parsed = try SecurityInfos(derEncoded: built.rawBytes)
        #expect(parsed.paceInfos.first?.parameterID == 2)
        #expect(parsed.chipAuthenticationInfos.count == 1)
        #expect(parsed.activeAuthenticationInfos.first?.signatureAlgorithm == "1.2.840.10045.4.3.2")
        #expect(Set(parsed.infos) == Set(built.infos))
    }
}
