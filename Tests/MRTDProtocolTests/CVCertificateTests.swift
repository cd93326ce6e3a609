import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// CV certificates (BSI TR-03110-3 §C) from real sources, and the TA signature input checked
/// against the BSI EAC worked example.
@Suite struct CVCertificateTests {
    static let samples = [
        "BSI_EAC_WE_DH_AT.cvcert", "BSI_EAC_WE_DH_CVCA.cvcert", "BSI_EAC_WE_DH_DV.cvcert",
        "BSI_EAC_WE_ECDH_AT_DETESTATDE019.cvcert", "BSI_EAC_WE_ECDH_CVCA_DECVCAAT00001.cvcert",
        "BSI_EAC_WE_ECDH_DV_DETESTDVDE019.cvcert", "DECVCAEPASS00102.cvcert", "DECVCAeID00102.cvcert",
        "DECVCAeSign00102.cvcert", "at_cert_19a.cvcert", "at_cert_19a_ecdh.cvcert", "cvca-eid.cv",
        "dv_cert_19.cvcert", "dv_cert_19_ecdh.cvcert",
    ]

    static func sample(_ name: String) -> [UInt8]? {
        sharedFile("samples/openpace/cv_certs/\(name)").map { Array($0) }
    }

    @Test(arguments: samples)
    func realCVCertificatesParse(_ name: String) throws {
        guard let bytes = Self.sample(name) else { return }
        let certificate = try CVCertificate(rawBytes: bytes)
        #expect(certificate.rawBytes == bytes)
        #expect(certificate.profileIdentifier == 0)
        #expect(certificate.publicKey.signatureScheme != nil)
        #expect(certificate.effectiveDate <= certificate.expirationDate)
        if certificate.role == .cvca {
            // A CVCA certificate is self-signed and carries its domain parameters (EC) or modulus (RSA).
            #expect(certificate.authorityReference == certificate.holderReference || name.hasPrefix("DECVCA"))
        }
    }

    @Test func theGermanEPassCVCAIsForInspectionSystems() throws {
        guard let bytes = Self.sample("DECVCAEPASS00102.cvcert") else { return }
        let cvca = try CVCertificate(rawBytes: bytes)
        #expect(cvca.holderReference == "DECVCAEPASS00102")
        #expect(cvca.terminalTypeOID == CVCertificate.inspectionSystemOID)
        #expect(cvca.role == .cvca)
        // Its template is C1: CVCA role, read access to DG3 (fingerprints) only.
        #expect(cvca.accessRights == [0xC1])
        #expect(cvca.grantsDG3 && !cvca.grantsDG4)
    }

    @Test(arguments: [("BSI_EAC_WE_ECDH_CVCA_DECVCAAT00001.cvcert", "BSI_EAC_WE_ECDH_DV_DETESTDVDE019.cvcert",
                       "BSI_EAC_WE_ECDH_AT_DETESTATDE019.cvcert"),
                      ("BSI_EAC_WE_DH_CVCA.cvcert", "BSI_EAC_WE_DH_DV.cvcert", "BSI_EAC_WE_DH_AT.cvcert")])
    func theWorkedExampleChainVerifies(cvcaName: String, dvName: String, atName: String) throws {
        guard let c = Self.sample(cvcaName), let d = Self.sample(dvName), let a = Self.sample(atName) else { return }
        let cvca = try CVCertificate(rawBytes: c), dv = try CVCertificate(rawBytes: d), at = try CVCertificate(rawBytes: a)
        #expect(cvca.isSigned(by: cvca.publicKey, domain: cvca.publicKey))
        #expect(dv.authorityReference == cvca.holderReference)
        #expect(dv.isSigned(by: cvca.publicKey, domain: cvca.publicKey))
        #expect(at.authorityReference == dv.holderReference)
        #expect(at.isSigned(by: dv.publicKey, domain: cvca.publicKey))
        // Another issuer's key does not verify it.
        #expect(!at.isSigned(by: cvca.publicKey, domain: cvca.publicKey))
        // An authentication terminal (eID), not an inspection system: no DG3 / DG4 for eMRTDs.
        #expect(at.role == .terminal && !at.grantsDG3 && !at.grantsDG4)
    }

