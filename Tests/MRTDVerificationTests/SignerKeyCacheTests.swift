import Foundation
@testable import MRTDCrypto
import MRTDSimulation
import MRTDTesting
import Testing
@testable import MRTDVerification
import MRTDCore

/// The signer-key cache a trust store owns (`SignerKeyCache`, used by SignedDataVerifier): one
/// decoding per SubjectPublicKeyInfo, bounded, least recently used out first, and a key that does
/// not decode never kept.
@Suite struct SignerKeyCacheTests {
    /// DSCs with keys of three kinds: EC P-256, brainpoolP256r1 with explicit parameters, RSA.
    static let signers: [(certificate: Certificate, key: PrivateKey, scheme: SignatureScheme)] = {
        [FixturePKI.KeyType.ecP256, .brainpoolExplicit, .rsa].map { type in
            let pki = try! FixturePKI.make(type)
            return (try! Certificate(derEncoded: pki.dsc), pki.dscKey, pki.scheme)
        }
    }()

    @Test func aSignerKeyIsDecodedOnceAndVerifiesWhatItsPrivateKeySigned() throws {
        let keys = SignerKeyCache(capacity: 8)
        for signer in Self.signers {
            let first = try keys.key(of: signer.certificate)
            let again = try keys.key(of: signer.certificate)
            #expect(first.handle === again.handle, "the second call decodes again")
            let message = Array("document security object".utf8)
            let signature = try signer.key.sign(message: message, scheme: signer.scheme)
            #expect(try again.verify(signature: signature, message: message, scheme: signer.scheme))
            #expect(try again.verify(signature: signature, message: message + [0], scheme: signer.scheme) == false)
            #expect(again.kind == (try signer.certificate.publicKey()).kind)
            #expect(again.bits == (try signer.certificate.publicKey()).bits)
        }
        #expect(keys.count == Self.signers.count)
    }

    @Test func beyondItsCapacityTheLeastRecentlyUsedKeyGoes() throws {
        let keys = SignerKeyCache(capacity: 2)
        let (a, b, c) = (Self.signers[0].certificate, Self.signers[1].certificate, Self.signers[2].certificate)
        let keptA = try keys.key(of: a)
        _ = try keys.key(of: b)
        #expect(try keys.key(of: a).handle === keptA.handle, "a is used again: b is now the least recent")
        _ = try keys.key(of: c)
        #expect(keys.count == 2)
        #expect(keys.holds(a) && keys.holds(c))
        #expect(!keys.holds(b), "b was the least recently used")
        #expect(try keys.key(of: b).handle !== keptA.handle)
        #expect(!keys.holds(a), "b came back, a (used before c) went")
    }

    @Test func aKeyThatDoesNotDecodeIsNotKeptAndFailsEachTime() throws {
        // A SubjectPublicKeyInfo of an algorithm OpenSSL does not know (OID 1.2.3.4.5).
        let unknown: [UInt8] = [0x30, 0x0B, 0x30, 0x06, 0x06, 0x04, 0x2A, 0x03, 0x04, 0x05, 0x03, 0x01, 0x00]
        let pki = try FixturePKI.make(.ecP256)
        var template = pki.dscTemplate
        template.subjectPublicKeyInfo = unknown
        let certificate = try Certificate(derEncoded: try template.issue(signedBy: pki.cscaKey))
        let keys = SignerKeyCache(capacity: 4)
        for _ in 0..<2 {
            #expect(throws: (any Error).self) { try keys.key(of: certificate) }
        }
        #expect(keys.count == 0)
    }

    @Test func passiveAuthenticationUsesItsTrustStoresCache() throws {
        let store = try trustStore(Shared.pki)
        let report = PassiveAuthentication.verify(files: try FixtureDocument().files(pki: Shared.pki), trustStore: store)
        #expect(report.result == .passed, "\(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(store.signerKeys.holds(try Certificate(derEncoded: Shared.pki.dsc)))
    }
}
