/// The block cipher of a secure messaging session (Doc 9303-11 §9.8.6).
public enum SMCipher: String, Sendable, Codable {
    case tripleDES = "3DES"
    case aes128 = "AES-128"
    case aes192 = "AES-192"
    case aes256 = "AES-256"

    /// The session key length in bytes.
    public var keyLength: Int {
        switch self {
        case .tripleDES, .aes128: 16
        case .aes192: 24
        case .aes256: 32
        }
    }

    /// The cipher block size in bytes (also the SSC length).
    public var blockSize: Int {
        switch self {
        case .tripleDES: 8
        case .aes128, .aes192, .aes256: 16
        }
    }
}

/// The key derivation function of Doc 9303-11 §9.7.1: `keydata = H(K || c)`, `c` a 32-bit big-endian
/// counter; 1 for the encryption key, 2 for the MAC key, 3 for the PACE password key `K_π`.
public enum KeyDerivation {
    /// `c = 1`: `K_Enc` / `KS_Enc`.
    public static let encryptionCounter: UInt32 = 1
    /// `c = 2`: `K_MAC` / `KS_MAC`.
    public static let macCounter: UInt32 = 2
    /// `c = 3`: `K_π`, the PACE password key.
    public static let paceCounter: UInt32 = 3

    /// Derives a key for `cipher` from the shared secret `K` (§9.7.1.1 for 3DES, §9.7.1.2 for AES):
    /// 3DES takes the first 16 bytes of SHA-1 with DES parity adjusted (as Appendix D prints them);
    /// AES-128 the first 16 bytes of SHA-1; AES-192 the first 24 of SHA-256; AES-256 all of SHA-256.
    public static func derive(sharedSecret: [UInt8], counter: UInt32, cipher: SMCipher) -> [UInt8] {
        var input = sharedSecret
        input.append(contentsOf: [UInt8(truncatingIfNeeded: counter >> 24), UInt8(truncatingIfNeeded: counter >> 16),
                                  UInt8(truncatingIfNeeded: counter >> 8), UInt8(truncatingIfNeeded: counter)])
        defer { secureWipe(&input) }
        switch cipher {
        case .tripleDES:
            var digest = DigestAlgorithm.sha1.hash(input)
            defer { secureWipe(&digest) }
            return adjustParity(Array(digest.prefix(16)))
        case .aes128:
            var digest = DigestAlgorithm.sha1.hash(input)
            defer { secureWipe(&digest) }
            return Array(digest.prefix(16))
        case .aes192:
            var digest = DigestAlgorithm.sha256.hash(input)
            defer { secureWipe(&digest) }
            return Array(digest.prefix(24))
        case .aes256:
            return DigestAlgorithm.sha256.hash(input)
        }
    }

    /// Sets the least significant bit of each byte so every byte has odd parity (FIPS 46-3 DES key parity).
    public static func adjustParity(_ key: [UInt8]) -> [UInt8] {
        key.map { byte in
            let upper = byte & 0xFE
            return upper.nonzeroBitCount % 2 == 0 ? upper | 1 : upper
        }
    }
}
