internal import CLibCrypto

/// The block ciphers of the eMRTD cipher suites, chip side (Doc 9303-11 §9.7, §9.8): two-key 3DES
/// (CBC, IV 0) and AES-128/192/256 (CBC with an explicit IV).
public enum ChipCipher: String, Sendable, Hashable, CaseIterable {
    case tripleDES = "3DES"
    case aes128 = "AES-128"
    case aes192 = "AES-192"
    case aes256 = "AES-256"

    /// 16 (3DES two-key, AES-128), 24 or 32 bytes.
    public var keyLength: Int {
        switch self {
        case .tripleDES, .aes128: 16
        case .aes192: 24
        case .aes256: 32
        }
    }

    /// 8 (3DES) or 16 (AES).
    public var blockSize: Int { self == .tripleDES ? 8 : 16 }

    /// CBC encryption of whole blocks; `iv` defaults to zeros.
    public func encryptCBC(key: [UInt8], iv: [UInt8]? = nil, data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        try cbc(key: key, iv: iv, data: data, encrypt: true)
    }

    /// CBC decryption of whole blocks; `iv` defaults to zeros.
    public func decryptCBC(key: [UInt8], iv: [UInt8]? = nil, data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        try cbc(key: key, iv: iv, data: data, encrypt: false)
    }

    /// ECB encryption of whole blocks (AES SM's IV `E(KSEnc, SSC)`, CMAC subkeys, the PACE-CAM IV).
    public func encryptECB(key: [UInt8], data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        try checkInput(key: key, data: data)
        return try ChipOpenSSL.run(ecbCipher, key: key, iv: nil, data: data, encrypt: true)
    }

    private func cbc(key: [UInt8], iv: [UInt8]?, data: [UInt8], encrypt: Bool) throws(ChipCryptoError) -> [UInt8] {
        try checkInput(key: key, data: data)
        let iv = iv ?? [UInt8](repeating: 0, count: blockSize)
        guard iv.count == blockSize else { throw .invalidInput("IV of \(iv.count) bytes for \(rawValue)") }
        return try ChipOpenSSL.run(cbcCipher, key: key, iv: iv, data: data, encrypt: encrypt)
    }

    private func checkInput(key: [UInt8], data: [UInt8]) throws(ChipCryptoError) {
        guard key.count == keyLength else { throw .invalidInput("key of \(key.count) bytes for \(rawValue)") }
        guard data.count % blockSize == 0 else { throw .invalidInput("\(data.count) bytes: not whole \(rawValue) blocks") }
    }

    private var cbcCipher: OpaquePointer? {
        switch self {
        case .tripleDES: EVP_des_ede_cbc()
        case .aes128: EVP_aes_128_cbc()
        case .aes192: EVP_aes_192_cbc()
        case .aes256: EVP_aes_256_cbc()
        }
    }

    private var ecbCipher: OpaquePointer? {
        switch self {
        case .tripleDES: EVP_des_ede_ecb()
        case .aes128: EVP_aes_128_ecb()
        case .aes192: EVP_aes_192_ecb()
        case .aes256: EVP_aes_256_ecb()
        }
    }
}
