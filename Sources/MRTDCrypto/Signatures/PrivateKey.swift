internal import CLibCrypto

/// A private signing key (RSA or EC, on a named curve or with explicit parameters), for the test
/// fixture generator and the virtual chip. Key material never leaves OpenSSL.
public struct PrivateKey: Sendable {
    let handle: EVPKeyHandle

    init(handle: EVPKeyHandle) {
        self.handle = handle
    }

    /// Reads an unencrypted PEM private key: PKCS #8 (`PRIVATE KEY`), `RSA PRIVATE KEY` or `EC PRIVATE KEY`.
    public init(pem: String) throws(CryptoError) {
        let bio = try MemoryBIO(pem.utf8)
        guard let key = PEM_read_bio_PrivateKey(bio.pointer, nil, nil, nil) else {
            throw .openSSLQueue("PEM_read_bio_PrivateKey")
        }
        let handle = EVPKeyHandle(taking: key)
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA, EVP_PKEY_EC: break
        case let other: throw .unsupported("private key type NID \(other)")
        }
        self.handle = handle
    }
}

extension PrivateKey {
    /// Reads an unencrypted DER private key: PKCS #8 `PrivateKeyInfo`, or a bare RSA / EC key.
    public init(der: [UInt8]) throws(CryptoError) {
        var cursor: UnsafePointer<UInt8>? = nil
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            cursor = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let key else { throw .openSSLQueue("d2i_AutoPrivateKey") }
        let handle = EVPKeyHandle(taking: key)
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA, EVP_PKEY_EC: break
        case let other: throw .unsupported("private key type NID \(other)")
        }
        self.handle = handle
    }

    /// A signature as a protocol carries it: for ECDSA schemes the plain `r || s` of BSI TR-03111
    /// §5.2.1 (what Terminal Authentication and CV certificates use), for RSA what ``sign(message:scheme:)``
    /// gives.
    public func signature(message: [UInt8], scheme: SignatureScheme) throws(CryptoError) -> [UInt8] {
        switch scheme {
        case .ecdsaPlain(let digest): try ecdsaSign(digest: digest.hash(message), plain: true)
        default: try sign(message: message, scheme: scheme)
        }
    }

    /// The DER PKCS #8 `PrivateKeyInfo` (for writing test fixtures).
    public func pkcs8() throws(CryptoError) -> [UInt8] {
        try encodeDER("i2d_PKCS8PrivateKey") { out in
            guard let info = EVP_PKEY2PKCS8(handle.pointer) else { return -1 }
            defer { PKCS8_PRIV_KEY_INFO_free(info) }
            return i2d_PKCS8_PRIV_KEY_INFO(info, out)
        }
    }
}
