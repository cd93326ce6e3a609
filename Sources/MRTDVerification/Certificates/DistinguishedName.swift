import MRTDCore
import SwiftASN1

/// An X.501 `Name` (RFC 5280 §4.1.2.4) kept as encoded, with a normalised form for matching and a
/// readable form for reports.
///
/// ```
/// Name ::= CHOICE { rdnSequence RDNSequence }
/// RDNSequence ::= SEQUENCE OF RelativeDistinguishedName
/// RelativeDistinguishedName ::= SET SIZE (1..MAX) OF AttributeTypeAndValue
/// AttributeTypeAndValue ::= SEQUENCE { type AttributeType, value AttributeValue }
/// ```
///
/// Issuers re-encode names (PrintableString vs UTF8String, case, spacing), so matching uses
/// ``matchKey``: every attribute as `oid-hex=value` with the value case-folded and white space
/// collapsed (the spirit of RFC 5280 §7.1), in sorted order.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible, BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    /// The DER bytes as they appear in the certificate.
    public let derBytes: [UInt8]
    /// The normalised form used to match an issuer to a subject.
    public let matchKey: String
    /// The `countryName` attribute, upper-cased, if any.
    public let country: String?

    /// RFC 4514 style, most significant last: `CN=CSCA-GERMANY,OU=BSI,O=bund,C=DE` (built on
    /// demand: a trust store holds thousands of names and shows few).
    public var description: String {
        guard let node = try? BER.parse(derBytes), let attributes = try? Self.attributes(node) else { return "#" + derBytes.hex }
        return attributes.reversed().map { (Self.shortNames[$0.type] ?? $0.type.description) + "=" + Self.string($0.value) }
            .joined(separator: ",")
    }

    init(berEncoded node: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        derBytes = node.bytes
        var parts: [[UInt8]] = []
        var country: String?
        for (typeNode, value) in try Self.attributeNodes(node, identifier) {
            let type = try typeNode.primitiveBytes()
            var part: [UInt8] = []
            part.reserveCapacity(type.count * 2 + 40)
            for byte in type {
                part.append(Self.hexDigits[Int(byte >> 4)])
                part.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            part.append(UInt8(ascii: "="))
            Self.appendFolded(value, to: &part)
            if type.elementsEqual(Self.countryNameContent) {
                country = Self.string(value).uppercased()
            }
            parts.append(part)
        }
        // Order-insensitive: some issuers write the SignerInfo's issuer with the RDNs in another
        // order than the certificate (a Malaysian SOD does); signatures decide the rest.
        parts.sort { $0.lexicographicallyPrecedes($1) }
        matchKey = String(decoding: Array(parts.joined(separator: [UInt8(ascii: ",")])), as: UTF8.self)
        self.country = country
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)

    /// The content octets of `countryName` (2.5.4.6), compared with each attribute type's as read.
    private static let countryNameContent = Attribute.countryName.contentOctets

    /// Appends the value case-folded with white space runs collapsed: on the bytes for ASCII
    /// strings (nearly every CSCA name), through Unicode case folding otherwise.
    private static func appendFolded(_ value: ASN1Node, to out: inout [UInt8]) {
        if case .primitive(let bytes) = value.content, [0x0C, 0x13, 0x16, 0x14].contains(value.identifier.tagNumber),
           bytes.allSatisfy({ $0 < 0x80 }) {
            var pendingSpace = false
            var wrote = false
            for byte in bytes {
                if byte == 0x20 || (0x09...0x0D).contains(byte) {
                    pendingSpace = wrote
                    continue
                }
                if pendingSpace { out.append(0x20); pendingSpace = false }
                out.append((0x41...0x5A).contains(byte) ? byte + 0x20 : byte)
                wrote = true
            }
            return
        }
        out += Array(folded(string(value)).utf8)
    }

    /// Every AttributeTypeAndValue in order, as (type OID, value node).
    private static func attributes(_ node: ASN1Node) throws -> [(type: ASN1ObjectIdentifier, value: ASN1Node)] {
        try attributeNodes(node, defaultIdentifier).map { (try $0.type.oid(), $0.value) }
    }

    /// Every AttributeTypeAndValue in order, as (type node, value node).
    private static func attributeNodes(
        _ node: ASN1Node, _ identifier: ASN1Identifier
    ) throws -> [(type: ASN1Node, value: ASN1Node)] {
        var out: [(type: ASN1Node, value: ASN1Node)] = []
        for rdn in try node.children(identifier, "Name") {
            for atv in try rdn.children(.set, "RDN") {
                let parts = try atv.children(.sequence, "AttributeTypeAndValue")
                guard parts.count == 2, parts[0].identifier == .objectIdentifier else {
                    throw ASN1Error.invalidASN1Object(reason: "AttributeTypeAndValue")
                }
                out.append((parts[0], parts[1]))
            }
        }
        return out
    }

    /// Case-folded, white space runs collapsed to one space, trimmed.
    private static func folded(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            let isSpace = scalar.isASCII
                ? (scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value)) : scalar.properties.isWhitespace
            if isSpace {
                pendingSpace = !out.isEmpty
                continue
            }
            if pendingSpace { out.append(" "); pendingSpace = false }
            if scalar.isASCII {
                out.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
            } else {
                out.append(contentsOf: String(scalar).lowercased().unicodeScalars)
            }
        }
        return String(out)
    }

    public static func == (lhs: DistinguishedName, rhs: DistinguishedName) -> Bool { lhs.matchKey == rhs.matchKey }
    public func hash(into hasher: inout Hasher) { hasher.combine(matchKey) }

    private typealias Attribute = ASN1ObjectIdentifier.NameAttributes

    private static let shortNames: [ASN1ObjectIdentifier: String] = [
        Attribute.commonName: "CN", Attribute.countryName: "C", Attribute.localityName: "L",
        Attribute.stateOrProvinceName: "ST", Attribute.organizationName: "O", Attribute.organizationalUnitName: "OU",
        Attribute.serialNumber: "serialNumber", Attribute.surname: "SN", Attribute.givenName: "GN",
        Attribute.emailAddress: "emailAddress", Attribute.domainComponent: "DC",
        [2, 5, 4, 97]: "organizationIdentifier",
    ]

    /// The text of a DirectoryString or IA5String value; anything else as hex.
    private static func string(_ node: ASN1Node) -> String {
        guard case .primitive(let bytes) = node.content else { return "#" + node.bytes.hex }
        switch node.identifier.tagNumber {
        case 0x0C, 0x13, 0x16, 0x14, 0x1A: return String(decoding: bytes, as: UTF8.self)
        case 0x1E:  // BMPString: UTF-16BE
            var units: [UInt16] = []
            var i = bytes.startIndex
            while i + 1 < bytes.endIndex {
                units.append(UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1]))
                i += 2
            }
            return String(decoding: units, as: UTF16.self)
        case 0x1C:  // UniversalString: UTF-32BE
            var scalars = String.UnicodeScalarView()
            var i = bytes.startIndex
            while i + 3 < bytes.endIndex {
                let v = UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
                if let s = Unicode.Scalar(v) { scalars.append(s) }
                i += 4
            }
            return String(scalars)
        default: return "#" + node.bytes.hex
        }
    }
}
