internal import CLibCrypto

/// Key generation and raw signing, for the test fixture generator (certificates, CRLs, SignedData
/// built field by field so that tests can break any one of them).
extension PrivateKey {
    /// What key to generate.
    public enum Generation: Sendable, Hashable {
        /// RSA with the given modulus size and public exponent 65537.
        case rsa(bits: Int)
        /// EC on a curve named as OpenSSL knows it (`prime256v1`, `brainpoolP256r1`, …); with
        /// `explicitParameters` the public key is encoded with explicit domain parameters, as
        /// Doc 9303-12 §7.1.2 asks of CSCA and DSC keys.
        case ec(curve: String, explicitParameters: Bool)
        /// DSA (FIPS 186-4) with fresh domain parameters of `bits` (p) and `qBits` (q): 3072/256,
        /// 2048/224 or 2048/256.
        case dsa(bits: Int, qBits: Int)
    }

    /// Generates a fresh key.
    public static func generate(_ generation: Generation) throws(CryptoError) -> PrivateKey {
        let name: String
        switch generation {
        case .rsa: name = "RSA"
        case .ec: name = "EC"
        case .dsa(let bits, let qBits): return try generateDSA(bits: bits, qBits: qBits)
        }
        guard let context = EVP_PKEY_CTX_new_from_name(nil, name, nil) else { throw .openSSLQueue("EVP_PKEY_CTX_new_from_name") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_keygen_init(context) == 1 else { throw .openSSLQueue("EVP_PKEY_keygen_init") }
        switch generation {
        case .rsa(let bits):
            guard EVP_PKEY_CTX_set_rsa_keygen_bits(context, Int32(clamping: bits)) == 1 else {
                throw .openSSLQueue("EVP_PKEY_CTX_set_rsa_keygen_bits")
            }
        case .dsa: break
        case .ec(let curve, let explicit):
            // OSSL_PARAM keeps pointers to the key names and values: all four must outlive the call.
            let status = "group".withCString { groupKey in
                "encoding".withCString { encodingKey in
                    curve.withCString { curveName in
                        (explicit ? "explicit" : "named_curve").withCString { encoding in
                            var params = [
                                OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: curveName), 0),
                                OSSL_PARAM_construct_utf8_string(encodingKey, UnsafeMutablePointer(mutating: encoding), 0),
                                OSSL_PARAM_construct_end(),
                            ]
                            return EVP_PKEY_CTX_set_params(context, &params)
                        }
                    }
                }
            }
            guard status == 1 else { throw .openSSLQueue("EC parameters for \(curve)") }
        }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(context, &key) == 1, let key else { throw .openSSLQueue("EVP_PKEY_generate") }
        return PrivateKey(handle: EVPKeyHandle(taking: key))
    }

    /// A DSA key on freshly generated domain parameters (`EVP_PKEY_paramgen`, then keygen).
    private static func generateDSA(bits: Int, qBits: Int) throws(CryptoError) -> PrivateKey {
        let context = try EVPKeyContext(typeName: "DSA")
        guard EVP_PKEY_paramgen_init(context.pointer) == 1,
              EVP_PKEY_CTX_set_dsa_paramgen_bits(context.pointer, Int32(clamping: bits)) == 1,
              EVP_PKEY_CTX_set_dsa_paramgen_q_bits(context.pointer, Int32(clamping: qBits)) == 1
        else { throw .openSSLQueue("DSA parameter generation setup") }
        var domainKey: OpaquePointer? = nil
        guard EVP_PKEY_paramgen(context.pointer, &domainKey) == 1, let domainKey else {
            throw .openSSLQueue("EVP_PKEY_paramgen(DSA)")
        }
        let keygen = try EVPKeyContext(key: EVPKeyHandle(taking: domainKey))
        guard EVP_PKEY_keygen_init(keygen.pointer) == 1 else { throw .openSSLQueue("EVP_PKEY_keygen_init(DSA)") }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_generate(keygen.pointer, &key) == 1, let key else { throw .openSSLQueue("EVP_PKEY_generate(DSA)") }
        return PrivateKey(handle: EVPKeyHandle(taking: key))
    }

    /// The DER SubjectPublicKeyInfo of the public half.
    public func subjectPublicKeyInfo() throws(CryptoError) -> [UInt8] {
        try encodeDER("i2d_PUBKEY") { i2d_PUBKEY(handle.pointer, $0) }
    }

    /// The public half.
    public func publicKey() throws(CryptoError) -> PublicKey {
        try PublicKey(subjectPublicKeyInfo: subjectPublicKeyInfo())
    }

    /// Signs `message` under `scheme` (for ECDSA the DER `ECDSA-Sig-Value`; plain ECDSA is not produced).
    public func sign(message: [UInt8], scheme: SignatureScheme) throws(CryptoError) -> [UInt8] {
        if case .ecdsaPlain = scheme { throw .unsupported("producing plain ECDSA signatures") }
        guard let context = EVP_MD_CTX_new() else { throw .openSSLQueue("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        var keyContext: OpaquePointer? = nil
        let md = FetchedAlgorithms.shared.digest(scheme.digest)
        guard EVP_DigestSignInit_ex(context, &keyContext, EVP_MD_get0_name(md), nil, nil, handle.pointer, nil) == 1 else {
            throw .openSSLQueue("EVP_DigestSignInit_ex")
        }
        if case .rsaPSS(_, let mgf1, let salt) = scheme {
            guard EVP_PKEY_CTX_set_rsa_padding(keyContext, RSA_PKCS1_PSS_PADDING) == 1,
                  EVP_PKEY_CTX_set_rsa_mgf1_md(keyContext, FetchedAlgorithms.shared.digest(mgf1)) == 1,
                  EVP_PKEY_CTX_set_rsa_pss_saltlen(keyContext, Int32(clamping: salt)) == 1
            else { throw .openSSLQueue("RSA-PSS parameters") }
        }
        var length = 0
        guard message.withUnsafeBufferPointer({ EVP_DigestSign(context, nil, &length, $0.baseAddress, $0.count) }) == 1 else {
            throw .openSSLQueue("EVP_DigestSign")
        }
        var signature = [UInt8](repeating: 0, count: length)
        let status = signature.withUnsafeMutableBufferPointer { out in
            message.withUnsafeBufferPointer { EVP_DigestSign(context, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard status == 1 else { throw .openSSLQueue("EVP_DigestSign") }
        return Array(signature.prefix(length))
    }
}
