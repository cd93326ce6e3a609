import FoundationEssentials
/// A signature scheme as named by an AlgorithmIdentifier, reduced to what the math needs.
///
/// MD5 cannot be expressed (``DigestAlgorithm`` has no MD5): Doc 9303-12 §7 and BSI TR-03105
/// LDS_H_36 refuse it, so a scheme naming it is rejected while it is parsed, never "skipped".
public enum SignatureScheme: Sendable, Hashable, CustomStringConvertible {
    /// RSASSA-PKCS1-v1_5 (RFC 8017 §8.2) with the given hash.
    case rsaPKCS1v15(DigestAlgorithm)
    /// RSASSA-PSS (RFC 8017 §8.1, parameters per RFC 4055 §3.1): hash, MGF1 hash and salt length.
    case rsaPSS(digest: DigestAlgorithm, mgf1Digest: DigestAlgorithm, saltLength: Int)
    /// ECDSA with an X9.62 `ECDSA-Sig-Value` (DER `SEQUENCE { r, s }`) signature.
    case ecdsa(DigestAlgorithm)
    /// ECDSA with the plain `r || s` signature of BSI TR-03111 §5.2.1 (`ecdsa-plain-SHA*`).
    case ecdsaPlain(DigestAlgorithm)
    /// DSA (FIPS 186-4, Doc 9303-12 §7) with a DER `Dss-Sig-Value` signature (RFC 3279 §2.2.2).
    case dsa(DigestAlgorithm)

    /// The hash the signature is computed over.
    public var digest: DigestAlgorithm {
        switch self {
        case .rsaPKCS1v15(let d), .ecdsa(let d), .ecdsaPlain(let d), .dsa(let d): d
        case .rsaPSS(let d, _, _): d
        }
    }

    /// A readable name used in reports: `ECDSA-SHA256`, `RSA-PSS-SHA256`, `RSA-PKCS1v1.5-SHA256`.
    public var description: String {
        let hash = digest.rawValue.replacing("-", with: "")
        switch self {
        case .rsaPKCS1v15: return "RSA-PKCS1v1.5-\(hash)"
        case .rsaPSS(_, let mgf, let salt):
            let mgfHash = mgf.rawValue.replacing("-", with: "")
            return "RSA-PSS-\(hash)" + (mgf == digest ? "" : "-MGF1-\(mgfHash)") + "-salt\(salt)"
        case .ecdsa: return "ECDSA-\(hash)"
        case .ecdsaPlain: return "ECDSA-plain-\(hash)"
        case .dsa: return "DSA-\(hash)"
        }
    }
}
