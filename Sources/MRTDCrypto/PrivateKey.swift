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
