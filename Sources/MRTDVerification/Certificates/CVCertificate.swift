public import FoundationEssentials
import MRTDCore
import MRTDCrypto
public import SwiftASN1

/// A card-verifiable certificate (BSI TR-03110-3 §C.1, ISO/IEC 7816-8), as EAC Terminal
/// Authentication presents them to the chip: CVCA (link) certificates, document verifier (DV) and
/// inspection system (IS) certificates.
///
/// ```
/// 7F21 CV Certificate {
///   7F4E Certificate Body {
///     5F29 Certificate Profile Identifier (00)
///     42   Certification Authority Reference (CAR)
///     7F49 Public Key { 06 OID, 81..87 (EC) | 81 n, 82 e (RSA) }
///     5F20 Certificate Holder Reference (CHR)
///     7F4C Certificate Holder Authorization Template { 06 OID, 53 discretionary data }
///     5F25 Certificate Effective Date (YYMMDD, one digit per byte)
///     5F24 Certificate Expiration Date
///     65   Certificate Extensions (optional)
///   }
///   5F37 Signature
/// }
/// ```
public struct CVCertificate: Sendable, Equatable {
    /// The holder's role, from bits 7-6 of the authorization template (TR-03110-3 §C.4).
    public enum Role: String, Sendable, Equatable, Codable {
        case cvca
        case dvDomestic
        case dvForeign
        /// The terminal (inspection system, `id-IS`): its key signs the TA challenge.
        case terminal
    }

    /// The whole certificate (`7F21`), as read.
    public let rawBytes: [UInt8]
    /// The certificate body (`7F4E` with tag and length): what the signature covers and what
    /// PSO:Verify Certificate carries, followed by the signature object.
    public let body: [UInt8]
    /// The `5F37` object (tag, length, signature).
    public let signatureObject: [UInt8]
    /// The signature value (plain `r || s` for ECDSA, TR-03111 §5.2.1).
    public var signature: [UInt8] {
        guard let node = try? BER.parse(signatureObject), case .primitive(let bytes) = node.content else { return [] }
        return Array(bytes)
    }
    /// The profile identifier (0 for version 1).
    public let profileIdentifier: Int
    /// Certification Authority Reference: the CHR of the key that signed this certificate.
    public let authorityReference: String
    /// Certificate Holder Reference: the name of this certificate's key.
    public let holderReference: String
    /// The public key (domain parameters only in CVCA certificates).
    public let publicKey: CVPublicKey
    /// The terminal type of the authorization template (`0.4.0.127.0.7.3.1.2.1` = `id-IS`).
    public let terminalTypeOID: ASN1ObjectIdentifier
    /// The discretionary data of the authorization template (1 byte for `id-IS`).
    public let accessRights: [UInt8]
    public let effectiveDate: CVDate
    public let expirationDate: CVDate

