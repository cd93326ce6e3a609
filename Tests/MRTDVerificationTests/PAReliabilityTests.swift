import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import SwiftASN1
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// The PA-* rows of RELIABILITY.md (TR-03105 LDS_H / ICAO-P4 LDS_D), each with its expected verdict,
/// on documents generated in-process.
@Suite struct PAReliabilityTests {
    let pki = Shared.pki

    @Test func unmodifiedFixtureDocumentPasses() throws {
        let report = try verify(pki: pki)
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(report.fileHashes[.dg(1)] == .valid)
        #expect(report.fileHashes[.dg(15)] == .valid)
        #expect(report.isAuthenticated(.dg(14)))
        #expect(report.signatureScheme == .ecdsa(.sha256))
        #expect(report.digestAlgorithm == .sha256)
    }

    // PA-SIG-01
    @Test func corruptedSignerInfoSignatureFailsAndIsNeverValid() throws {
        let report = try verify(pki: pki) { $0.signature = .corrupted }
        #expect(report.reason == .sodSignatureInvalid)
        #expect(!report.isAuthenticated(.dg(1)))
        var result = ReadResult(status: .unverified)
        result.apply(report)
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.result == .failed)
    }

    // PA-SIG-02
    @Test(arguments: [TestSignedData.SignatureValue.missing, .empty])
    func missingSignerInfoSignatureFails(value: TestSignedData.SignatureValue) throws {
        let report = try verify(pki: pki) { $0.signature = value }
        #expect(report.reason == .sodSignatureInvalid)
    }

    // PA-ALG-01
    @Test func md5SignatureAlgorithmFails() throws {
        let report = try verify(pki: pki) { $0.signatureAlgorithmOverride = DERBuilder.md5WithRSA }
        #expect(report.result == .failed)
        #expect(report.reason == .signatureAlgorithmNotAllowed)
    }

    // PA-ALG-02
    @Test func md5InDigestAlgorithmsFails() throws {
        let report = try verify(pki: pki) { $0.digestAlgorithms = [DERBuilder.md5] }
        #expect(report.reason == .digestAlgorithmNotAllowed)
    }

    @Test func emptyDigestAlgorithmsFails() throws {
        let report = try verify(pki: pki) { $0.digestAlgorithms = [] }
        #expect(report.reason == .digestAlgorithmNotAllowed)
    }

    @Test func missingDigestAlgorithmsSetFails() throws {
        let report = try verify(pki: pki) { $0.omitDigestAlgorithms = true }
        #expect(report.reason == .sodMalformed)
    }

    @Test func md5SignerDigestFails() throws {
        let report = try verify(pki: pki) { $0.signerDigestOverride = DERBuilder.md5 }
        #expect(report.reason == .digestAlgorithmNotAllowed)
    }

    // PA-CMS-01
    @Test func wrongEContentTypeFails() throws {
        let report = try verify(pki: pki) { $0.eContentType = "1.2.840.113549.1.7.1" }
        #expect(report.reason == .sodContentTypeInvalid)
    }

    @Test func missingEContentTypeFails() throws {
        let report = try verify(pki: pki) { $0.omitEContentType = true }
        #expect(report.reason == .sodMalformed)
    }

    // PA-CMS-02
    @Test(arguments: [1, 2, 4, 5])
    func wrongSignedDataVersionFails(version: Int) throws {
        let report = try verify(pki: pki) { $0.version = version }
        #expect(report.reason == .sodMalformed)
    }

    @Test(arguments: [0, 2, 4])
    func wrongSignerInfoVersionFails(version: Int) throws {
        let report = try verify(pki: pki) { $0.signerVersion = version }
        #expect(report.reason == .sodMalformed)
    }

    @Test func missingSignedDataVersionFails() throws {
        let report = try verify(pki: pki) { $0.omitVersion = true }
        #expect(report.reason == .sodMalformed)
    }

    @Test func missingSignerInfoVersionFails() throws {
        let report = try verify(pki: pki) { $0.omitSignerVersion = true }
        #expect(report.reason == .sodMalformed)
    }

    // PA-CMS-03
    @Test func wrongMessageDigestFails() throws {
        let report = try verify(pki: pki) { $0.messageDigestOverride = [UInt8](repeating: 0xAB, count: 32) }
        #expect(report.reason == .signedAttributesInvalid)
    }

    @Test func missingMessageDigestFails() throws {
        let report = try verify(pki: pki) { $0.omitMessageDigest = true }
        #expect(report.reason == .signedAttributesInvalid)
    }

    @Test func contentTypeAttributeDifferentFromEContentTypeFails() throws {
        let report = try verify(pki: pki) { $0.contentTypeAttribute = "1.2.840.113549.1.7.1" }
        #expect(report.reason == .signedAttributesInvalid)
    }

    // PA-CMS-04
    @Test func v1WithWrongIssuerAndSerialFindsNoSigner() throws {
        let report = try verify(pki: pki) { $0.signerIdentifier = .issuerAndSerialNumber(issuer: pki.cscaName, serial: [0x77]) }
        #expect(report.reason == .dscNotFound)
    }

    @Test func v3WithWrongSubjectKeyIdentifierFindsNoSigner() throws {
        let report = try verify(pki: pki) { $0.signerIdentifier = .subjectKeyIdentifier([UInt8](repeating: 1, count: 20)) }
        #expect(report.reason == .dscNotFound)
    }

    // PA-CMS-05: a SignerInfo version that does not fit its identifier fails by default (strict,
    // TR-03105-5.1 LDS_H_84/85); tolerate-sod-deviations finds the signer and names the mismatch.
    @Test func v3WithIssuerAndSerialMatchesTheSigner() throws {
        let strict = try verify(pki: pki) { $0.signerVersion = 3 }
        #expect(strict.result == .failed)
        #expect(strict.reason == .sodMalformed)
        let report = try verify(pki: pki, profile: .tolerateSODDeviations) { $0.signerVersion = 3 }
        #expect(report.result == .passed)
        #expect(report.warnings.contains("signerInfoVersionMismatch"))
    }

    @Test func v1WithSubjectKeyIdentifierMatchesTheSigner() throws {
        let ski = try #require(pki.dscTemplate.subjectKeyIdentifier)
        let edit: (inout TestSignedData) -> Void = {
            $0.signerIdentifier = .subjectKeyIdentifier(ski)
            $0.signerVersion = 1
        }
        #expect(try verify(pki: pki, edit).reason == .sodMalformed)
        let report = try verify(pki: pki, profile: .tolerateSODDeviations, edit)
        #expect(report.result == .passed)
    }

    @Test func v3WithSubjectKeyIdentifierPasses() throws {
        let ski = try #require(pki.dscTemplate.subjectKeyIdentifier)
        let report = try verify(pki: pki) { $0.signerIdentifier = .subjectKeyIdentifier(ski) }
        #expect(report.result == .passed)
        #expect(report.warnings.isEmpty || !report.warnings.contains("signerInfoVersionMismatch"))
    }

    // PA-HASH-01
    @Test func wrongDG2HashFailsWithPerGroupStatus() throws {
        var document = FixtureDocument()
        document.hashOverrides[2] = [UInt8](repeating: 0, count: 32)
        let report = try verify(document, pki: pki)
        #expect(report.reason == .dataGroupHashMismatch)
        #expect(report.fileHashes[.dg(2)] == .invalid)
        #expect(report.fileHashes[.dg(1)] == .valid)
        #expect(report.check.dataGroupHashes?["DG2"] == "invalid")
    }

    // PA-HASH-02
    @Test func missingDG1HashFails() throws {
        var document = FixtureDocument()
        document.omittedHashes = [1]
        let report = try verify(document, pki: pki)
        #expect(report.reason == .dataGroupHashMissing)
        #expect(report.fileHashes[.dg(1)] == .missing)
    }

    // PA-HASH-03
    @Test func extraHashForAGroupNotOnTheChipFails() throws {
        var document = FixtureDocument()
        document.extraHashes = [(10, [UInt8](repeating: 0x10, count: 32))]
        let report = try verify(document, pki: pki)
        #expect(report.reason == .comSodMismatch)
        #expect(report.fileHashes[.dg(10)] == .notRead)
    }

    // PA-HASH-04
    @Test func dataGroupNumber0xFFFails() throws {
        var document = FixtureDocument()
        document.extraHashes = [(0xFF, [UInt8](repeating: 0xFF, count: 32))]
        let report = try verify(document, pki: pki)
        #expect(report.reason == .ldsSecurityObjectInvalid)
    }

    @Test func missingDG2HashFails() throws {
        var document = FixtureDocument()
        document.omittedHashes = [2]
        let report = try verify(document, pki: pki)
        #expect(report.reason == .dataGroupHashMissing)
        #expect(report.fileHashes[.dg(2)] == .missing)
    }

    // PA-LSO-01
    @Test(arguments: [2, 3])
    func wrongSecurityObjectVersionFails(version: Int) throws {
        var document = FixtureDocument()
        document.securityObjectVersion = version
        let report = try verify(document, pki: pki)
        #expect(report.reason == .ldsSecurityObjectInvalid)
    }

    @Test func md5SecurityObjectHashAlgorithmFails() throws {
        var document = FixtureDocument()
        document.securityObjectHashAlgorithm = DERBuilder.md5
        let report = try verify(document, pki: pki)
        #expect(report.reason == .ldsSecurityObjectInvalid)
    }

    @Test func securityObjectWithoutVersionOrAlgorithmFails() throws {
        typealias D = DERBuilder
        let hashes = D.sequence(D.sequence(D.integer(1), D.octetString([UInt8](repeating: 1, count: 32))),
                                D.sequence(D.integer(2), D.octetString([UInt8](repeating: 2, count: 32))))
        for raw in [D.sequence(D.algorithm(DigestAlgorithm.sha256.oid), hashes), D.sequence(D.integer(0), hashes)] {
            var document = FixtureDocument()
            document.rawSecurityObject = raw
            let report = try verify(document, pki: pki)
            #expect(report.reason == .ldsSecurityObjectInvalid)
        }
    }

    @Test func version1SecurityObjectWithVersionInfoPasses() throws {
        var document = FixtureDocument()
        document.securityObjectVersion = 1
        #expect(try verify(document, pki: pki).passed)
    }

    // PA-LSO-02
    @Test func securityObjectDigestDifferentFromSignerDigestPasses() throws {
        var document = FixtureDocument()
        document.digest = .sha256
        let report = try verify(document, pki: pki) {
            $0.digest = .sha384
            $0.scheme = .ecdsa(.sha384)
        }
        #expect(report.result == .passed, "\(report.detail ?? "")")
        #expect(report.digestAlgorithm == .sha256)
        #expect(report.signatureScheme == .ecdsa(.sha384))
    }

    // PA-ORDER-01
    @Test func corruptedDG2WithWrongHashFailsWithoutParsingIt() throws {
        var document = FixtureDocument()
        let honest = document.dataGroups[2]!
        document.hashOverrides[2] = DigestAlgorithm.sha256.hash(honest)
        document.dataGroups[2] = [0x75, 0x84, 0x7F, 0xFF, 0xFF, 0xFF, 0x01]  // lying length, garbage
        let files = try document.files(pki: pki)
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(pki))
        #expect(report.reason == .dataGroupHashMismatch)
        #expect(report.fileHashes[.dg(2)] == .invalid)
        var result = ReadResult.assemble(files: files, access: nil, applications: nil, skipped: [],
                                         transport: TransportReport(), durationMs: 0)
        result.apply(report)
        #expect(result.status == .invalid)
    }

    // PA-COM-01
    @Test(arguments: [[1, 2, 3, 14, 15], [1, 2, 14], [1, 2, 14, 16]])
    func comListingOtherGroupsThanTheSODFails(listed: [Int]) throws {
        var document = FixtureDocument()
        document.comDataGroups = listed
        let report = try verify(document, pki: pki)
        #expect(report.reason == .comSodMismatch)
    }

    // PA-CS-01
    @Test func cardSecurityWithWrongDigestFailsAndIsReported() throws {
        let files = try FixtureDocument().files(pki: pki)
        var cardSecurity = TestSignedData(
            eContentType: "0.4.0.127.0.7.3.2.1", eContent: DERBuilder.set([DERBuilder.sequence(DERBuilder.oid("0.4.0.127.0.7.2.2.4.2.2"), DERBuilder.integer(2))]),
            certificates: [pki.dsc], signerIdentifier: .issuerAndSerialNumber(issuer: pki.cscaName, serial: pki.dscSerial),
            digest: .sha256, scheme: pki.scheme)
        var good = files
        good[.cardSecurity] = try cardSecurity.build(signedBy: pki.dscKey)
        let passed = PassiveAuthentication.verify(files: good, trustStore: try trustStore(pki))
        #expect(passed.result == .passed)
        #expect(passed.fileHashes[.cardSecurity] == .valid)
        #expect(passed.isAuthenticated(.cardSecurity))

        cardSecurity.messageDigestOverride = [UInt8](repeating: 0x5A, count: 32)
        var bad = files
        bad[.cardSecurity] = try cardSecurity.build(signedBy: pki.dscKey)
        let failed = PassiveAuthentication.verify(files: bad, trustStore: try trustStore(pki))
        #expect(failed.reason == .cardSecurityInvalid)
        #expect(failed.fileHashes[.cardSecurity] == .invalid)
        #expect(failed.fileHashes[.dg(1)] == .valid)
    }
}
