import MRTDCore
import MRTDCrypto
import SwiftASN1

/// The mapping from MRTDCore's ``AlgorithmIdentifier`` (RFC 5280 §4.1.1.2, parsed with swift-asn1)
/// to the digests and signature schemes passive authentication accepts (Doc 9303-12 §7: SHA-1/SHA-2,
/// RSA PKCS #1 v1.5, RSA-PSS, ECDSA).
extension AlgorithmIdentifier {
    /// The dotted algorithm OID, as errors name it.
    var oid: String { algorithm.description }

    /// The digest named by this identifier. MD5 and unknown hashes are refused.
    func digestAlgorithm() throws(AlgorithmError) -> DigestAlgorithm {
        if Self.weakDigests.contains(algorithm) { throw .notAllowed(oid) }
        guard let digest = Self.digests[algorithm] else { throw .unsupported(oid) }
        guard hasNoParameters else { throw .badParameters(oid) }
        return digest
    }

    /// The signature scheme named by this identifier. A bare key algorithm (`rsaEncryption`,
    /// `id-ecPublicKey`, as some SignerInfos carry) takes the hash from `defaultDigest` (the
    /// SignerInfo's digestAlgorithm); certificates pass `nil` and must name the hash.
    func signatureScheme(defaultDigest: DigestAlgorithm?) throws(AlgorithmError) -> SignatureScheme {
        guard let entry = Self.signatures[algorithm] else { throw .unsupported(oid) }
        switch entry {
        case .weak: throw .notAllowed(oid)
        case .pss: return try pssScheme()
        case .rsa(let digest):
            guard let digest = digest ?? defaultDigest else { throw .unsupported(oid) }
            return .rsaPKCS1v15(digest)
        case .ecdsa(let digest):
            guard let digest = digest ?? defaultDigest else { throw .unsupported(oid) }
            return .ecdsa(digest)
        case .ecdsaPlain(let digest): return .ecdsaPlain(digest)
        case .dsa(let digest):
            guard let digest = digest ?? defaultDigest else { throw .unsupported(oid) }
            return .dsa(digest)
        }
    }

    /// What a signature algorithm OID stands for (`nil` digest: taken from the SignerInfo).
    private enum SignatureEntry {
        case rsa(DigestAlgorithm?)
        case pss
        case ecdsa(DigestAlgorithm?)
        case ecdsaPlain(DigestAlgorithm)
        case dsa(DigestAlgorithm?)
        case weak
    }

    /// Looked up by OID.
    private static let signatures: [ASN1ObjectIdentifier: SignatureEntry] = {
        let table: [(ASN1ObjectIdentifier, SignatureEntry)] = [
            (ASN1ObjectIdentifier.AlgorithmIdentifier.rsaEncryption, .rsa(nil)),
            ([1, 2, 840, 113549, 1, 1, 5], .rsa(.sha1)), ([1, 3, 14, 3, 2, 29], .rsa(.sha1)),
            ([1, 2, 840, 113549, 1, 1, 14], .rsa(.sha224)), ([1, 2, 840, 113549, 1, 1, 11], .rsa(.sha256)),
            ([1, 2, 840, 113549, 1, 1, 12], .rsa(.sha384)), ([1, 2, 840, 113549, 1, 1, 13], .rsa(.sha512)),
            (ASN1ObjectIdentifier.AlgorithmIdentifier.rsaPSS, .pss),
            ([1, 2, 840, 10045, 2, 1], .ecdsa(nil)),  // id-ecPublicKey
            ([1, 2, 840, 10045, 4, 1], .ecdsa(.sha1)), ([1, 2, 840, 10045, 4, 3, 1], .ecdsa(.sha224)),
            ([1, 2, 840, 10045, 4, 3, 2], .ecdsa(.sha256)), ([1, 2, 840, 10045, 4, 3, 3], .ecdsa(.sha384)),
            ([1, 2, 840, 10045, 4, 3, 4], .ecdsa(.sha512)),
            // BSI TR-03111 §5.2.1 ecdsa-plain-signatures
            ([0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 1], .ecdsaPlain(.sha1)), ([0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 2], .ecdsaPlain(.sha224)),
            ([0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 3], .ecdsaPlain(.sha256)), ([0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 4], .ecdsaPlain(.sha384)),
            ([0, 4, 0, 127, 0, 7, 1, 1, 4, 1, 5], .ecdsaPlain(.sha512)),
            // DSA (Doc 9303-12 §7): id-dsa (a bare key algorithm), id-dsa-with-sha1 (RFC 3279 §2.2.2),
            // dsa-with-sha224 … sha512 (NIST CSOR 2.16.840.1.101.3.4.3.1-4)
            ([1, 2, 840, 10040, 4, 1], .dsa(nil)), ([1, 2, 840, 10040, 4, 3], .dsa(.sha1)),
            ([2, 16, 840, 1, 101, 3, 4, 3, 1], .dsa(.sha224)), ([2, 16, 840, 1, 101, 3, 4, 3, 2], .dsa(.sha256)),
            ([2, 16, 840, 1, 101, 3, 4, 3, 3], .dsa(.sha384)), ([2, 16, 840, 1, 101, 3, 4, 3, 4], .dsa(.sha512)),
            // md2/md4/md5WithRSAEncryption
            ([1, 2, 840, 113549, 1, 1, 2], .weak), ([1, 2, 840, 113549, 1, 1, 3], .weak), ([1, 2, 840, 113549, 1, 1, 4], .weak),
        ]
        return Dictionary(uniqueKeysWithValues: table)
    }()

