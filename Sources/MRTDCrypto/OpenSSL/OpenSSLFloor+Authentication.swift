internal import CLibCrypto

/// The bare OpenSSL calls Chip and Active Authentication cannot avoid, without this library's
/// parsing, checks and conversions: the floor the benchmark compares the real operations against.
/// For measurement only (the cost tests and the benchmark harness).
extension OpenSSLFloor {
    /// CA's asymmetric work on the terminal: decode the chip key (`d2i_PUBKEY`), validate it, make an
    /// ephemeral key on its parameters, derive the shared secret.
    public static func chipAuthentication(subjectPublicKeyInfo der: [UInt8]) -> Bool {
        guard let chipKey = try? EVPKeyHandle.parsePublicKey(der) else { return false }
        guard let check = EVP_PKEY_CTX_new_from_pkey(nil, chipKey.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(check) }
        guard EVP_PKEY_public_check(check) == 1, EVP_PKEY_keygen_init(check) == 1 else { return false }
        var ephemeral: OpaquePointer? = nil
        guard EVP_PKEY_keygen(check, &ephemeral) == 1, let ephemeral else { return false }
        defer { EVP_PKEY_free(ephemeral) }
        guard let derive = EVP_PKEY_CTX_new_from_pkey(nil, ephemeral, nil) else { return false }
        defer { EVP_PKEY_CTX_free(derive) }
        guard EVP_PKEY_derive_init(derive) == 1,
              EVP_PKEY_derive_set_peer_ex(derive, chipKey.pointer, 0) == 1 else { return false }
        var secret = [UInt8](repeating: 0, count: 512)
        var length = secret.count
        return EVP_PKEY_derive(derive, &secret, &length) == 1
    }

    /// AA with RSA: the raw public operation.
    public static func rsaPublicOperation(key: ActiveAuthenticationPublicKey, signature: [UInt8]) -> Bool {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.handle.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_recover_init(context) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context, mrtd_RSA_NO_PADDING()) == 1 else { return false }
        var out = [UInt8](repeating: 0, count: 1024)
        var length = out.count
        return EVP_PKEY_verify_recover(context, &out, &length, signature, signature.count) == 1
    }

    /// AA with ECDSA as a read does it: decode the DG15 key (`d2i_PUBKEY`), hash, verify a DER signature.
    public static func ecdsaActiveAuthentication(subjectPublicKeyInfo der: [UInt8], message: [UInt8], derSignature: [UInt8],
                                                 digest: DigestAlgorithm) -> Bool {
        guard let key = try? EVPKeyHandle.parsePublicKey(der) else { return false }
        return ecdsaVerify(key: key, message: message, derSignature: derSignature, digest: digest)
    }

    /// AA with ECDSA: hash and verify a DER signature.
    public static func ecdsaVerify(key: ActiveAuthenticationPublicKey, message: [UInt8], derSignature: [UInt8], digest: DigestAlgorithm) -> Bool {
        ecdsaVerify(key: key.handle, message: message, derSignature: derSignature, digest: digest)
    }

    private static func ecdsaVerify(key: EVPKeyHandle, message: [UInt8], derSignature: [UInt8], digest: DigestAlgorithm) -> Bool {
        let hash = digest.hash(message)
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else { return false }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_verify_init(context) == 1 else { return false }
        return EVP_PKEY_verify(context, derSignature, derSignature.count, hash, hash.count) == 1
    }

    /// TA's asymmetric work on the terminal: one signature of the TA input with the IS key
    /// (`EVP_DigestSign`: hash and sign; RSA v1.5 or DER ECDSA, whatever the key is).
    public static func terminalAuthenticationSignature(key: PrivateKey, message: [UInt8], digest: DigestAlgorithm) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let md = FetchedAlgorithms.shared.digest(digest)
        guard EVP_DigestSignInit_ex(context, nil, EVP_MD_get0_name(md), nil, nil, key.handle.pointer, nil) == 1 else { return false }
        var signature = [UInt8](repeating: 0, count: 1024)
        var length = signature.count
        return EVP_DigestSign(context, &signature, &length, message, message.count) == 1
    }
}
