import CZlib

/// A bounded reader of ZIP archives (PKWARE APPNOTE 6.3: end of central directory, central
/// directory, local headers), as the BSI and RDW publish their master lists: `stored` (0) and
/// `deflate` (8) entries, inflated with zlib and checked against their CRC-32. No ZIP64, no
/// encryption, no multi-disk archives: each is an error, never a guess. Entry sizes are checked
/// against `maxEntryBytes` before anything is inflated, and inflating stops at the declared size.
public struct ZipArchive: Sendable {
    public struct Entry: Sendable, Equatable {
        public var name: String
        public var bytes: [UInt8]
    }

    /// Why an archive was refused.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// The files of the archive, in central-directory order (directories left out).
    public let entries: [Entry]

    /// The most entries an archive may hold.
    public static let maxEntries = 4096

    /// Whether `bytes` start like a ZIP archive (a local file header, or an empty archive's end record).
    public static func looksLikeZip(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0x50 && bytes[1] == 0x4B && (bytes[2] == 3 && bytes[3] == 4 || bytes[2] == 5 && bytes[3] == 6)
    }

    /// Reads every entry; throws when the archive is truncated, malformed, uses what this reader
    /// does not support, or holds more than `maxTotalBytes` once inflated.
    public init(_ bytes: [UInt8], maxEntryBytes: Int, maxTotalBytes: Int) throws(Failure) {
        let end = try Self.endOfCentralDirectory(bytes)
        let count = Int(Self.u16(bytes, end + 10))
        let directorySize = Int(Self.u32(bytes, end + 12))
        let directoryOffset = Int(Self.u32(bytes, end + 16))
        guard Self.u16(bytes, end + 4) == 0, Self.u16(bytes, end + 6) == 0 else { throw Failure("multi-disk ZIP archives are not supported") }
        guard count != 0xFFFF, directoryOffset != 0xFFFF_FFFF else { throw Failure("ZIP64 archives are not supported") }
        guard count <= Self.maxEntries else { throw Failure("the archive holds \(count) entries, more than \(Self.maxEntries)") }
        guard directoryOffset <= end, directorySize <= end - directoryOffset else {
            throw Failure("truncated ZIP: the central directory lies outside the file")
        }
        var entries: [Entry] = []
        var total = 0
        var offset = directoryOffset
        for index in 0..<count {
            guard offset + 46 <= end, Self.u32(bytes, offset) == 0x0201_4B50 else {
                throw Failure("truncated ZIP: central directory entry \(index + 1) of \(count) missing")
            }
            let flags = Self.u16(bytes, offset + 8)
            let method = Self.u16(bytes, offset + 10)
            let crc = Self.u32(bytes, offset + 16)
            let compressedSize = Int(Self.u32(bytes, offset + 20))
            let size = Int(Self.u32(bytes, offset + 24))
            let nameLength = Int(Self.u16(bytes, offset + 28))
            let extraLength = Int(Self.u16(bytes, offset + 30))
            let commentLength = Int(Self.u16(bytes, offset + 32))
            let localOffset = Int(Self.u32(bytes, offset + 42))
            let next = offset + 46 + nameLength + extraLength + commentLength
            guard next <= end else { throw Failure("truncated ZIP: central directory entry \(index + 1) runs past its end") }
            let name = String(decoding: bytes[(offset + 46)..<(offset + 46 + nameLength)], as: UTF8.self)
            offset = next
            if name.hasSuffix("/") { continue }
            guard flags & 0x0001 == 0 else { throw Failure("\(name): encrypted ZIP entries are not supported") }
            guard compressedSize != 0xFFFF_FFFF, size != 0xFFFF_FFFF, localOffset != 0xFFFF_FFFF else {
                throw Failure("\(name): ZIP64 entries are not supported")
            }
            guard size <= maxEntryBytes else { throw Failure("\(name): \(size) bytes inflated, more than the limit of \(maxEntryBytes)") }
            total += size
            guard total <= maxTotalBytes else { throw Failure("the archive inflates to more than the limit of \(maxTotalBytes) bytes") }
            guard localOffset + 30 <= directoryOffset, Self.u32(bytes, localOffset) == 0x0403_4B50 else {
                throw Failure("truncated ZIP: \(name): local header missing")
            }
            let dataStart = localOffset + 30 + Int(Self.u16(bytes, localOffset + 26)) + Int(Self.u16(bytes, localOffset + 28))
            guard dataStart <= directoryOffset, compressedSize <= directoryOffset - dataStart else {
                throw Failure("truncated ZIP: \(name): data runs past the central directory")
            }
            let data = bytes[dataStart..<(dataStart + compressedSize)]
            let content: [UInt8]
            switch method {
            case 0:
                guard compressedSize == size else { throw Failure("\(name): stored entry's sizes differ") }
                content = Array(data)
            case 8: content = size == 0 ? [] : try Self.inflate(data, size: size, name: name)
            default: throw Failure("\(name): compression method \(method) is not supported (stored and deflate are)")
            }
            guard Self.crc32(content) == crc else { throw Failure("\(name): CRC-32 does not match (corrupted or truncated)") }
            entries.append(Entry(name: name, bytes: content))
        }
        self.entries = entries
    }

    /// The end of central directory record: searched backwards over the last 64 KiB (its comment).
    private static func endOfCentralDirectory(_ bytes: [UInt8]) throws(Failure) -> Int {
        guard bytes.count >= 22 else { throw Failure("truncated ZIP: \(bytes.count) bytes, shorter than an end record") }
        var position = bytes.count - 22
        let lowest = max(0, bytes.count - 22 - 0xFFFF)
        while position >= lowest {
            if u32(bytes, position) == 0x0605_4B50, position + 22 + Int(u16(bytes, position + 20)) == bytes.count { return position }
            position -= 1
        }
        throw Failure("truncated ZIP: no end of central directory record")
    }

    private static func inflate(_ data: ArraySlice<UInt8>, size: Int, name: String) throws(Failure) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: size)
        var stream = z_stream()
        guard mrtd_inflate_init_raw(&stream) == Z_OK else { throw Failure("\(name): zlib did not initialise") }
        defer { inflateEnd(&stream) }
        var input = Array(data)
        let status: Int32 = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = UInt32(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = UInt32(outputBuffer.count)
                return CZlib.inflate(&stream, Z_FINISH)
            }
        }
        // Z_STREAM_END with every declared byte produced; Z_BUF_ERROR with an empty output buffer
        // means the stream holds more than the header said.
        guard status == Z_STREAM_END, Int(stream.total_out) == size else {
            if status == Z_BUF_ERROR, stream.avail_out == 0 { throw Failure("\(name): inflates to more than its declared \(size) bytes") }
            throw Failure("\(name): deflate data corrupted or truncated (zlib \(status))")
        }
        return output
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBufferPointer { buffer in
            UInt32(CZlib.crc32(0, buffer.baseAddress, UInt32(buffer.count)))
        }
    }

    private static func u16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        guard offset >= 0, offset + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private static func u32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        guard offset >= 0, offset + 4 <= bytes.count else { return 0 }
        return UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
    }
}
