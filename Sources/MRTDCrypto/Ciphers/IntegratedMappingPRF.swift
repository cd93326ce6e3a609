/// The pseudo-random function `R(s, t)` of PACE Integrated Mapping (Doc 9303-11 §4.4.3.3.2,
/// TR-03110-3 §A.3.4.2): the block cipher `E` in CBC mode with IV 0,
///
///     k0 = E(t, s);   x_i = E(k_i, c1);   k_{i+1} = E(k_i, c0);   R = x_0 || ... || x_{n-1}
///
/// with `n` the smallest integer such that `n·l ≥ log2 p + 64`, `l` the length of the constants
/// (128 bits for 3DES and AES-128, 256 for AES-192 and AES-256) and each `k_i` truncated to the
/// key size (only AES-192 needs that).
public enum IntegratedMappingPRF {
    /// `c0`, `c1` for l = 128 (3DES, AES-128).
    static let c0_128: [UInt8] = [0xA6, 0x68, 0x89, 0x2A, 0x7C, 0x41, 0xE3, 0xCA, 0x73, 0x9F, 0x40, 0xB0, 0x57, 0xD8, 0x59, 0x04]
    static let c1_128: [UInt8] = [0xA4, 0xE1, 0x36, 0xAC, 0x72, 0x5F, 0x73, 0x8B, 0x01, 0xC1, 0xF6, 0x02, 0x17, 0xC1, 0x88, 0xAD]
    /// `c0`, `c1` for l = 256 (AES-192, AES-256).
    static let c0_256: [UInt8] = [
        0xD4, 0x63, 0xD6, 0x52, 0x34, 0x12, 0x4E, 0xF7, 0x89, 0x70, 0x54, 0x98, 0x6D, 0xCA, 0x0A, 0x17,
        0x4E, 0x28, 0xDF, 0x75, 0x8C, 0xBA, 0xA0, 0x3F, 0x24, 0x06, 0x16, 0x41, 0x4D, 0x5A, 0x16, 0x76,
    ]
    static let c1_256: [UInt8] = [
        0x54, 0xBD, 0x72, 0x55, 0xF0, 0xAA, 0xF8, 0x31, 0xBE, 0xC3, 0x42, 0x3F, 0xCF, 0x39, 0xD6, 0x9B,
        0x6C, 0xBF, 0x06, 0x66, 0x77, 0xD0, 0xFA, 0xAE, 0x5A, 0xAD, 0xD9, 0x9D, 0xF8, 0xE5, 0x35, 0x17,
    ]

    /// The length in bytes of the chip's nonce `s` (and of each output block): `l / 8`.
    public static func nonceLength(for cipher: SMCipher) -> Int {
        switch cipher {
        case .tripleDES, .aes128: 16
        case .aes192, .aes256: 32
        }
    }

    /// `R(s, t)` for a prime of `primeBitCount` bits. `t` has the cipher's key length, `s` is
    /// ``nonceLength(for:)`` bytes.
    public static func pseudoRandom(s: [UInt8], t: [UInt8], cipher: SMCipher, primeBitCount: Int) throws(CryptoError) -> [UInt8] {
        let l = nonceLength(for: cipher)
        guard t.count == cipher.keyLength else { throw .invalidInput("IM nonce t of \(t.count) bytes for \(cipher.rawValue)") }
        guard s.count == l else { throw .invalidInput("IM nonce s of \(s.count) bytes for \(cipher.rawValue)") }
        let (c0, c1) = l == 16 ? (c0_128, c1_128) : (c0_256, c1_256)
        let n = (primeBitCount + 64 + l * 8 - 1) / (l * 8)
        var k = Array(try encrypt(key: t, data: s, cipher: cipher).prefix(cipher.keyLength))
        defer { secureWipe(&k) }
        var output: [UInt8] = []
        output.reserveCapacity(n * l)
        for _ in 0..<n {
            output += try encrypt(key: k, data: c1, cipher: cipher)
            var next = Array(try encrypt(key: k, data: c0, cipher: cipher).prefix(cipher.keyLength))
            swap(&k, &next)
            secureWipe(&next)
        }
        return output
    }

    private static func encrypt(key: [UInt8], data: [UInt8], cipher: SMCipher) throws(CryptoError) -> [UInt8] {
        switch cipher {
        case .tripleDES: try TripleDES.encryptCBC(key: key, data: data)
        default: try AES.encryptCBC(key: key, iv: [UInt8](repeating: 0, count: 16), data: data)
        }
    }
}