    private static let digests: [ASN1ObjectIdentifier: DigestAlgorithm] = Dictionary(
        uniqueKeysWithValues: DigestAlgorithm.allCases.map { ($0.oid, $0) })

    private static let weakDigests: Set<ASN1ObjectIdentifier> = [
        ASN1ObjectIdentifier.WeakDigest.md2, ASN1ObjectIdentifier.WeakDigest.md4, ASN1ObjectIdentifier.WeakDigest.md5,
    ]

    /// MGF1 (RFC 8017 §B.2.1).
    private static let mgf1: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 1, 8]

    /// RFC 4055 §3.1:
    /// ```
    /// RSASSA-PSS-params ::= SEQUENCE {
    ///     hashAlgorithm      [0] HashAlgorithm      DEFAULT sha1,
    ///     maskGenAlgorithm   [1] MaskGenAlgorithm   DEFAULT mgf1SHA1,
    ///     saltLength         [2] INTEGER            DEFAULT 20,
    ///     trailerField       [3] TrailerField       DEFAULT trailerFieldBC }
    /// ```
    private func pssScheme() throws(AlgorithmError) -> SignatureScheme {
        var digest = DigestAlgorithm.sha1
        var mgf = DigestAlgorithm.sha1
        var salt = 20
        guard let parameters, parameters != [0x05, 0x00] else {
            return .rsaPSS(digest: digest, mgf1Digest: mgf, saltLength: salt)
        }
        do {
            for field in try BER.parse(parameters).children(.sequence, "RSASSA-PSS-params") {
                guard case .constructed(let inner) = field.content, let value = inner.first(where: { _ in true }) else {
                    throw AlgorithmError.badParameters(oid)
                }
                switch field.identifier {
                case .context(0): digest = try AlgorithmIdentifier(berEncoded: value).digestAlgorithm()
                case .context(1):
                    let mgfID = try AlgorithmIdentifier(berEncoded: value)
                    guard mgfID.algorithm == Self.mgf1, let mgfParameters = mgfID.parameters else {
                        throw AlgorithmError.unsupported(mgfID.oid)
                    }
                    mgf = try AlgorithmIdentifier(berEncoded: BER.parse(mgfParameters)).digestAlgorithm()
                case .context(2): salt = try Int(berEncoded: value)
                case .context(3):
                    guard try Int(berEncoded: value) == 1 else { throw AlgorithmError.badParameters(oid) }
                default: throw AlgorithmError.badParameters(oid)
                }
            }
        } catch let error as AlgorithmError {
            throw error
        } catch {
            throw .badParameters(oid)
        }
        guard (0...1024).contains(salt) else { throw .badParameters(oid) }
        return .rsaPSS(digest: digest, mgf1Digest: mgf, saltLength: salt)
    }

}

/// Why an algorithm identifier was refused.
enum AlgorithmError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A disallowed algorithm (MD5): a failure, never "skipped".
    case notAllowed(String)
    /// An algorithm this verifier does not implement.
    case unsupported(String)
    /// Parameters that do not fit the algorithm.
    case badParameters(String)

    var description: String {
        switch self {
        case .notAllowed(let oid): "algorithm \(oid) is not allowed"
        case .unsupported(let oid): "algorithm \(oid) is not supported"
        case .badParameters(let oid): "bad parameters for algorithm \(oid)"
        }
    }
}
