/// ISO/IEC 9797-1 MAC algorithm 3 ("retail MAC") with DES, IV 0, the MAC of BAC and 3DES secure
/// messaging (Doc 9303-11 §9.8.6.1; §9.7.2 for the key `KMAC = Ka || Kb`).
///
/// The input blocks are chained with single DES under `K`; the last block goes through
/// `E_K(D_K'(E_K(·)))`, which is two-key 3DES-EDE on that block with the chain value as IV.
/// Single DES runs as 3DES with `K||K||K` because OpenSSL 3 has no single DES without the legacy
/// provider.
public enum RetailMAC {
    /// Computes the 8-byte MAC of `data`, which must already be padded (a non-zero multiple of 8
    /// bytes), under the 16-byte key `K || K'`.
    public static func mac(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard key.count == 16 else { throw .invalidKeyLength(key.count) }
        guard !data.isEmpty, data.count % 8 == 0 else { throw .invalidDataLength(data.count) }
        var chain = [UInt8](repeating: 0, count: 8)
        if data.count > 8 {
            let head = Array(data[..<(data.count - 8)])
            let encrypted = try TripleDES.singleDESEncryptCBC(key: key[0..<8], iv: chain, data: head)
            chain = Array(encrypted.suffix(8))
        }
        return try TripleDES.encryptCBC(key: key, iv: chain, data: Array(data.suffix(8)))
    }
}
