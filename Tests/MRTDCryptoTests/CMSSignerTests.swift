@testable import MRTDCrypto
import SwiftASN1
import Testing

@Suite("X.509 certificates and private keys")
struct X509CertificateTests {
    @Test func pemCertificateExposesRFC2253NamesAndSerial() throws {
        let certificates = try X509Certificate.parsePEM(TestPKI.ecP256Certificate)
        #expect(certificates.count == 1)
        let certificate = try #require(certificates.first)
        #expect(certificate.subject == "CN=Test,C=UT")
        #expect(certificate.issuer == "CN=Test,C=UT")
        #expect(certificate.serialNumberHex == "1001")
        #expect(certificate.derBytes.first == 0x30)
    }

    @Test func pemTextWithSeveralCertificatesYieldsAllInOrder() throws {
        let bundle = TestPKI.ecP256Certificate + "\n" + TestPKI.rsa2048Certificate + "\n" + TestPKI.explicitBrainpoolCertificate
        let certificates = try X509Certificate.parsePEM(bundle)
        #expect(certificates.map(\.subject) == ["CN=Test,C=UT", "CN=RSA Signer,O=MRTD Test,C=UT", "CN=Explicit Brainpool,C=UT"])
        #expect(certificates.map(\.serialNumberHex) == ["1001", "A1B2C3", "07"])
    }

    @Test func derRoundTripGivesAnEqualCertificate() throws {
        let fromPEM = try #require(X509Certificate.parsePEM(TestPKI.rsa2048Certificate).first)
        let fromDER = try X509Certificate(derEncoded: fromPEM.derBytes)
        #expect(fromDER == fromPEM)
        #expect(fromDER.subject == fromPEM.subject)
    }

    @Test func trailingBytesAfterDERCertificateAreRejected() throws {
        let certificate = try #require(X509Certificate.parsePEM(TestPKI.ecP256Certificate).first)
        #expect(throws: CryptoError.self) { try X509Certificate(derEncoded: certificate.derBytes + [0]) }
    }

    @Test(arguments: [[UInt8](), [0x30, 0x03, 0x02, 0x01, 0x01], [0xFF]])
    func malformedDERIsRejected(bytes: [UInt8]) {
        #expect(throws: CryptoError.self) { try X509Certificate(derEncoded: bytes) }
    }

    @Test func textWithoutCertificateIsInvalidInput() {
        #expect(throws: CryptoError.invalidInput("no certificate in PEM text")) { try X509Certificate.parsePEM("hello") }
    }

    @Test func privateKeysLoadFromPKCS8AndTraditionalPEM() throws {
        _ = try PrivateKey(pem: TestPKI.ecP256Key)
        _ = try PrivateKey(pem: TestPKI.rsa2048Key)
        _ = try PrivateKey(pem: TestPKI.explicitBrainpoolKey)
        #expect(throws: CryptoError.self) { try PrivateKey(pem: TestPKI.ecP256Certificate) }
    }
}

@Suite("CMS SignedData signer")
struct CMSSignerTests {
    /// id-icao-mrtd-security-ldsSecurityObject (Doc 9303-10 §4.6.2).
    static let ldsSecurityObjectOID = "2.23.136.1.1.1"
    static let content: [UInt8] = Array("an LDSSecurityObject stand-in".utf8)

    struct Signer: Sendable, CustomTestStringConvertible {
        let name: String
        let certificatePEM: String
        let keyPEM: String
        let digest: DigestAlgorithm
        var testDescription: String { "\(name) with \(digest.rawValue)" }
    }

