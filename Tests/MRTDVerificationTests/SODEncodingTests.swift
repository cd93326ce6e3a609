import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import SwiftASN1
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// Algorithms real CSCAs and DSCs use, and the encodings chips send (BER, indefinite lengths),
/// against lying lengths and wrong tags.
@Suite struct SODEncodingTests {
    @Test(arguments: [FixturePKI.KeyType.ecP256, .brainpoolExplicit, .rsa, .rsaPSS])
    func everyKeyTypeVerifies(keyType: FixturePKI.KeyType) throws {
        let pki = try FixturePKI.make(keyType)
        let report = try verify(pki: pki)
        #expect(report.result == .passed, "\(keyType): \(report.reason?.rawValue ?? "") \(report.detail ?? "")")
    }

    @Test func explicitBrainpoolParametersAreReallyExplicit() throws {
        let pki = try FixturePKI.make(.brainpoolExplicit)
        let certificate = try Certificate(derEncoded: pki.dsc)
        // prime-field OID 1.2.840.10045.1.1 appears only in explicit parameters.
        let primeField: [UInt8] = [0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x01, 0x01]
        #expect(certificate.derBytes.indices.contains { certificate.derBytes[$0...].starts(with: primeField) })
    }

    @Test(arguments: [DigestAlgorithm.sha1, .sha224, .sha256, .sha384, .sha512])
    func everyDigestVerifies(digest: DigestAlgorithm) throws {
        var document = FixtureDocument()
        document.digest = digest
        let report = try verify(document, pki: Shared.pki) { $0.scheme = .ecdsa(digest) }
        #expect(report.result == .passed)
        #expect(report.digestAlgorithm == digest)
    }

    @Test func pssWithSHA512AndOtherSaltVerifies() throws {
        let pki = try FixturePKI.make(.rsaPSS)
        let scheme = SignatureScheme.rsaPSS(digest: .sha512, mgf1Digest: .sha512, saltLength: 64)
        let report = try verify(pki: pki) {
            $0.digest = .sha512
            $0.scheme = scheme
        }
        #expect(report.result == .passed)
        #expect(report.signatureScheme == scheme)
    }

    @Test func pssWithWrongSaltLengthFails() throws {
        let pki = try FixturePKI.make(.rsaPSS)
        let report = try verify(pki: pki) {
            $0.signatureAlgorithmOverride = DERBuilder.signatureAlgorithm(.rsaPSS(digest: .sha256, mgf1Digest: .sha256, saltLength: 20))
        }
        #expect(report.reason == .sodSignatureInvalid)
    }

