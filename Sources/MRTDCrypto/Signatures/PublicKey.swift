internal import CLibCrypto

/// A public key decoded from a DER `SubjectPublicKeyInfo` (RFC 5280 §4.1.2.7): RSA, RSA-PSS, or EC
/// on a named curve **or with explicit domain parameters** (Doc 9303-12 §7.1.2 requires explicit
/// parameters in CSCA and DSC keys). Signatures are verified directly with the key, so OpenSSL 3's
/// X.509 policy that refuses explicit curves never gets in the way.
public struct PublicKey: Sendable {
    let handle: EVPKeyHandle

    /// What kind of key this is.
    public enum Kind: Sendable, Equatable {
        case rsa
        case ec
        /// DSA (FIPS 186-4), as Doc 9303-12 §7 allows for CSCA and document signer keys.
        case dsa
    }

    /// `rsa` or `ec`.
    public let kind: Kind
    /// The key size in bits (modulus for RSA, order for EC).
    public let bits: Int

    /// Decodes a DER SubjectPublicKeyInfo; trailing bytes are rejected.
    public init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        try self.init(handle: EVPKeyHandle.parsePublicKey(der))
    }

    init(handle: EVPKeyHandle) throws(CryptoError) {
        self.handle = handle
        switch EVP_PKEY_get_base_id(handle.pointer) {
        case EVP_PKEY_RSA, EVP_PKEY_RSA_PSS: kind = .rsa
        case EVP_PKEY_EC: kind = .ec
        case EVP_PKEY_DSA: kind = .dsa
        case let other: throw .unsupported("public key type NID \(other)")
        }
        bits = Int(EVP_PKEY_get_bits(handle.pointer))
    }

    /// Whether `signature` is a valid signature of `message` under `scheme`.
    ///
    /// Returns `false` for a wrong signature, a malformed one, or a scheme that does not fit the key
    /// type (an ECDSA scheme with an RSA key); throws only when OpenSSL cannot set up at all.
    public func verify(signature: [UInt8], message: some Collection<UInt8>, scheme: SignatureScheme) throws(CryptoError) -> Bool {
        switch (scheme, kind) {
        case (.rsaPKCS1v15, .rsa), (.rsaPSS, .rsa), (.ecdsa, .ec), (.ecdsaPlain, .ec), (.dsa, .dsa): break
        default: return false
        }
        var derSignature = signature
        if case .ecdsaPlain = scheme {
            guard let converted = Self.plainToDER(signature) else { return false }
            derSignature = converted
        }
        guard let context = EVP_MD_CTX_new() else { throw .openSSLQueue("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer? = nil
        let md = FetchedAlgorithms.shared.digest(scheme.digest)
        guard EVP_DigestVerifyInit_ex(context, &keyContext, EVP_MD_get0_name(md), nil, nil, handle.pointer, nil) == 1 else {
            throw .openSSLQueue("EVP_DigestVerifyInit_ex")
        }
        if case .rsaPSS(_, let mgf1, let salt) = scheme {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, FetchedAlgorithms.shared.digest(mgf1)) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, Int32(clamping: salt)) == 1
            else { throw .openSSLQueue("RSA-PSS parameters") }
        }
        let message = Array(message)
        let status = derSignature.withUnsafeBufferPointer { sig in
            message.withUnsafeBufferPointer { msg in
                EVP_DigestVerify(context, sig.baseAddress, sig.count, msg.baseAddress, msg.count)
            }
        }
        // A bad signature leaves reasons on the queue; they are the verdict, not an error.
        CryptoError.clearOpenSSLQueue()
        return status == 1
    }

    /// BSI TR-03111 §5.2.1 plain `r || s` to an X9.62 `ECDSA-Sig-Value`.
    public static func plainToDER(_ plain: [UInt8]) -> [UInt8]? {
        guard !plain.isEmpty, plain.count % 2 == 0, let sig = ECDSA_SIG_new() else { return nil }
        defer { ECDSA_SIG_free(sig) }
        let half = plain.count / 2
        let r = plain.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(half), nil) }
        let s = plain.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + half, Int32(half), nil) }
        guard let r, let s, ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return nil
        }
        return try? encodeDER("i2d_ECDSA_SIG") { i2d_ECDSA_SIG(sig, $0) }
    }
}
