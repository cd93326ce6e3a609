/// The MACs of the eMRTD cipher suites, chip side: ISO/IEC 9797-1 MAC algorithm 3 with DES ("retail
/// MAC", 3DES suites) and AES-CMAC (NIST SP 800-38B, RFC 4493; AES suites), both built here from
/// block-cipher calls, and the 8-byte MAC secure messaging and PACE tokens use.
public enum ChipMAC {
    /// MAC algorithm 3 over `data`, which must be padded already (whole 8-byte blocks): single-DES
    /// CBC with `K` (the first 8 key bytes), then the last block decrypted with `K'` and encrypted
    /// with `K` again. Single DES is two-key 3DES with both halves equal.
    public static func retailMAC(key: [UInt8], data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        guard key.count == 16 else { throw .invalidInput("retail MAC key of \(key.count) bytes") }
        guard !data.isEmpty, data.count % 8 == 0 else { throw .invalidInput("retail MAC input of \(data.count) bytes") }
        let k = Array(key[0..<8])
        let k2 = Array(key[8..<16])
        let chained = try ChipCipher.tripleDES.encryptCBC(key: k + k, data: data)
        let last = Array(chained.suffix(8))
        let decrypted = try ChipCipher.tripleDES.decryptCBC(key: k2 + k2, data: last)
        return try ChipCipher.tripleDES.encryptCBC(key: k + k, data: decrypted)
    }

    /// AES-CMAC (full 16 bytes) of `data` of any length, with an AES key of 16, 24 or 32 bytes.
    public static func cmac(key: [UInt8], data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        let cipher: ChipCipher
        switch key.count {
        case 16: cipher = .aes128
        case 24: cipher = .aes192
        case 32: cipher = .aes256
        default: throw .invalidInput("CMAC key of \(key.count) bytes")
        }
        // Subkeys (SP 800-38B §6.1): L = E(K, 0); K1 = L << 1 (⊕ 87 when the top bit fell off); K2 = K1 << 1.
        let l = try cipher.encryptECB(key: key, data: [UInt8](repeating: 0, count: 16))
        let k1 = doubled(l)
        let k2 = doubled(k1)
        let blocks = max(1, (data.count + 15) / 16)
        let complete = !data.isEmpty && data.count % 16 == 0
        var last = Array(data[((blocks - 1) * 16)...])
        if complete {
            last = zip(last, k1).map { $0 ^ $1 }
        } else {
            last.append(0x80)
            while last.count < 16 { last.append(0) }
            last = zip(last, k2).map { $0 ^ $1 }
        }
        let message = Array(data[..<((blocks - 1) * 16)]) + last
        let chained = try cipher.encryptCBC(key: key, data: message)
        return Array(chained.suffix(16))
    }

    /// The 8-byte MAC of secure messaging (§9.8.6.2) and the PACE / CA authentication tokens over
    /// `data` exactly as given: the retail MAC (3DES; `data` already padded to whole blocks) or the
    /// first 8 bytes of the AES-CMAC. The callers pad where their protocol says so.
    public static func mac(_ cipher: ChipCipher, key: [UInt8], data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        switch cipher {
        case .tripleDES: try retailMAC(key: key, data: data)
        case .aes128, .aes192, .aes256: Array(try cmac(key: key, data: data).prefix(8))
        }
    }

    /// A 128-bit block shifted left by one bit, with the SP 800-38B constant R_128 = 87 folded in.
    private static func doubled(_ block: [UInt8]) -> [UInt8] {
        var result = [UInt8](repeating: 0, count: 16)
        for i in 0..<16 {
            result[i] = block[i] << 1 | (i < 15 ? block[i + 1] >> 7 : 0)
        }
        if block[0] & 0x80 != 0 { result[15] ^= 0x87 }
        return result
    }
}
