internal import CLibCrypto

/// AES with 128-, 192- or 256-bit keys, no padding: CBC for secure messaging and the PACE nonce
/// (Doc 9303-11 §9.8.6.2 / §4.4.3.3), ECB for the SM IV (`IV = E(KSEnc, SSC)`) and PACE-CAM.
public enum AES {
    /// The AES block size in bytes.
    public static let blockSize = 16

    /// Encrypts `data` (a multiple of 16 bytes) in CBC mode.
    public static func encryptCBC(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try crypt(mode: .cbc, key: key, iv: iv, data: data, encrypt: true)
    }

    /// Decrypts `data` (a multiple of 16 bytes) in CBC mode.
    public static func decryptCBC(key: [UInt8], iv: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try crypt(mode: .cbc, key: key, iv: iv, data: data, encrypt: false)
    }

    /// Encrypts `data` (a multiple of 16 bytes) in ECB mode.
    public static func encryptECB(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try crypt(mode: .ecb, key: key, iv: nil, data: data, encrypt: true)
    }

    /// Decrypts `data` (a multiple of 16 bytes) in ECB mode.
    public static func decryptECB(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        try crypt(mode: .ecb, key: key, iv: nil, data: data, encrypt: false)
    }

    private enum Mode { case cbc, ecb }

    private static func crypt(mode: Mode, key: [UInt8], iv: [UInt8]?, data: [UInt8], encrypt: Bool) throws(CryptoError) -> [UInt8] {
        let cipher: OpaquePointer
        switch (key.count, mode) {
        case (16, .cbc): cipher = EVP_aes_128_cbc()
        case (24, .cbc): cipher = EVP_aes_192_cbc()
        case (32, .cbc): cipher = EVP_aes_256_cbc()
        case (16, .ecb): cipher = EVP_aes_128_ecb()
        case (24, .ecb): cipher = EVP_aes_192_ecb()
        case (32, .ecb): cipher = EVP_aes_256_ecb()
        default: throw .invalidKeyLength(key.count)
        }
        if let iv, iv.count != blockSize { throw .invalidInput("AES IV must be 16 bytes, got \(iv.count)") }
        guard data.count % blockSize == 0 else { throw .invalidDataLength(data.count) }
        return try EVPCipher.crypt(cipher, key: key, iv: iv, data: data, encrypt: encrypt)
    }
}
