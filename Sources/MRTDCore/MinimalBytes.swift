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
}
