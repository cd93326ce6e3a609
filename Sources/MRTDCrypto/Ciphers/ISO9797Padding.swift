/// ISO/IEC 9797-1 padding method 2, as Doc 9303-11 §9.8.6.1 and §9.8.6.2 require for secure
/// messaging and BAC: append `80`, then `00` up to a multiple of the block size. Padding is always
/// added, so an input that is already a block multiple gains a whole block.
public enum ISO9797Padding {
    /// Pads `data` to a multiple of `blockSize` (8 for 3DES, 16 for AES).
    public static func pad(_ data: [UInt8], blockSize: Int) -> [UInt8] {
        precondition(blockSize > 0, "block size must be positive")
        var padded = data
        padded.reserveCapacity(data.count + blockSize)
        padded.append(0x80)
        let remainder = padded.count % blockSize
        if remainder != 0 {
            padded.append(contentsOf: repeatElement(0, count: blockSize - remainder))
        }
        return padded
    }

    /// Removes method 2 padding: trailing `00` bytes, then one `80`. Throws `.invalidPadding` when the
    /// last non-zero byte is not `80` (or there is none).
    public static func unpad(_ data: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let marker = data.lastIndex(where: { $0 != 0 }), data[marker] == 0x80 else {
            throw .invalidPadding
        }
        return Array(data[..<marker])
    }
}
