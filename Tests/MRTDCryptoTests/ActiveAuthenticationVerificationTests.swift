import MRTDCrypto
import SwiftASN1
import Testing

/// Active Authentication signature checks: ISO/IEC 9796-2 scheme 1 (Doc 9303-11 Appendix F, a real
/// document's answer from gmrtd's test suite, every trailer) and ECDSA in both encodings.
@Suite("Active Authentication verification")
struct ActiveAuthenticationVerificationTests {
    /// Doc 9303-11 Appendix F (VECTORS.md §5): RND.IFD, M1 and F as printed. The appendix has no public
    /// key, so only the representative can be checked.
    @Test func appendixFRepresentativeChecksWithSHA1ImplicitTrailer() {
        let m2 = hex("F173589974BF40C6")
        let f = hex("6A9D2784A67F8E7C659973EA1AEA25D95B6C8F91E5002F369F0FBDCE8A3CEC1991B543F1696546C5524CF23A5303CD6C98599F40B79F377B5F3A1406B3B4D8F96784D23AA88DB7E1032A405E69325FA91A6E86F5C71AEA978264C4A207446DAD4E7292E2DCDA3024B47DA8C063AA1E6D22FBD976AB0FE73D94D2D9C6D88127BC")
        #expect(f.count == 128)
        #expect(ISO9796Part2.check(representative: f, modulusBits: 1024, m2: m2) == .success(.sha1))
        var wrongChallenge = m2
        wrongChallenge[0] ^= 1
        #expect(ISO9796Part2.check(representative: f, modulusBits: 1024, m2: wrongChallenge) == .failure(.hashMismatch))
    }

    /// A real RSA-1792 answer (trailer 34 CC, SHA-256) recorded by gmrtd (`activeauth/active_auth_test.go`, MIT): DG15 and
    /// the signature over RND.IFD 96302B0F3D7E7864.
    @Test func realDocumentRSASignatureVerifies() throws {
        let dg15 = hex("6F8201023081FF300D06092A864886F70D01010105000381ED003081E90281E100BB8F93F4DC95E205CDA17C6927AB1E365B13065D03CD12E0FCE95D96840529453202F56CC4C13F77CD062930C8BC89A2873B257045C286E601CF3C09323A53103314902804AA10A314628CE222206A8866946A36B442041BB54AC81E6855DD1D6E16101833D65A191C20AC8B33B8A1A32920F46043F8031CF2BC17417030865FC5BE5A39DEE423BCBA3CA8177168EB23CFE01BA43EC87711B1CFFF85DB46F300DD8AE317B50D543B573E119E23AF7070D0B2FED6A3B2313A5EC02A531AAED1741F4390D1013E2A0F081EAC5DC8B0A1B2C6BDB1206F08D30E3643E1E5BDF536110203010001")
        let signature = hex("474256306840c0ab1b63c10e1c26bdfef4a0dd843920283cc4e6e70a60f2bd25dc7725f9677bc1cde66379dc28b38e8490f33afb2d10f9980c44c0bfc175d2b6684218f535c92fdd3e18db770a9ccbf91db3c7f0138e6d9e94b9bc8371761e3abed5e5e9b260279cfb238b58ae0d6a01da51c74c2a3ecd62c448bd9f20127f7384587287fa971204234e55b1a856c3e5aaaa620bb799a68fbae08ee132bb61683eba9b0b40dc1e54641cad975b16991cab50af82e3f3985afd19e7427a125f5b4b9878b12a5d2e01c7eedca3bb41c6fc05dccd818bce379d04b1f2f5d43487d3")
        let key = try ActiveAuthenticationPublicKey(dg15: dg15)
        #expect(key.keyType == .rsa && key.bits == 1792)
        let result = try key.verify(challenge: hex("96302B0F3D7E7864"), signature: signature)
        #expect(result.isValid, "\(result.failure ?? "")")
        #expect(result.digest == .sha256)
        let other = try key.verify(challenge: hex("96302B0F3D7E7865"), signature: signature)
        #expect(!other.isValid)
        #expect(other.failure == ISO9796Part2.Failure.hashMismatch.rawValue)
    }

