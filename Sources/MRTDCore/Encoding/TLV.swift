/// BER-TLV as ISO/IEC 7816-4 §5.2 and ITU-T X.690 define it, for the LDS and for protocol data.
///
/// Parsing is bounded by the input: a length is checked against the bytes actually present before
/// anything is sliced, so a lying length field (`84 FF FF FF FF`) fails at once and never allocates.
public struct TLV: Sendable, Equatable {
    /// The tag with its leading byte(s) as one number: `0x5F1F`, `0x7F61`, `0x61`.
    public let tag: UInt
    /// The value bytes (for a constructed object, its encoded children).
    public let value: ArraySlice<UInt8>
    /// The number of bytes this object took in its input (header plus value).
    public let encodedLength: Int

    public init(tag: UInt, value: ArraySlice<UInt8>, encodedLength: Int) {
        self.tag = tag
        self.value = value
        self.encodedLength = encodedLength
    }

    /// Whether bit 6 of the tag's first byte marks the object as constructed.
    public var isConstructed: Bool { TLV.isConstructed(tag: tag) }

    /// The value as an array.
    public var bytes: [UInt8] { Array(value) }

    /// The children of a constructed object.
    public func children(maxDepth: Int = TLV.defaultMaxDepth) throws(TLVError) -> [TLV] {
        try TLV.parseAll(value, maxDepth: maxDepth)
    }

    /// The first child with the given tag, or `nil`.
    public func child(_ tag: UInt) throws(TLVError) -> TLV? {
        try children().first { $0.tag == tag }
    }

    /// The first child with the given tag, or an error naming it.
    public func require(_ tag: UInt) throws(TLVError) -> TLV {
        guard let found = try child(tag) else { throw .missingTag(tag, inside: self.tag) }
        return found
    }
}

/// What can be wrong with BER-TLV input. Every case names what was found where.
public enum TLVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The input ended inside a tag, length or value.
    case truncated(needed: Int, available: Int)
    /// A length field longer than 4 bytes, or the reserved first byte `FF`.
    case unsupportedLength(firstByte: UInt8)
    /// A tag longer than 4 bytes.
    case tagTooLong
    /// Indefinite length (`80`) where definite length is required.
    case indefiniteLength
    /// Constructed objects nested deeper than allowed.
    case nestingTooDeep(limit: Int)
    /// Bytes left after the object that should have ended the input.
    case trailingBytes(Int)
    /// A different outer tag from the one the file must start with.
    case unexpectedTag(expected: UInt, found: UInt)
    /// A required inner object is absent.
    case missingTag(UInt, inside: UInt)
    /// A declared length larger than the cap for its context (a per-file size limit).
    case lengthExceedsLimit(Int, limit: Int)

    public var description: String {
        switch self {
        case .truncated(let needed, let available):
            return "TLV truncated: \(needed) bytes declared or needed, \(available) present"
        case .unsupportedLength(let b):
            return "TLV length field starting with 0x\(hexByte(b)) is not supported"
        case .tagTooLong: return "TLV tag longer than 4 bytes"
        case .indefiniteLength: return "TLV indefinite length where a definite length is required"
        case .nestingTooDeep(let limit): return "TLV nested deeper than \(limit) levels"
        case .trailingBytes(let n): return "\(n) unexpected bytes after the TLV object"
        case .unexpectedTag(let expected, let found):
            return "expected tag 0x\(hexTag(expected)), found 0x\(hexTag(found))"
        case .missingTag(let tag, let inside):
            return "tag 0x\(hexTag(tag)) missing inside 0x\(hexTag(inside))"
        case .lengthExceedsLimit(let n, let limit):
            return "TLV length \(n) exceeds the limit of \(limit) bytes"
        }
    }
}

