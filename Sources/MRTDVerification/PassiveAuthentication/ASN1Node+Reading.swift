import FoundationEssentials
import MRTDCore
import SwiftASN1

/// Small, checked accessors over SwiftASN1 nodes for the CMS and X.509 structures parsed here.
/// Every failure is an `ASN1Error`, which callers turn into a stable reason code.
extension ASN1Node {
    /// The children of a constructed node whose identifier is `expected`; `what` names the
    /// production in the error (`TBSCertificate: expected [UNIVERSAL 16], found …`).
    func children(_ expected: ASN1Identifier, _ what: @autoclosure () -> String) throws -> [ASN1Node] {
        guard identifier == expected, case .constructed(let nodes) = content else {
            throw ASN1Error.invalidASN1Object(reason: "\(what()): expected \(expected), found \(identifier)")
        }
        return Array(nodes)
    }

    /// The contents of a primitive node.
    func primitiveBytes() throws -> ArraySlice<UInt8> {
        guard case .primitive(let bytes) = content else { throw ASN1Error.unexpectedFieldType(identifier) }
        return bytes
    }

    /// An OCTET STRING's contents with the given tag, concatenating BER constructed segments
    /// (X.690 §8.7.3), as chips write the eContent of EF.SOD in indefinite length.
    func octetStringBytes(tag: ASN1Identifier = .octetString, depth: Int = 0) throws -> [UInt8] {
        guard identifier == tag || (depth > 0 && identifier == .octetString) else {
            throw ASN1Error.unexpectedFieldType(identifier)
        }
        switch content {
        case .primitive(let bytes): return Array(bytes)
        case .constructed(let nodes):
            guard depth < 8 else { throw ASN1Error.invalidASN1Object(reason: "OCTET STRING nested too deeply") }
            var out: [UInt8] = []
            for node in nodes { out += try node.octetStringBytes(tag: .octetString, depth: depth + 1) }
            return out
        }
    }

    /// An object identifier.
    func oid() throws -> ASN1ObjectIdentifier {
        try ASN1ObjectIdentifier(berEncoded: self)
    }

    /// The node re-read as DER bytes as encoded (a copy of `encodedBytes`).
    var bytes: [UInt8] { Array(encodedBytes) }
}

/// A production this module only reads (certificates, CRLs, CMS, master lists), in swift-asn1's
/// shape: `init(berEncoded:withIdentifier:)` with a default identifier. Parsed as BER, as chips and
/// PKIs write it; never re-encoded (the bytes as encoded are kept wherever they are signed), hence
/// not `BERImplicitlyTaggable`, whose serialization half would be dead code.
protocol BERReadable {
    static var defaultIdentifier: ASN1Identifier { get }
    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws
}

extension BERReadable {
    init(berEncoded rootNode: ASN1Node) throws {
        try self.init(berEncoded: rootNode, withIdentifier: Self.defaultIdentifier)
    }
}

extension ASN1NodeCollection.Iterator {
    /// The next node when it has `identifier` (consumed); otherwise `nil`, and nothing is consumed.
    /// For OPTIONAL fields told apart by their tag.
    mutating func next(ifIdentifier identifier: ASN1Identifier) -> ASN1Node? {
        var lookahead = self
        guard let node = lookahead.next(), node.identifier == identifier else { return nil }
        self = lookahead
        return node
    }

    /// The next node, which must be present (and have `identifier` when one is given); `what` names
    /// the field in the error (`serialNumber missing`).
    mutating func required(_ what: @autoclosure () -> String, identifier: ASN1Identifier? = nil) throws -> ASN1Node {
        guard let node = next(), identifier.map({ node.identifier == $0 }) ?? true else {
            throw ASN1Error.invalidASN1Object(reason: "\(what()) missing")
        }
        return node
    }

    /// Consumes the remaining nodes (fields a parser deliberately skips, such as extensions it does
    /// not interpret), so that `BER.sequence` accepts the SEQUENCE.
    mutating func skipRemaining() { while next() != nil {} }
}

extension ASN1Identifier {
    /// `[n]` context-specific.
    static func context(_ n: UInt) -> ASN1Identifier { ASN1Identifier(tagWithNumber: n, tagClass: .contextSpecific) }
}

/// Calendar arithmetic without Foundation's Calendar (certificate times are UTC).
enum UTCDate {
    /// Seconds since 1970 of a UTC civil time (proleptic Gregorian; H. Hinnant's days_from_civil).
    static func date(year: Int, month: Int, day: Int, hours: Int, minutes: Int, seconds: Int) -> Date {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        let days = era * 146097 + doe - 719468
        return Date(timeIntervalSince1970: TimeInterval(days * 86400 + hours * 3600 + minutes * 60 + seconds))
    }