    @Test func berIndefiniteLengthSODVerifies() throws {
        let files = try FixtureDocument().files(pki: Shared.pki) { $0.indefiniteLength = true }
        let sod = try #require(files[.sod])
        #expect(sod[1] == 0x80)
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(Shared.pki))
        #expect(report.result == .passed, "\(report.detail ?? "")")
    }

    @Test func sodReadWithTrailingBytesVerifiesAndSaysSo() throws {
        var files = try FixtureDocument().files(pki: Shared.pki)
        files[.sod]! += [0x00, 0x00, 0xFF]
        let inner = try FixtureDocument().files(pki: Shared.pki) { $0.indefiniteLength = true }
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(Shared.pki))
        #expect(report.result == .passed)
        var padded = inner
        padded[.sod]! += [0xFF, 0xFF]
        #expect(PassiveAuthentication.verify(files: padded, trustStore: try trustStore(Shared.pki)).result == .passed)
    }

    @Test(arguments: [UInt(0x78), 0x30, 0x60])
    func wrongOuterTagFails(tag: UInt) throws {
        var document = FixtureDocument()
        document.outerTag = tag
        let report = try verify(document, pki: Shared.pki)
        #expect(report.reason == .sodMalformed)
    }

    @Test func outerLengthLongerThanTheBytesReadFails() throws {
        var files = try FixtureDocument().files(pki: Shared.pki)
        let sod = try #require(files[.sod])
        files[.sod] = Array(sod.dropLast(40))
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(Shared.pki))
        #expect(report.reason == .sodMalformed)
    }

    @Test func innerLengthLyingAboutItsContentFails() throws {
        var files = try FixtureDocument().files(pki: Shared.pki)
        var sod = try #require(files[.sod])
        // 77 82 LL LL 30 82 LL LL: make the ContentInfo claim more than the outer TLV holds.
        #expect(sod[4] == 0x30 && sod[5] == 0x82)
        sod[6] = 0x7F
        files[.sod] = sod
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(Shared.pki))
        #expect(report.reason == .sodMalformed)
    }

    @Test func truncatedIndefiniteLengthSODFails() throws {
        var files = try FixtureDocument().files(pki: Shared.pki) { $0.indefiniteLength = true }
        files[.sod] = Array(files[.sod]!.dropLast(6))
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(Shared.pki))
        #expect(report.reason == .sodMalformed)
    }

    @Test(arguments: [[UInt8](), [0x77], [0x77, 0x00], [0x77, 0x80], [0x77, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]])
    func degenerateSODsFailWithoutCrashing(sod: [UInt8]) throws {
        let report = PassiveAuthentication.verify(files: [.sod: sod], trustStore: try trustStore(Shared.pki))
        #expect(report.reason == .sodMalformed)
    }

    @Test func withoutSODPassiveAuthenticationFails() throws {
        let report = PassiveAuthentication.verify(files: [.dg(1): [0x61, 0x00]], trustStore: try trustStore(Shared.pki))
        #expect(report.reason == .sodMissing)
    }

    @Test func withoutTrustStoreNothingIsClaimed() throws {
        let files = try FixtureDocument().files(pki: Shared.pki)
        let report = PassiveAuthentication.verify(files: files, trustStore: nil)
        #expect(report.result == .notPerformed)
        #expect(report.reason == .noTrustStore)
        var result = ReadResult(status: .valid)
        result.apply(report)
        #expect(result.status == .unverified)
    }

    @Test func onlyTheSODChecksSignatureAndChainAndReportsHashesNotRead() throws {
        let files = try FixtureDocument().files(pki: Shared.pki)
        let report = PassiveAuthentication.verify(files: [.sod: files[.sod]!], trustStore: try trustStore(Shared.pki))
        #expect(report.result == .passed)
        #expect(report.signatureAndChainValid)
        #expect(report.fileHashes == [.dg(1): .notRead, .dg(2): .notRead, .dg(14): .notRead, .dg(15): .notRead])
    }

    @Test func resultJSONCarriesTheCheck() throws {
        let files = try FixtureDocument().files(pki: Shared.pki)
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(Shared.pki))
        var result = ReadResult(status: .unverified)
        result.apply(report)
        #expect(result.status == .valid)
        let json = String(decoding: try JSONEncoder().encode(result), as: UTF8.self)
        #expect(json.contains(#""result":"passed""#))
        #expect(json.contains(#""signatureAlgorithm":"ECDSA-SHA256""#))
        #expect(json.contains(#""DG15":"valid""#))
        let decoded = try JSONDecoder().decode(ReadResult.self, from: Data(json.utf8))
        #expect(decoded == result)
    }
}

@Suite struct AlgorithmTableTests {
    @Test(arguments: ["1.2.840.113549.1.1.10", "1.2.840.10045.4.3.2", "0.4.0.127.0.7.1.1.4.1.3", "2.16.840.1.101.3.4.2.3", "1.3.14.3.2.29"])
    func encodedOIDsMatchDER(dotted: String) throws {
        let oid = try ASN1ObjectIdentifier(dotRepresentation: dotted)
        #expect(oid.contentOctets == Array(DERBuilder.oid(oid).dropFirst(2)))
    }
}
