public import FoundationEssentials
import MRTDCore
public import MRTDCrypto
public import SwiftASN1
import MRTDPlatform

/// Hand-rolled DER (and, on request, BER) for test fixtures that must be able to break any field.
public enum DERBuilder {
    public static func tlv(_ tag: UInt, _ content: [UInt8]) -> [UInt8] { TLV.encode(tag: tag, value: content) }
    public static func sequence(_ parts: [UInt8]...) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }
    public static func sequence(_ parts: [[UInt8]]) -> [UInt8] { tlv(0x30, parts.flatMap { $0 }) }
    /// A SET with its elements sorted as DER requires (X.690 §11.6).
    public static func set(_ parts: [[UInt8]]) -> [UInt8] {
        tlv(0x31, parts.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 })
    }
    public static func octetString(_ bytes: [UInt8]) -> [UInt8] { tlv(0x04, bytes) }
    public static func null() -> [UInt8] { [0x05, 0x00] }
    public static func bitString(_ bytes: [UInt8]) -> [UInt8] { tlv(0x03, [0] + bytes) }
    public static func boolean(_ value: Bool) -> [UInt8] { [0x01, 0x01, value ? 0xFF : 0x00] }
    public static func utf8(_ text: String) -> [UInt8] { tlv(0x0C, Array(text.utf8)) }
    public static func printable(_ text: String) -> [UInt8] { tlv(0x13, Array(text.utf8)) }

    public static func integer(_ value: Int) -> [UInt8] {
        var bytes = MinimalBytes.bigEndian(nonNegative: value)
        if let first = bytes.first, first & 0x80 != 0 { bytes.insert(0, at: 0) }
        return tlv(0x02, bytes)
    }

    /// An INTEGER from unsigned magnitude bytes.
    public static func integer(unsigned bytes: [UInt8]) -> [UInt8] {
        var b = Array(bytes.drop { $0 == 0 })
        if b.isEmpty { b = [0] }
        if b[0] & 0x80 != 0 { b.insert(0, at: 0) }
        return tlv(0x02, b)
    }

    public static func oid(_ oid: ASN1ObjectIdentifier) -> [UInt8] {
        var serializer = DER.Serializer()
        // Serializing an OID appends bytes and cannot fail.
        try? serializer.serialize(oid)
        return serializer.serializedBytes
    }

    public static func algorithm(_ oid: ASN1ObjectIdentifier, parameters: [UInt8]? = nil) -> [UInt8] {
        sequence(Self.oid(oid), parameters ?? [])
    }

    private typealias Attribute = ASN1ObjectIdentifier.NameAttributes

    /// A `Name` from (attribute OID, value) pairs, most significant first; `C` as PrintableString.
    public static func name(_ attributes: [(ASN1ObjectIdentifier, String)]) -> [UInt8] {
        sequence(attributes.map { type, value in
            set([sequence(oid(type), type == Attribute.countryName ? printable(value) : utf8(value))])
        })
    }

    /// `C=<country>, O=<organization>, CN=<common name>`.
    public static func name(country: String, organization: String, commonName: String) -> [UInt8] {
        name([(Attribute.countryName, country), (Attribute.organizationName, organization), (Attribute.commonName, commonName)])
    }

    public static func utcTime(_ date: Date) -> [UInt8] { tlv(0x17, Array(timeText(date, fourDigitYear: false).utf8)) }
    public static func generalizedTime(_ date: Date) -> [UInt8] { tlv(0x18, Array(timeText(date, fourDigitYear: true).utf8)) }

    /// RFC 5280 §4.1.2.5: UTCTime through 2049, GeneralizedTime from 2050.
    public static func time(_ date: Date) -> [UInt8] {
        (Int(timeText(date, fourDigitYear: true).prefix(4)) ?? 0) >= 2050 ? generalizedTime(date) : utcTime(date)
    }

    private static func timeText(_ date: Date, fourDigitYear: Bool) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt  // TimeZone(identifier: "UTC") is nil without ICU
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ v: Int?) -> String { (v ?? 0).zeroPadded(width: 2) }
        let year = fourDigitYear ? (c.year ?? 0).zeroPadded(width: 4) : two((c.year ?? 0) % 100)
        return year + two(c.month) + two(c.day) + two(c.hour) + two(c.minute) + two(c.second) + "Z"
    }

    /// The AlgorithmIdentifier of a signature scheme as X.509 and CMS write it.
    public static func signatureAlgorithm(_ scheme: SignatureScheme) -> [UInt8] {
        func hashID(_ d: DigestAlgorithm) -> [UInt8] { algorithm(d.oid) }
        switch scheme {
        case .rsaPKCS1v15(let d):
            let oids: [DigestAlgorithm: ASN1ObjectIdentifier] = [.sha1: [1, 2, 840, 113549, 1, 1, 5], .sha224: [1, 2, 840, 113549, 1, 1, 14],
                                                   .sha256: [1, 2, 840, 113549, 1, 1, 11], .sha384: [1, 2, 840, 113549, 1, 1, 12],
                                                   .sha512: [1, 2, 840, 113549, 1, 1, 13]]
            return algorithm(oids[d]!, parameters: null())
        case .rsaPSS(let d, let mgf, let salt):
            return algorithm([1, 2, 840, 113549, 1, 1, 10], parameters: sequence(
                tlv(0xA0, hashID(d)),
                tlv(0xA1, algorithm([1, 2, 840, 113549, 1, 1, 8], parameters: hashID(mgf))),
                tlv(0xA2, integer(salt))))
        case .dsa(let d):
            // id-dsa-with-sha1 (RFC 3279 §2.2.2), dsa-with-sha224/256/384/512 (NIST CSOR 2.16.840.1.101.3.4.3.x).
            let oids: [DigestAlgorithm: ASN1ObjectIdentifier] = [
                .sha1: [1, 2, 840, 10040, 4, 3], .sha224: [2, 16, 840, 1, 101, 3, 4, 3, 1], .sha256: [2, 16, 840, 1, 101, 3, 4, 3, 2],
                .sha384: [2, 16, 840, 1, 101, 3, 4, 3, 3], .sha512: [2, 16, 840, 1, 101, 3, 4, 3, 4]]
            return algorithm(oids[d]!)
        case .ecdsaPlain(let d):
            // BSI TR-03111 §5.2.1 ecdsa-plain-SHA*: 0.4.0.127.0.7.1.1.4.1.{1…5}.
            let arcs: [DigestAlgorithm: UInt] = [.sha1: 1, .sha224: 2, .sha256: 3, .sha384: 4, .sha512: 5]
            return algorithm([0, 4, 0, 127, 0, 7, 1, 1, 4, 1, arcs[d]!])
        case .ecdsa(let d):
            let oids: [DigestAlgorithm: ASN1ObjectIdentifier] = [.sha1: [1, 2, 840, 10045, 4, 1], .sha224: [1, 2, 840, 10045, 4, 3, 1],
                                                   .sha256: [1, 2, 840, 10045, 4, 3, 2], .sha384: [1, 2, 840, 10045, 4, 3, 3],
                                                   .sha512: [1, 2, 840, 10045, 4, 3, 4]]
            return algorithm(oids[d]!)
        }
    }

    /// md5WithRSAEncryption, refused everywhere.
    public static let md5WithRSA = algorithm([1, 2, 840, 113549, 1, 1, 4], parameters: null())
    /// The MD5 digest algorithm identifier.
    public static let md5 = algorithm([1, 2, 840, 113549, 2, 5], parameters: null())
}