    /// A `Time ::= CHOICE { utcTime, generalTime }` node (RFC 5280 §4.1.2.5); also reports whether
    /// it was a GeneralizedTime for a year before 2050, which RFC 5280 forbids.
    static func parseTime(_ node: ASN1Node) throws -> (date: Date, generalizedBefore2050: Bool) {
        if node.identifier == .utcTime {
            let t = try UTCTime(berEncoded: node)
            return (date(year: t.year, month: t.month, day: t.day, hours: t.hours, minutes: t.minutes, seconds: t.seconds), false)
        }
        let t = try GeneralizedTime(berEncoded: node)
        return (date(year: t.year, month: t.month, day: t.day, hours: t.hours, minutes: t.minutes, seconds: t.seconds),
                t.year < 2050)
    }

    /// `2026-05-28T08:28:45Z`.
    static func iso8601(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86400 : (total - 86399) / 86400
        let secs = total - days * 86400
        let z = days + 719468
        let era = (z >= 0 ? z : z - 146096) / 146097
        let doe = z - era * 146097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        let y = yoe + era * 400 + (m <= 2 ? 1 : 0)
        func two(_ v: Int) -> String { v < 10 ? "0\(v)" : "\(v)" }
        let year = String(y).count < 4 ? String(repeating: "0", count: 4 - String(y).count) + String(y) : String(y)
        return "\(year)-\(two(m))-\(two(d))T\(two(secs / 3600)):\(two(secs % 3600 / 60)):\(two(secs % 60))Z"
    }
}

/// Finds where one BER element ends, so that a file read past its end (padding, or a chip that
/// reports a larger file) is bounded by the element itself, and an indefinite-length element is
/// bounded by its end-of-contents octets (X.690 §8.1.3.6). Lengths that run past the bytes read
/// are errors, never reads beyond the buffer.
enum BERExtent {
    /// The total length (header included) of the element starting at `start`.
    static func elementLength(_ bytes: ArraySlice<UInt8>, depth: Int = 0) throws -> Int {
        guard depth < 32 else { throw ASN1Error.invalidASN1Object(reason: "nesting too deep") }
        var i = bytes.startIndex
        guard i < bytes.endIndex else { throw ASN1Error.truncatedASN1Field() }
        let first = bytes[i]
        i += 1
        if first & 0x1F == 0x1F {
            var count = 0
            while true {
                guard i < bytes.endIndex, count < 4 else { throw ASN1Error.truncatedASN1Field() }
                let b = bytes[i]
                i += 1
                count += 1
                if b & 0x80 == 0 { break }
            }
        }
        guard i < bytes.endIndex else { throw ASN1Error.truncatedASN1Field() }
        let lengthByte = bytes[i]
        i += 1
        if lengthByte == 0x80 {
            guard first & 0x20 != 0 else {
                throw ASN1Error.unsupportedFieldLength(reason: "indefinite length on a primitive element")
            }
            while true {
                guard bytes.endIndex - i >= 2 else { throw ASN1Error.truncatedASN1Field() }
                if bytes[i] == 0, bytes[i + 1] == 0 { return i + 2 - bytes.startIndex }
                i += try elementLength(bytes[i...], depth: depth + 1)
            }
        }
        var length = 0
        if lengthByte & 0x80 == 0 {
            length = Int(lengthByte)
        } else {
            let count = Int(lengthByte & 0x7F)
            guard count <= 4, bytes.endIndex - i >= count else {
                throw ASN1Error.unsupportedFieldLength(reason: "length of \(count) bytes")
            }
            for _ in 0..<count {
                length = length << 8 | Int(bytes[i])
                i += 1
            }
        }
        guard bytes.endIndex - i >= length else {
            throw ASN1Error.invalidASN1Object(reason: "length \(length) runs past the \(bytes.endIndex - i) bytes read")
        }
        return i + length - bytes.startIndex
    }

    /// The header length and the content range of the element at the start of `bytes`
    /// (for an indefinite-length element, the content excludes the end-of-contents octets).
    static func contents(_ bytes: ArraySlice<UInt8>) throws -> (tag: UInt8, content: ArraySlice<UInt8>) {
        let total = try elementLength(bytes)
        guard let tag = bytes.first else { throw ASN1Error.truncatedASN1Field() }
        var i = bytes.startIndex + 1
        if tag & 0x1F == 0x1F { while bytes[i] & 0x80 != 0 { i += 1 }; i += 1 }
        let lengthByte = bytes[i]
        i += 1
        if lengthByte == 0x80 { return (tag, bytes[i..<(bytes.startIndex + total - 2)]) }
        if lengthByte & 0x80 != 0 { i += Int(lengthByte & 0x7F) }
        return (tag, bytes[i..<(bytes.startIndex + total)])
    }
}
