/// The BER-TLV the chip side needs to read and write its data objects (ISO/IEC 7816-4 §5.2):
/// tags of one or two bytes, definite lengths of up to three length bytes. Its own small reader, so
/// that the chip's secure messaging shares no parsing code with the reader's.
public struct ChipTLV: Sendable, Equatable {
    /// The tag as a number (`0x87`, `0x7F49`).
    public var tag: UInt
    /// The value bytes.
    public var value: [UInt8]
    /// The whole object as received (tag, length and value).
    public var encoded: [UInt8]

    /// Every object at the top level of `bytes`, in order; fails on a truncated or malformed object.
    public static func parseAll(_ bytes: [UInt8]) throws(ChipCryptoError) -> [ChipTLV] {
        var objects: [ChipTLV] = []
        var index = 0
        while index < bytes.count {
            let start = index
            var tag = UInt(bytes[index])
            index += 1
            if tag & 0x1F == 0x1F {
                guard index < bytes.count, bytes[index] & 0x80 == 0 else { throw .invalidInput("tag too long") }
                tag = tag << 8 | UInt(bytes[index])
                index += 1
            }
            guard index < bytes.count else { throw .invalidInput("no length") }
            var length = Int(bytes[index])
            index += 1
            if length & 0x80 != 0 {
                let count = length & 0x7F
                guard (1...3).contains(count), index + count <= bytes.count else { throw .invalidInput("bad length") }
                length = bytes[index..<(index + count)].reduce(0) { $0 << 8 | Int($1) }
                index += count
            }
            guard length <= bytes.count - index else { throw .invalidInput("object overruns its container") }
            objects.append(ChipTLV(tag: tag, value: Array(bytes[index..<(index + length)]), encoded: Array(bytes[start..<(index + length)])))
            index += length
        }
        return objects
    }

    /// Tag, definite length (short or long form), value.
    public static func encode(tag: UInt, value: [UInt8]) -> [UInt8] {
        let tagBytes: [UInt8] = tag > 0xFF ? [UInt8(tag >> 8), UInt8(tag & 0xFF)] : [UInt8(tag)]
        let n = value.count
        let length: [UInt8]
        switch n {
        case ..<0x80: length = [UInt8(n)]
        case ..<0x100: length = [0x81, UInt8(n)]
        case ..<0x10000: length = [0x82, UInt8(n >> 8), UInt8(n & 0xFF)]
        default: length = [0x83, UInt8(n >> 16), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
        }
        return tagBytes + length + value
    }
}