    static let signers: [Signer] = [
        .init(name: "ECDSA P-256", certificatePEM: TestPKI.ecP256Certificate, keyPEM: TestPKI.ecP256Key, digest: .sha256),
        .init(name: "ECDSA P-256", certificatePEM: TestPKI.ecP256Certificate, keyPEM: TestPKI.ecP256Key, digest: .sha1),
        .init(name: "RSA-2048 PKCS#1 v1.5", certificatePEM: TestPKI.rsa2048Certificate, keyPEM: TestPKI.rsa2048Key, digest: .sha256),
        .init(name: "RSA-2048 PKCS#1 v1.5", certificatePEM: TestPKI.rsa2048Certificate, keyPEM: TestPKI.rsa2048Key, digest: .sha512),
        .init(name: "ECDSA brainpoolP256r1 explicit", certificatePEM: TestPKI.explicitBrainpoolCertificate,
              keyPEM: TestPKI.explicitBrainpoolKey, digest: .sha384),
    ]

    @Test(arguments: signers)
    func signedDataVerifiesWithTheSignerCertificateAndCarriesTheContent(_ signer: Signer) throws {
        let certificate = try #require(X509Certificate.parsePEM(signer.certificatePEM).first)
        let key = try PrivateKey(pem: signer.keyPEM)
        let der = try CMSSigner.sign(content: Self.content, eContentTypeOID: Self.ldsSecurityObjectOID,
                                     certificate: certificate, privateKey: key, digest: signer.digest)
        #expect(der.first == 0x30)
        let summary = try CMSSignedDataSummary.verify(der: der, certificate: certificate)
        #expect(summary.eContentTypeOID == Self.ldsSecurityObjectOID)
        #expect(summary.content == Self.content)
        #expect(summary.signerCount == 1)
        #expect(summary.digestOID == signer.digest.oid.description)
        #expect(summary.signerIdentifiedByIssuerAndSerial)
        #expect(summary.hasContentTypeAttribute)
        #expect(summary.hasMessageDigestAttribute)
        // The signer certificate travels inside the SignedData.
        #expect(der.firstRange(of: certificate.derBytes) != nil)
    }

    @Test func verificationFailsAgainstAnotherCertificate() throws {
        let certificate = try #require(X509Certificate.parsePEM(TestPKI.ecP256Certificate).first)
        let other = try #require(X509Certificate.parsePEM(TestPKI.rsa2048Certificate).first)
        let der = try CMSSigner.sign(content: Self.content, eContentTypeOID: Self.ldsSecurityObjectOID, certificate: certificate,
                                     privateKey: PrivateKey(pem: TestPKI.ecP256Key), digest: .sha256)
        #expect(throws: CryptoError.self) { try CMSSignedDataSummary.verify(der: der, certificate: other) }
    }

    @Test func tamperedContentFailsVerification() throws {
        let certificate = try #require(X509Certificate.parsePEM(TestPKI.ecP256Certificate).first)
        var der = try CMSSigner.sign(content: Self.content, eContentTypeOID: Self.ldsSecurityObjectOID, certificate: certificate,
                                     privateKey: PrivateKey(pem: TestPKI.ecP256Key), digest: .sha256)
        let range = try #require(der.firstRange(of: Self.content))
        der[range.lowerBound] ^= 0x01
        #expect(throws: CryptoError.self) { try CMSSignedDataSummary.verify(der: der, certificate: certificate) }
    }

    @Test func keyNotMatchingTheCertificateIsRejected() throws {
        let certificate = try #require(X509Certificate.parsePEM(TestPKI.ecP256Certificate).first)
        #expect(throws: CryptoError.self) {
            try CMSSigner.sign(content: Self.content, eContentTypeOID: Self.ldsSecurityObjectOID, certificate: certificate,
                               privateKey: PrivateKey(pem: TestPKI.rsa2048Key), digest: .sha256)
        }
    }

    @Test(arguments: ["", "not an oid", "id-data"])
    func nonNumericContentTypeIsInvalidInput(oid: String) throws {
        let certificate = try #require(X509Certificate.parsePEM(TestPKI.ecP256Certificate).first)
        let key = try PrivateKey(pem: TestPKI.ecP256Key)
        #expect(throws: CryptoError.self) {
            try CMSSigner.sign(content: Self.content, eContentTypeOID: oid, certificate: certificate, privateKey: key, digest: .sha256)
        }
    }
}
