import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import SwiftASN1
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// docs/field-quirks.md, "Signed data": SODs as real chips sign them, off the letter of Doc 9303-10
/// §4.6.2 or RFC 4055, verified with a warning that names the deviation, and never a signature that
/// does not verify.
@Suite struct SignedDataFieldQuirkTests {
    // MARK: Legacy eContentTypes (gmrtd#424/#425, pymrtd#8)

    @Test(arguments: TestSignedData.FieldContentType.allCases)
    func aSODWithALegacyContentTypeVerifiesWithAWarningNamingIt(_ type: TestSignedData.FieldContentType) throws {
        let report = try verify(pki: Shared.pki) { $0.use(type) }
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        let expected = type == .legacyICAO ? "sodContentTypeLegacyICAO" : "sodContentTypeSdu"
        #expect(report.warnings.contains(expected), "\(report.warnings)")
        #expect(report.check.warnings?.contains(expected) == true)
        #expect(report.fileHashes[.dg(1)] == .valid)
    }

    @Test(arguments: TestSignedData.FieldContentType.allCases)
    func aLegacyContentTypeDoesNotExcuseABadSignatureOrAContentTypeAttributeThatDiffers(
        _ type: TestSignedData.FieldContentType
    ) throws {
        let corrupted = try verify(pki: Shared.pki) {
            $0.use(type)
            $0.signature = .corrupted
        }
        #expect(corrupted.result == .failed)
        #expect(corrupted.reason == .sodSignatureInvalid)
        // The signed contentType attribute must still be the eContentType (RFC 5652 §11.1).
        let attributeDiffers = try verify(pki: Shared.pki) {
            $0.use(type)
            $0.contentTypeAttribute = LDSSecurityObject.oid
        }
        #expect(attributeDiffers.reason == .signedAttributesInvalid)
    }

    @Test func anyOtherContentTypeIsStillRefusedAndTheWellFormedSODCarriesNoWarning() throws {
        let other = try verify(pki: Shared.pki) {
            $0.eContentType = "1.2.840.113549.1.7.1"  // id-data, which gmrtd also takes: not seen on a chip here
            $0.contentTypeAttribute = "1.2.840.113549.1.7.1"
        }
        #expect(other.reason == .sodContentTypeInvalid)
        let plain = try verify(pki: Shared.pki)
        #expect(plain.result == .passed)
        #expect(!plain.warnings.contains { $0.hasPrefix("sodContentType") })
    }

    @Test func aLegacyContentTypeIsNotTakenForEFCardSecurity() throws {
        let pki = Shared.pki
        let signed = TestSignedData(
            eContentType: TestSignedData.FieldContentType.legacyICAO.oid,
            eContent: DERBuilder.set([]), certificates: [pki.dsc],
            signerIdentifier: .issuerAndSerialNumber(issuer: pki.cscaName, serial: pki.dscSerial),
            digest: .sha256, scheme: pki.scheme)
        let verdict = PassiveAuthentication.verifyCardSecurity(try signed.build(signedBy: pki.dscKey), trustStore: try trustStore(pki))
        #expect(verdict.reason == .sodContentTypeInvalid)
    }

    // MARK: RSA-PSS DSC, PKCS #1 v1.5 SOD signature (selfxyz/self#1302)

    @Test func aPKCS1SignatureByADSCWhoseKeyIsStatedAsPSSVerifiesWithAWarning() throws {
        let pki = try FixturePKI.make(.rsaPSS).withDSCKeyStatedAsPSS()
        let dsc = try Certificate(derEncoded: pki.dsc)
        // The DSC really states id-RSASSA-PSS, and its key is decoded as such.
        let spki = try SubjectPublicKeyInfo(encoded: Array(dsc.subjectPublicKeyInfo))
        #expect(spki.algorithm.algorithm == "1.2.840.113549.1.1.10")
        let report = try verify(pki: pki) { $0.signPKCS1v15() }
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(report.signatureScheme == .rsaPKCS1v15(.sha256))
        #expect(report.warnings.contains("pkcs1SignatureByPSSKey"), "\(report.warnings)")
        #expect(report.fileHashes[.dg(1)] == .valid)
    }

    @Test func aPSSSignatureByThatDSCVerifiesWithoutTheWarning() throws {
        let pki = try FixturePKI.make(.rsaPSS).withDSCKeyStatedAsPSS()
        let report = try verify(pki: pki)
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(!report.warnings.contains("pkcs1SignatureByPSSKey"))
    }