    /// gmrtd's decodeF cases: the explicit trailers name SHA-224/256/384/512 (ISO/IEC 10118-3).
    @Test(arguments: [
        ("6A1234567890ABCDEF1234567890ABCDEF11223344aefc05e88f48eb88d367ba3dacb7d6a8543ec02bd315e47ddbe2045d38CC", DigestAlgorithm.sha224),
        ("6A1234567890ABCDEF1234567890ABCDEF11223344783980d44fd3a80f0e4210eb9c73ea399932062d465438f8e1ff13377de8308934CC", .sha256),
        ("6A1234567890ABCDEF1234567890ABCDEF112233448e0873b0baf595a777b497779981bd94dda3a81fd61cf2d526ab490f2d6cbcecc6eab5804df4e0a70169d4d0d6c07e7536CC", .sha384),
        ("6A1234567890ABCDEF1234567890ABCDEF11223344968304e09f0c0ec86be4ade4b82d97d04283e3652b61193856c9ede1dac8962b3da9580fd77e9f9ef18a24c517d8d3b05f4eeb177e990ae1e80895c8bb28f51635CC", .sha512),
        ("6A1234567890ABCDEF1234567890ABCDEF11223344e9b287952a913cc5b60ff74ecfc87e40e81563b1BC", .sha1),
    ])
    func explicitTrailersSelectTheHash(_ f: String, _ digest: DigestAlgorithm) {
        let block = hex(f)
        #expect(ISO9796Part2.check(representative: block, modulusBits: 8 * block.count, m2: hex("0102030405060708")) == .success(digest))
    }

    @Test(arguments: [
        ("6B0000BC", ISO9796Part2.Failure.padding),
        ("4A00000000000000000000000000000000000000000000BC", .fullRecovery),
        ("8A000000", .header),
        ("6A000000", .trailer),
        ("6A0000CC", .trailer),
        ("6Ab287952a913cc5b60ff74ecfc87e40e81563b1BC", .length),
    ])
    func malformedRepresentativesAreRejectedWithTheirReason(_ f: String, _ failure: ISO9796Part2.Failure) {
        let block = hex(f)
        #expect(ISO9796Part2.check(representative: block, modulusBits: 8 * block.count, m2: hex("0102030405060708")) == .failure(failure))
    }

    static let rsaKey = try! PrivateKey.generateRSA(bits: 1024)

    @Test(arguments: DigestAlgorithm.allCases)
    func rsaSignaturesVerifyForEveryTrailer(_ digest: DigestAlgorithm) throws {
        let key = Self.rsaKey
        let challenge = try SystemRandom().randomBytes(8)
        let f = try ISO9796Part2.representative(modulusBits: key.rsaModulusBits, m2: challenge, digest: digest, random: SystemRandom())
        let signature = try key.rsaPrivateOperation(f)
        let publicKey = try ActiveAuthenticationPublicKey(subjectPublicKeyInfo: key.subjectPublicKeyInfo())
        let result = try publicKey.verify(challenge: challenge, signature: signature)
        #expect(result.isValid && result.digest == digest && result.algorithm == "RSA-ISO9796-2")
        var bad = signature
        bad[40] ^= 0x80
        #expect(!(try publicKey.verify(challenge: challenge, signature: bad)).isValid)
    }

    @Test(arguments: [(12, DigestAlgorithm.sha256, true), (13, .sha256, false), (15, .sha384, true), (18, .sha512, false), (12, .sha1, true)])
    func ecdsaSignaturesVerifyInPlainAndDER(_ curve: Int, _ digest: DigestAlgorithm, _ plain: Bool) throws {
        let key = try PrivateKey.generateEC(standardizedDomainParameterID: curve)
        let challenge = try SystemRandom().randomBytes(8)
        let signature = try key.ecdsaSign(digest: digest.hash(challenge), plain: plain)
        let publicKey = try ActiveAuthenticationPublicKey(subjectPublicKeyInfo: key.subjectPublicKeyInfo())
        #expect(publicKey.keyType == .ec)
        let stated = try publicKey.verify(challenge: challenge, signature: signature, ecdsaDigest: digest)
        #expect(stated.isValid && stated.signatureFormat == (plain ? "plain" : "DER"))
        let inferred = try publicKey.verify(challenge: challenge, signature: signature)
        #expect(inferred.isValid && inferred.digest == digest)
        var bad = signature
        bad[bad.count - 1] ^= 0x01
        #expect(!(try publicKey.verify(challenge: challenge, signature: bad, ecdsaDigest: digest)).isValid)
    }

    @Test func ecdsaSignatureAlgorithmOIDsNameTheirHash() {
        #expect(DigestAlgorithm(ecdsaSignatureAlgorithmOID: "0.4.0.127.0.7.1.1.4.1.3") == .sha256)
        #expect(DigestAlgorithm(ecdsaSignatureAlgorithmOID: "1.2.840.10045.4.3.4") == .sha512)
        #expect(DigestAlgorithm(ecdsaSignatureAlgorithmOID: "1.2.840.113549.1.1.11") == nil)
    }

    @Test func dg15WithoutItsTagIsRejected() {
        #expect(throws: CryptoError.self) { try ActiveAuthenticationPublicKey(dg15: hex("3003020100")) }
    }
}
