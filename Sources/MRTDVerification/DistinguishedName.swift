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
/// ``matchKey``: every attribute as `oid=value` with the value case-folded and white space
/// collapsed (the spirit of RFC 5280 §7.1), in sorted order.
public struct DistinguishedName: Sendable, Hashable, CustomStringConvertible {
    /// The DER bytes as they appear in the certificate.
    public let derBytes: [UInt8]
    /// The normalised form used to match an issuer to a subject.
    public let matchKey: String
    /// RFC 4514 style, most significant last: `CN=CSCA-GERMANY,OU=BSI,O=bund,C=DE`.
    public let description: String
    /// The `countryName` attribute, upper-cased, if any.
    public let country: String?

    init(node: ASN1Node) throws {
        derBytes = node.bytes
        var keyParts: [String] = []
        var shown: [String] = []
        var country: String?
        for rdn in try node.children(.sequence, "Name") {
            for atv in try rdn.children(.set, "RDN") {
                let parts = try atv.children(.sequence, "AttributeTypeAndValue")
                guard parts.count == 2 else { throw ASN1Error.invalidASN1Object(reason: "AttributeTypeAndValue") }
                let type = try parts[0].oid()
                let value = Self.string(parts[1])
                if type == OID.countryName { country = value.uppercased() }
                keyParts.append(type + "=" + value.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased())
                shown.append((Self.shortNames[type] ?? type) + "=" + value)
            }
        }
        // Order-insensitive: some issuers write the SignerInfo's issuer with the RDNs in another
        // order than the certificate (a Malaysian SOD does); signatures decide the rest.
        matchKey = keyParts.sorted().joined(separator: ",")
        description = shown.reversed().joined(separator: ",")
        self.country = country
    }

    public static func == (lhs: DistinguishedName, rhs: DistinguishedName) -> Bool { lhs.matchKey == rhs.matchKey }
    public func hash(into hasher: inout Hasher) { hasher.combine(matchKey) }

    private static let shortNames: [String: String] = [
        "2.5.4.3": "CN", "2.5.4.6": "C", "2.5.4.7": "L", "2.5.4.8": "ST", "2.5.4.10": "O", "2.5.4.11": "OU",
        "2.5.4.5": "serialNumber", "2.5.4.4": "SN", "2.5.4.42": "GN", "1.2.840.113549.1.9.1": "emailAddress",
        "0.9.2342.19200300.100.1.25": "DC", "2.5.4.97": "organizationIdentifier",
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