    /// The worked example's TA (ECDH, after PACE): the terminal's signature verifies over
    /// `ID_PICC || r_PICC || Comp(PK_PCD)`, ID_PICC = Comp(PACE PK_PICC), PK_PCD its CA key.
    @Test func workedExampleTerminalSignatureMatchesTheSignatureInput() throws {
        guard let v = bsiWorkedExample() else { return }
        let cvca = try CVCertificate(rawBytes: try #require(v["tc_ecdh_cvca_cert"]))
        let at = try CVCertificate(rawBytes: try #require(v["tc_ecdh_ta_cert"]))
        let input = TerminalAuthentication.signatureInput(
            chipIdentifier: TerminalAuthentication.compressed(try #require(v["tc_ecdh_picc_pub_key"]), keyAgreement: .ecdh),
            challenge: try #require(v["tc_ecdh_ta_nonce"]),
            terminalEphemeralKey: try #require(v["tc_ecdh_ca_pcd_pub_key"]), keyAgreement: .ecdh)
        let key = try PublicKey(subjectPublicKeyInfo: at.publicKey.subjectPublicKeyInfo(domain: cvca.publicKey))
        let signature = try #require(v["tc_ecdh_ta_pcd_signature"])
        let scheme = try #require(at.publicKey.signatureScheme)
        #expect(try key.verify(signature: signature, message: input, scheme: scheme))
        var other = input
        other[0] ^= 1
        #expect(try !key.verify(signature: signature, message: other, scheme: scheme))
        // The worked example's terminal key signs the same way through our signer.
        let privateKey = try PrivateKey(der: try #require(v["tc_ecdh_ta_pcd_key"]))
        let ours = try privateKey.signature(message: input, scheme: scheme)
        #expect(try key.verify(signature: ours, message: input, scheme: scheme))
    }

    @Test func efCVCARoundTripsAndRejectsGarbage() throws {
        let bytes = TerminalAuthentication.efCVCA(trustPoints: ["DECVCAEPASS00102", "DECVCAEPASS00203"])
        #expect(bytes.count == 36)
        #expect(try TerminalAuthentication.trustPoints(efCVCA: bytes) == ["DECVCAEPASS00102", "DECVCAEPASS00203"])
        for bad in [[UInt8](repeating: 0, count: 36), [0x43, 0x01, 0x41], [0x42, 0x05, 0x41]] {
            #expect(throws: (any Error).self) { try TerminalAuthentication.trustPoints(efCVCA: bad) }
        }
    }

    @Test func malformedCertificatesAreSpecificErrors() throws {
        let set = try EACTestSet.make()
        let good = set.inspectionSystem.rawBytes
        #expect(throws: CVCertificateError.self) { try CVCertificate(rawBytes: Array(good.dropLast())) }
        #expect(throws: CVCertificateError.self) { try CVCertificate(rawBytes: good + [0]) }
        #expect(throws: CVCertificateError.self) { try CVCertificate(rawBytes: [0x7F, 0x21, 0x00]) }
        // Every truncation is rejected; a single-byte flip either throws or (inside a value such as
        // the signature) parses into a body and signature that encode back to the flipped bytes.
        for cut in stride(from: 0, to: good.count, by: 7) {
            #expect(throws: CVCertificateError.self) { try CVCertificate(rawBytes: Array(good.prefix(cut))) }
        }
        var parsed = 0
        for i in good.indices {
            var flipped = good
            flipped[i] ^= 0xFF
            guard let certificate = try? CVCertificate(rawBytes: flipped) else { continue }
            parsed += 1
            #expect(TLV.encode(tag: 0x7F21, value: certificate.body + certificate.signatureObject) == flipped, "flip at \(i)")
        }
        #expect(parsed > 0 && parsed < good.count, "\(parsed) of \(good.count) flips parse")
    }

    @Test func datesFollowTheCalendar() throws {
        #expect(CVDate(Date(timeIntervalSince1970: 0)) == CVDate(year: 1970, month: 1, day: 1))
        #expect(CVDate(Date(timeIntervalSince1970: 1_709_164_800)) == CVDate(year: 2024, month: 2, day: 29))
        #expect(try CVDate(digits: [2, 6, 0, 6, 0, 1]) == CVDate(year: 2026, month: 6, day: 1))
        #expect(throws: CVCertificateError.self) { try CVDate(digits: [2, 6, 1, 3, 0, 1]) }
        #expect(throws: CVCertificateError.self) { try CVDate(digits: [2, 6, 0, 6, 0, 0x0A]) }
    }
}