    /// `id-IS`, the inspection systems of eMRTDs (TR-03110-3 §C.4.1).
    public static let inspectionSystemOID: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 3, 1, 2, 1]

    /// The holder's role (bits 7-6 of the first access-rights byte).
    public var role: Role {
        switch (accessRights.first ?? 0) >> 6 {
        case 3: .cvca
        case 2: .dvDomestic
        case 1: .dvForeign
        default: .terminal
        }
    }

    /// Read access to DG3 (fingerprints): bit 0 of the last access-rights byte, `id-IS` only.
    public var grantsDG3: Bool { terminalTypeOID == Self.inspectionSystemOID && (accessRights.last ?? 0) & 0x01 != 0 }
    /// Read access to DG4 (iris): bit 1.
    public var grantsDG4: Bool { terminalTypeOID == Self.inspectionSystemOID && (accessRights.last ?? 0) & 0x02 != 0 }

    /// Whether the holder may read data group `n` (3 or 4) as far as this certificate goes.
    public func grants(dataGroup n: Int) -> Bool {
        switch n {
        case 3: grantsDG3
        case 4: grantsDG4
        default: false
        }
    }

    /// Decodes a DER/BER `7F21` certificate; trailing bytes are rejected.
    /// - Throws: ``CVCertificateError``.
    public init(rawBytes: [UInt8]) throws(CVCertificateError) {
        let root: ASN1Node
        do {
            root = try BER.parse(rawBytes)
        } catch {
            throw .malformed("not a CV certificate (7F21): \(error)")
        }
        try self.init(node: root, identifier: Self.defaultIdentifier)
    }

    /// The tags of TR-03110-3 §D.2 (ISO/IEC 7816-6 application class; constructed ones marked).
    enum Tag {
        /// `7F21` CV Certificate (constructed).
        static let certificate = ASN1Identifier(tagWithNumber: 0x21, tagClass: .application)
        /// `7F4E` Certificate Body (constructed).
        static let body = ASN1Identifier(tagWithNumber: 0x4E, tagClass: .application)
        /// `5F37` Signature.
        static let signature = ASN1Identifier(tagWithNumber: 0x37, tagClass: .application)
        /// `5F29` Certificate Profile Identifier.
        static let profileIdentifier = ASN1Identifier(tagWithNumber: 0x29, tagClass: .application)
        /// `42` Certification Authority Reference.
        static let authorityReference = ASN1Identifier(tagWithNumber: 0x02, tagClass: .application)
        /// `7F49` Public Key (constructed).
        static let publicKey = ASN1Identifier(tagWithNumber: 0x49, tagClass: .application)
        /// `5F20` Certificate Holder Reference.
        static let holderReference = ASN1Identifier(tagWithNumber: 0x20, tagClass: .application)
        /// `7F4C` Certificate Holder Authorization Template (constructed).
        static let authorizationTemplate = ASN1Identifier(tagWithNumber: 0x4C, tagClass: .application)
        /// `53` Discretionary Data (the access rights).
        static let discretionaryData = ASN1Identifier(tagWithNumber: 0x13, tagClass: .application)
        /// `5F25` Certificate Effective Date.
        static let effectiveDate = ASN1Identifier(tagWithNumber: 0x25, tagClass: .application)
        /// `5F24` Certificate Expiration Date.
        static let expirationDate = ASN1Identifier(tagWithNumber: 0x24, tagClass: .application)
    }

    /// Parses the certificate node (BER: CV certificates are BER-TLV, ISO/IEC 7816-4 §5.2; their
    /// fields are not in a fixed DER order that a SEQUENCE parser could walk, so each is looked
    /// up by tag, the first of a repeated tag counting, as before).
    init(node root: ASN1Node, identifier: ASN1Identifier) throws(CVCertificateError) {
        guard root.identifier == identifier, case .constructed(let children) = root.content else {
            throw .malformed("not a CV certificate (7F21)")
        }
        let parts = Array(children)
        guard parts.count == 2, parts[0].identifier == Tag.body, case .constructed(let bodyFields) = parts[0].content,
              parts[1].identifier == Tag.signature, case .primitive = parts[1].content
        else { throw .malformed("expected a body (7F4E) and a signature (5F37)") }
        rawBytes = Array(root.encodedBytes)
        body = Array(parts[0].encodedBytes)
        signatureObject = Array(parts[1].encodedBytes)
        let fields = Array(bodyFields)
        func field(_ tag: ASN1Identifier, _ name: String) throws(CVCertificateError) -> ASN1Node {
            guard let found = fields.first(where: { $0.identifier == tag }) else { throw .malformed("\(name) missing") }
            return found
        }
        func value(_ tag: ASN1Identifier, _ name: String) throws(CVCertificateError) -> [UInt8] {
            guard case .primitive(let bytes) = try field(tag, name).content else { throw .malformed("\(name) is constructed") }
            return Array(bytes)
        }
        let profile = try value(Tag.profileIdentifier, "profile identifier")
        guard profile.count == 1 else { throw .malformed("profile identifier is not one byte") }
        profileIdentifier = Int(profile[0])
        authorityReference = try Self.reference(value(Tag.authorityReference, "CAR"), "CAR")
        holderReference = try Self.reference(value(Tag.holderReference, "CHR"), "CHR")
        publicKey = try CVPublicKey(node: field(Tag.publicKey, "public key"))
        guard case .constructed(let template) = try field(Tag.authorizationTemplate, "authorization template").content,
              let oid = template.first(where: { $0.identifier == .objectIdentifier }),
              let rights = template.first(where: { $0.identifier == Tag.discretionaryData }),
              case .primitive(let rightsBytes) = rights.content, !rightsBytes.isEmpty,
              let terminalType = try? ASN1ObjectIdentifier(berEncoded: oid)
        else { throw .malformed("authorization template lacks its OID or rights") }
        terminalTypeOID = terminalType
        accessRights = Array(rightsBytes)
        effectiveDate = try CVDate(digits: value(Tag.effectiveDate, "effective date"))
        expirationDate = try CVDate(digits: value(Tag.expirationDate, "expiration date"))
        guard effectiveDate <= expirationDate else { throw .malformed("expires before it takes effect") }
    }

    private static func reference(_ value: [UInt8], _ name: String) throws(CVCertificateError) -> String {
        // TR-03110-3 §A.6.1: country code, holder mnemonic, sequence number; ISO 8859-1, 8-16 chars.
        guard (1...16).contains(value.count), value.allSatisfy({ (0x20...0x7E).contains($0) }) else {
            throw .malformed("\(name) is not 1-16 printable characters")
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// Whether `issuer`'s key (with the CVCA's domain parameters `domain`, for EC) signed this
    /// certificate. A malformed key or signature is `false`.
    public func isSigned(by issuer: CVPublicKey, domain: CVPublicKey?) -> Bool {
        guard let scheme = issuer.signatureScheme,
              let spki = try? issuer.subjectPublicKeyInfo(domain: domain),
              let key = try? PublicKey(subjectPublicKeyInfo: spki)
        else { return false }
        return (try? key.verify(signature: signature, message: body, scheme: scheme)) ?? false
    }

    /// Whether the certificate is valid on `date` (both ends inclusive, TR-03110-3 §C.1.5).
    public func isValid(on date: CVDate) -> Bool { effectiveDate <= date && date <= expirationDate }
}

extension CVCertificate: BERReadable {
    static var defaultIdentifier: ASN1Identifier { Tag.certificate }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        try self.init(node: rootNode, identifier: identifier)
    }
}