    @Test func aPKCS1SignatureThatDoesNotVerifyWithThePSSStatedKeyIsStillInvalid() throws {
        let pki = try FixturePKI.make(.rsaPSS).withDSCKeyStatedAsPSS()
        let corrupted = try verify(pki: pki) {
            $0.signPKCS1v15()
            $0.signature = .corrupted
        }
        #expect(corrupted.reason == .sodSignatureInvalid)
        // Signed by another RSA key (the CSCA's): the DSC's key is the only one tried.
        let files = try FixtureDocument().files(pki: pki) { $0.signPKCS1v15() }
        var forged = FixtureDocument().signedData(pki: pki)
        forged.signPKCS1v15()
        var tampered = files
        tampered[.sod] = TLV.encode(tag: 0x77, value: try forged.build(signedBy: pki.cscaKey))
        let report = PassiveAuthentication.verify(files: tampered, trustStore: try trustStore(pki))
        #expect(report.reason == .sodSignatureInvalid)
        #expect(!report.warnings.contains("pkcs1SignatureByPSSKey"))
    }

    @Test func aDSCWithAnRSAEncryptionKeyNeedsNoRelabelling() throws {
        let pki = try FixturePKI.make(.rsa)
        #expect(SignedDataVerifier.pkcs1Key(ofPSSCertificate: try Certificate(derEncoded: pki.dsc)) == nil)
        let report = try verify(pki: pki)
        #expect(report.result == .passed)
        #expect(!report.warnings.contains("pkcs1SignatureByPSSKey"))
    }

    // MARK: Signers and CSCAs (gmrtd#353, #441; zkpassport#153)

    /// A SignerInfo naming the DSC by the SHA-1 of its key (RFC 5280 §4.2.1.2 method 1) while the
    /// DSC's subjectKeyIdentifier extension holds another value: the key is named all the same, the
    /// DSC is found, with a warning; before, `dscNotFound`. An identifier that names no key at all
    /// stays `dscNotFound` (TR-03105 LDS_H_28/29: PAReliabilityTests).
    @Test func aSubjectKeyIdentifierThatIsTheKeysHashButNotTheExtensionNamesTheDSC() throws {
        let pki = try Shared.pki.withDSC { $0.subjectKeyIdentifier = [0x5E, 0x1F, 0x00, 0x01] }
        let spki = try SubjectPublicKeyInfo(encoded: Array(try Certificate(derEncoded: pki.dsc).subjectPublicKeyInfo))
        let keyHash = DigestAlgorithm.sha1.hash(spki.subjectPublicKey)
        let report = try verify(pki: pki) {
            $0.signerIdentifier = .subjectKeyIdentifier(keyHash)
            $0.signerVersion = 3
        }
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(report.warnings.contains("signerIdentifiedByKeyHash"), "\(report.warnings)")
        let byExtension = try verify(pki: pki) {
            $0.signerIdentifier = .subjectKeyIdentifier([0x5E, 0x1F, 0x00, 0x01])
            $0.signerVersion = 3
        }
        #expect(byExtension.result == .passed)
        #expect(!byExtension.warnings.contains("signerIdentifiedByKeyHash"), "the extension's value needs no hash")
        let another = try verify(pki: pki) {
            $0.signerIdentifier = .subjectKeyIdentifier(DigestAlgorithm.sha1.hash([0x01]))
            $0.signerVersion = 3
        }
        #expect(another.reason == .dscNotFound)
    }

    /// issuerAndSerialNumber with the issuer name encoded otherwise (another string type, other
    /// case) and the serial with a redundant leading zero: the same DSC (RFC 5280 §7.1 name matching).
    @Test func anIssuerAndSerialNumberSpelledOtherwiseNamesTheSameDSC() throws {
        let report = try verify(pki: Shared.pki) {
            $0.signerIdentifier = .issuerAndSerialNumber(
                issuer: DERBuilder.name(country: "UT", organization: "MRTDD TEST FIXTURES", commonName: "fixture csca"),
                serial: [0x00] + Shared.pki.dscSerial)
        }
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
    }

    /// A DSC whose authority key identifier is not its CSCA's subject key identifier: the CSCA of the
    /// issuer name whose key verifies the DSC is taken, and that is reported; a DSC of that name
    /// signed by another key is not chained by its name alone.
    @Test func aCSCAFoundByNameAndSignatureDespiteAKeyIdentifierThatDiffersIsReported() throws {
        let pki = try Shared.pki.withDSC { $0.authorityKeyIdentifier = [0x0B, 0xAD, 0x1D, 0xEA] }
        let report = try verify(pki: pki)
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(report.warnings.contains("cscaKeyIdentifierMismatch"), "\(report.warnings)")
        #expect(!(try verify(pki: Shared.pki)).warnings.contains("cscaKeyIdentifierMismatch"))
        let forged = try Shared.pki.withDSC(signedBy: Shared.otherPKI.cscaKey) { $0.authorityKeyIdentifier = [0x0B, 0xAD] }
        let refused = try verify(pki: forged)
        #expect(refused.result == .failed)
        #expect(refused.reason == .dscSignatureInvalid, "\(refused.reason?.rawValue ?? "")")
    }
}
