/// ISO/IEC 9797-1 padding method 2 (Doc 9303-11 §9.8.6): a byte 80, then zeros up to a whole block;
/// always added, so a whole block of padding follows data that already fills its blocks.
public enum ChipPadding {
    public static func pad(_ data: [UInt8], blockSize: Int) -> [UInt8] {
        var padded = data + [0x80]
        while padded.count % blockSize != 0 { padded.append(0) }
        return padded
    }

    /// Strips the padding; fails when the last non-zero byte is not 80.
    public static func unpad(_ data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        guard let marker = data.lastIndex(where: { $0 != 0 }), data[marker] == 0x80 else {
            throw .invalidInput("no ISO/IEC 9797-1 method 2 padding")
        }
        return Array(data[..<marker])
    }
}