/// Why a CV certificate cannot be used.
public enum CVCertificateError: Error, Sendable, Equatable, CustomStringConvertible {
    case malformed(String)
    case unsupportedAlgorithm(String)

    public var description: String {
        switch self {
        case .malformed(let why): "malformed CV certificate: \(why)"
        case .unsupportedAlgorithm(let oid): "unsupported CV certificate algorithm \(oid)"
        }
    }
}

/// A date in a CV certificate: six unpacked BCD digits `YYMMDD`, years 2000-2099 (TR-03110-3 §D.2.1.3).
public struct CVDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public let year: Int
    public let month: Int
    public let day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// From the six digit bytes (each 0-9).
    public init(digits: [UInt8]) throws(CVCertificateError) {
        guard digits.count == 6, digits.allSatisfy({ $0 <= 9 }) else { throw .malformed("date is not six BCD digits") }
        let n = digits.map(Int.init)
        year = 2000 + n[0] * 10 + n[1]
        month = n[2] * 10 + n[3]
        day = n[4] * 10 + n[5]
        guard (1...12).contains(month), (1...31).contains(day) else { throw .malformed("date \(self) is not a calendar date") }
    }

    /// The UTC calendar day of `date`.
    public init(_ date: Date) {
        let days = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        // Civil-from-days (H. Hinnant), proleptic Gregorian, UTC.
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        day = doy - (153 * mp + 2) / 5 + 1
        month = mp < 10 ? mp + 3 : mp - 9
        year = yoe + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// The six digit bytes.
    public var digits: [UInt8] {
        let y = year % 100
        return [y / 10, y % 10, month / 10, month % 10, day / 10, day % 10].map { UInt8($0) }
    }

    public static func < (a: CVDate, b: CVDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public var description: String {
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(year)-\(two(month))-\(two(day))"
    }
}

