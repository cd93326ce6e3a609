internal import CLibCrypto

/// The key derivation function of Doc 9303-11 §9.7.1, chip side:
/// `KDF(K, c) = H(K || c)` with `c` a 32-bit big-endian counter, H = SHA-1 for 3DES and AES-128
/// and SHA-256 for AES-192/256, truncated to the key length; 3DES keys get odd DES parity (§9.7.1.1).
public enum ChipKeyDerivation {
    /// `c = 1`: KSEnc (and BAC's KEnc).
    public static let encryption: UInt32 = 1
    /// `c = 2`: KSMAC (and BAC's KMAC).
    public static let mac: UInt32 = 2
    /// `c = 3`: the PACE password key K_π.
    public static let password: UInt32 = 3

    /// `KDF(secret, counter)` for `cipher`.
    public static func derive(_ secret: [UInt8], counter: UInt32, cipher: ChipCipher) throws(ChipCryptoError) -> [UInt8] {
        let input = secret + [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
        var hash: [UInt8]
        switch cipher {
        case .tripleDES, .aes128: hash = try ChipOpenSSL.digest(EVP_sha1(), input)
        case .aes192, .aes256: hash = try ChipOpenSSL.digest(EVP_sha256(), input)
        }
        defer { chipWipe(&hash) }
        let key = Array(hash.prefix(cipher.keyLength))
        return cipher == .tripleDES ? key.map(oddParity) : key
    }

    /// BAC's key seed (§9.7.2): the first 16 bytes of SHA-1 over the MRZ information (document
    /// number, date of birth, date of expiry, each with its check digit).
    public static func bacSeed(mrzInformation: String) throws(ChipCryptoError) -> [UInt8] {
        Array(try sha1(Array(mrzInformation.utf8)).prefix(16))
    }

    /// The PACE password key K_π = KDF(f(π), 3) (§9.7.3): f(π) = SHA-1(MRZ information) for the
    /// MRZ password, the password's characters (ISO 8859-1) for a CAN or PIN.
    public static func passwordKey(mrzInformation: String, cipher: ChipCipher) throws(ChipCryptoError) -> [UInt8] {
        var secret = try sha1(Array(mrzInformation.utf8))
        defer { chipWipe(&secret) }
        return try derive(secret, counter: password, cipher: cipher)
    }

    /// K_π for a CAN or PIN.
    public static func passwordKey(cardAccessNumber: String, cipher: ChipCipher) throws(ChipCryptoError) -> [UInt8] {
        var secret = cardAccessNumber.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        defer { chipWipe(&secret) }
        return try derive(secret, counter: password, cipher: cipher)
    }

    /// SHA-1 of `data`.
    public static func sha1(_ data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        try ChipOpenSSL.digest(EVP_sha1(), data)
    }

    /// The byte with its lowest bit set so that it has an odd number of one bits (DES key parity).
    private static func oddParity(_ byte: UInt8) -> UInt8 {
        let high = byte & 0xFE
        return high.nonzeroBitCount % 2 == 0 ? high | 1 : high
    }
}
