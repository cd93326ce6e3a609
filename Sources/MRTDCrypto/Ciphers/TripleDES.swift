internal import CLibCrypto

/// Two-key (16-byte) or three-key (24-byte) Triple DES in CBC mode without padding, as BAC and
/// 3DES secure messaging use it (Doc 9303-11 §9.8.6.1: 3DES-CBC, IV 0, keys K_Enc).
public enum TripleDES {
    /// The DES block size in bytes.
    public static let blockSize = 8

    /// Encrypts `data` (a multiple of 8 bytes) under `key` (16 or 24 bytes) in CBC mode.
    public static func encryptCBC(
        key: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 8), data: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try crypt(key: key, iv: iv, data: data, encrypt: true)
    }

    /// Decrypts `data` (a multiple of 8 bytes) under `key` (16 or 24 bytes) in CBC mode.
    public static func decryptCBC(
        key: [UInt8], iv: [UInt8] = [UInt8](repeating: 0, count: 8), data: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try crypt(key: key, iv: iv, data: data, encrypt: false)
    }

    private static func crypt(key: [UInt8], iv: [UInt8], data: [UInt8], encrypt: Bool) throws(CryptoError) -> [UInt8] {
        let cipher: OpaquePointer
        switch key.count {
        case 16: cipher = EVP_des_ede_cbc()
        case 24: cipher = EVP_des_ede3_cbc()
        default: throw .invalidKeyLength(key.count)
        }
        guard iv.count == blockSize else { throw .invalidInput("3DES IV must be 8 bytes, got \(iv.count)") }
        guard data.count % blockSize == 0 else { throw .invalidDataLength(data.count) }
        return try EVPCipher.crypt(cipher, key: key, iv: iv, data: data, encrypt: encrypt)
    }

    /// Single DES (key `k`, 8 bytes) in CBC mode, computed as three-key 3DES with `k||k||k`, because
    /// OpenSSL 3 offers single DES only through the legacy provider.
    static func singleDESEncryptCBC(key k: ArraySlice<UInt8>, iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        var key = Array(k) + Array(k) + Array(k)
        defer { secureWipe(&key) }
        return try EVPCipher.crypt(EVP_des_ede3_cbc(), key: key, iv: iv, data: data, encrypt: true)
    }
}