private func hexByte(_ b: UInt8) -> String {
    let s = String(b, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}

private func hexTag(_ t: UInt) -> String {
    let s = String(t, radix: 16, uppercase: true)
    return s.count % 2 == 1 ? "0" + s : s
}

/// The header of a TLV object: what `READ BINARY` needs to learn a file's length from its first bytes.
public struct TLVHeader: Sendable, Equatable {
    public let tag: UInt
    /// The declared value length.
    public let length: Int
    /// Bytes taken by tag and length.
    public let headerLength: Int
    /// Header plus value: the whole object's size.
    public var totalLength: Int { headerLength + length }
}

extension TLV {
    /// Nesting cap for constructed objects (the LDS needs at most about 8).
    public static let defaultMaxDepth = 32

    /// Whether bit 6 of a tag's first byte is set.
    public static func isConstructed(tag: UInt) -> Bool {
        var first = tag
        while first > 0xFF { first >>= 8 }
        return first & 0x20 != 0
    }

    /// Reads a tag and a definite length at the start of `bytes`.
    ///
    /// Does not require the value to be present: a file reader calls this on the first few bytes.
    public static func parseHeader(_ bytes: some Collection<UInt8>) throws(TLVError) -> TLVHeader {
        var it = bytes.makeIterator()
        var consumed = 0
        func next() throws(TLVError) -> UInt8 {
            guard let b = it.next() else { throw .truncated(needed: consumed + 1, available: consumed) }
            consumed += 1
            return b
        }
        // Tag (ISO/IEC 7816-4 §5.2.2.1): low five bits all set means more tag bytes follow,
        // each with bit 8 set except the last.
        let first = try next()
        var tag = UInt(first)
        if first & 0x1F == 0x1F {
            var extra = 0
            while true {
                let b = try next()
                extra += 1
                if extra > 3 { throw .tagTooLong }
                tag = (tag << 8) | UInt(b)
                if b & 0x80 == 0 { break }
            }
        }
        // Length (X.690 §8.1.3).
        let l0 = try next()
        let length: Int
        if l0 < 0x80 {
            length = Int(l0)
        } else if l0 == 0x80 {
            throw .indefiniteLength
        } else {
            let n = Int(l0 & 0x7F)
            guard n <= 4 else { throw .unsupportedLength(firstByte: l0) }
            var value = 0
            for _ in 0..<n { value = (value << 8) | Int(try next()) }
            length = value
        }
        return TLVHeader(tag: tag, length: length, headerLength: consumed)
    }

    /// Parses exactly one object that must span the whole input.
    public static func parse(
        _ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth
    ) throws(TLVError) -> TLV {
        let slice = ArraySlice(bytes)
        let object = try parseFirst(slice, maxDepth: maxDepth)
        let rest = slice.count - object.encodedLength
        guard rest == 0 else { throw .trailingBytes(rest) }
        return object
    }

    /// Parses one object that must span the whole input and carry `tag`.
    public static func parse(
        _ bytes: some Collection<UInt8>, expecting tag: UInt, maxDepth: Int = defaultMaxDepth
    ) throws(TLVError) -> TLV {
        let slice = ArraySlice(bytes)
        // Check the tag first so that a wrong file gets "unexpected tag", not a length complaint.
        let header = try parseHeader(slice)
        guard header.tag == tag else { throw .unexpectedTag(expected: tag, found: header.tag) }
        return try parse(slice, maxDepth: maxDepth)
    }

    /// Parses the first object of `bytes`; bytes after it are left alone.
    ///
    /// Constructed objects have their children parsed once to validate them, to `maxDepth`.
    public static func parseFirst(
        _ bytes: ArraySlice<UInt8>, maxDepth: Int = defaultMaxDepth
    ) throws(TLVError) -> TLV {
        let header = try parseHeader(bytes)
        let available = bytes.count - header.headerLength
        guard header.length <= available else {
            throw .truncated(needed: header.length, available: available)
        }
        let start = bytes.startIndex + header.headerLength
        let value = bytes[start..<(start + header.length)]
        if isConstructed(tag: header.tag) {
            guard maxDepth > 0 else { throw .nestingTooDeep(limit: 0) }
            do {
                _ = try parseAll(value, maxDepth: maxDepth - 1)
            } catch .nestingTooDeep {
                // Each level up restates the limit as its caller gave it: the error names the cap
                // the outermost caller set (1 for secure messaging objects, not the default 32).
                throw .nestingTooDeep(limit: maxDepth)
            }
        }
        return TLV(tag: header.tag, value: value, encodedLength: header.totalLength)
    }

    /// Parses a concatenation of objects that fills the input exactly.
    public static func parseAll(
        _ bytes: some Collection<UInt8>, maxDepth: Int = defaultMaxDepth
    ) throws(TLVError) -> [TLV] {
        var rest = ArraySlice(bytes)
        var out: [TLV] = []
        while !rest.isEmpty {
            // ISO/IEC 7816-4 §5.2.2: 00 and FF between objects are padding.
            if rest.first == 0x00 || rest.first == 0xFF {
                rest = rest.dropFirst()
                continue
            }
            let object = try parseFirst(rest, maxDepth: maxDepth)
            out.append(object)
            rest = rest.dropFirst(object.encodedLength)
        }
        return out
    }

    // MARK: Encoding

    /// The bytes of a tag, most significant first.
    public static func encodeTag(_ tag: UInt) -> [UInt8] {
        MinimalBytes.bigEndian(tag)
    }

    /// A definite length in the shortest form (X.690 DER rules).
    public static func encodeLength(_ length: Int) -> [UInt8] {
        precondition(length >= 0, "negative TLV length")
        if length < 0x80 { return [UInt8(length)] }
        var body: [UInt8] = []
        var n = length
        while n > 0 {
            body.insert(UInt8(n & 0xFF), at: 0)
            n >>= 8
        }
        return [0x80 | UInt8(body.count)] + body
    }

    /// Encodes one object.
    public static func encode(tag: UInt, value: some Collection<UInt8>) -> [UInt8] {
        encodeTag(tag) + encodeLength(value.count) + Array(value)
    }

    /// Encodes a constructed object from already encoded children.
    public static func encode(tag: UInt, children: [[UInt8]]) -> [UInt8] {
        encode(tag: tag, value: children.flatMap { $0 })
    }

    /// This object re-encoded in definite form.
    public var encoded: [UInt8] { TLV.encode(tag: tag, value: value) }
}
