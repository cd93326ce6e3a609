import Foundation
import MRTDTesting
import MRTDCore
import MRTDCrypto
import Testing

@testable import MRTDProtocol

/// The Chip Authentication keys of real documents (`../shared/samples`: gmrtd DG14 of an Austrian
/// and a Malaysian passport, EF.CardSecurity of German and Finnish ID cards, OpenPACE test cards):
/// DG14 selection and key objects with their parameters.
@Suite struct RealSecurityInfosKeyTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        var path: String
        var isDG14: Bool
        var caProtocol: String
        var domain: String
        var explicit: Bool
        var fieldBits = 256
        var testDescription: String { path }
    }

    static let samples: [Sample] = [
        Sample(path: "gmrtd/dg14/EF_DG14_AT.bin", isDG14: true, caProtocol: "id-CA-ECDH-AES-CBC-CMAC-128",
               domain: "brainpoolP256r1", explicit: true),
        Sample(path: "gmrtd/dg14/EF_DG14_MY.bin", isDG14: true, caProtocol: "id-CA-ECDH-3DES-CBC-CBC",
               domain: "brainpoolP256r1", explicit: true),
        Sample(path: "gmrtd/cardsecurity/EF_CardSecurity_DE.bin", isDG14: false, caProtocol: "id-CA-ECDH-AES-CBC-CMAC-128",
               domain: "brainpoolP256r1", explicit: false),
        Sample(path: "gmrtd/cardsecurity/EF_CardSecurity_FI.bin", isDG14: false, caProtocol: "", domain: "", explicit: false),
        Sample(path: "openpace/cardsecurity/EF_CardSecurity_BSI_EAC_WorkedExample_ECDH.bin", isDG14: false,
               caProtocol: "id-CA-ECDH-AES-CBC-CMAC-128", domain: "brainpoolP256r1", explicit: false),
        Sample(path: "openpace/cardsecurity/EF_CardSecurity_BSI_EAC_WorkedExample_DH.bin", isDG14: false,
               caProtocol: "id-CA-DH-AES-CBC-CMAC-128", domain: "RFC5114-1024-160", explicit: false, fieldBits: 1024),
        Sample(path: "openpace/cardsecurity/EF_CardSecurity_dan.bin", isDG14: false, caProtocol: "", domain: "", explicit: false),
    ]

    @Test(arguments: samples)
    func realChipAuthenticationKeysBecomeKeyAgreementKeys(_ sample: Sample) throws {
        guard let bytes = sharedSampleFile(sample.path) else { return }
        let infos = sample.isDG14 ? try SecurityInfos(dg14: bytes) : try CardSecurity(rawBytes: bytes).securityInfos
        let keys = infos.chipAuthenticationPublicKeyInfos
        #expect(!keys.isEmpty)
        for info in keys {
            let key = try KeyAgreementPublicKey(subjectPublicKeyInfo: info.subjectPublicKeyInfo)
            #expect(key.algorithm == info.keyAgreement)
            #expect(key.problem() == nil, "a real chip's key validates")
            let terminal = try KeyAgreementKeyPair.generate(on: key, random: SystemRandom())
            #expect(try terminal.sharedSecret(with: key).count == key.sharedSecretLength)
            print("\(sample.path): key \(info.keyID.map(String.init) ?? "-") \(key.algorithm.rawValue) \(key.domainName ?? "unnamed") "
                + "\(key.fieldBits)-bit explicit=\(key.hasExplicitParameters)")
            if !sample.domain.isEmpty {
                #expect(key.domainName == sample.domain)
                #expect(key.hasExplicitParameters == sample.explicit)
                #expect(key.fieldBits == sample.fieldBits)
                #expect(key.encodedPublicKey.count == (key.algorithm == .ecdh ? 2 * sample.fieldBits / 8 + 1 : sample.fieldBits / 8))
            }
        }
        if !sample.caProtocol.isEmpty {
            let parameters = try #require(try ChipAuthenticationParameters.select(from: infos))
            #expect(parameters.caProtocol.name == sample.caProtocol)
        }
    }
}

/// Reads `../shared/samples/<path>`; skips loudly when `../shared` is absent, fails under CI.
func sharedSampleFile(_ relativePath: String, filePath: String = #filePath) -> [UInt8]? {
    let root = URL(fileURLWithPath: filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")
    guard FileManager.default.fileExists(atPath: root.path) else {
        #expect(Prerequisite.skip("../shared missing; real-document key tests not run"))
        return nil
    }
    guard let data = try? Data(contentsOf: root.appendingPathComponent("samples").appendingPathComponent(relativePath)) else {
        Issue.record("sample \(relativePath) unreadable")
        return nil
    }
    return [UInt8](data)
}
