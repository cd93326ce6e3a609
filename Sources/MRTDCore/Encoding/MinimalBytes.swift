/// Big-endian bytes of a value without leading zero bytes (at least one byte): tag numbers, key
/// references and parameter IDs (`84` data objects), INTEGER magnitudes.
public enum MinimalBytes {
    /// The bytes of `value`, most significant first; 0 is `[0x00]`.
    public static func bigEndian(_ value: UInt) -> [UInt8] {
        let count = max(1, (UInt.bitWidth - value.leadingZeroBitCount + 7) / 8)
        return (0..<count).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    /// The same for a non-negative `Int`; a negative value counts as 0.
    public static func bigEndian(nonNegative value: Int) -> [UInt8] {
        bigEndian(UInt(max(value, 0)))
    }

    /// A big-endian unsigned integer with its leading zero bytes dropped (at least one byte): the
    /// octet string of an integer (Doc 9303-11 §9.4.1, BSI TR-03111 I2OS), as a DH public value
    /// travels in PACE, Chip Authentication and their tokens.
    public static func unsigned(_ bytes: [UInt8]) -> [UInt8] {
        let digits = bytes.drop { $0 == 0 }
        return digits.isEmpty ? [0] : Array(digits)
    }

    /// A public key as it is exchanged and authenticated: a DH value as a minimal unsigned integer
    /// (``unsigned(_:)``), an EC point unchanged (its coordinates keep the field length).
    public static func publicKey(_ key: [UInt8], keyAgreement: KeyAgreementAlgorithm) -> [UInt8] {
        keyAgreement == .dh ? unsigned(key) : key
    }
}
