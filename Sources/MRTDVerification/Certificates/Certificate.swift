public import FoundationEssentials
import MRTDCore
public import MRTDCrypto
import SwiftASN1

/// An X.509 certificate (RFC 5280 §4.1) parsed for the PKI checks of passive authentication:
/// CSCA, link and document signer certificates (Doc 9303-12 §7).
///
/// ```
/// Certificate ::= SEQUENCE { tbsCertificate TBSCertificate, signatureAlgorithm AlgorithmIdentifier,
///                            signatureValue BIT STRING }
/// TBSCertificate ::= SEQUENCE { version [0] EXPLICIT Version DEFAULT v1, serialNumber INTEGER,
///     signature AlgorithmIdentifier, issuer Name, validity Validity, subject Name,
///     subjectPublicKeyInfo SubjectPublicKeyInfo, issuerUniqueID [1] IMPLICIT OPTIONAL,
///     subjectUniqueID [2] IMPLICIT OPTIONAL, extensions [3] EXPLICIT Extensions OPTIONAL }
/// ```
///
/// Parsed in Swift (cheap: loading a master list of a thousand certificates parses each one once);
/// the public key is decoded by OpenSSL only when a signature is checked with it.
public struct Certificate: Sendable, Hashable, BERReadable {
    /// The certificate as encoded.
    public let derBytes: [UInt8]
    /// Where the `tbsCertificate` and the SubjectPublicKeyInfo lie in `derBytes`: kept as ranges,
    /// not copies, because a trust store holds hundreds of certificates (the shipped master lists
    /// about 630; copies would be 1 MB of the idle daemon's heap).
    private let tbsRange: Range<Int>
    private let publicKeyInfoRange: Range<Int>
    /// The `tbsCertificate` as encoded: what the issuer signed.
    var tbsBytes: ArraySlice<UInt8> { derBytes[tbsRange] }
    /// `signatureAlgorithm` of the outer certificate.
    let signatureAlgorithm: AlgorithmIdentifier
    /// `signature` inside the TBSCertificate (RFC 5280 §4.1.1.2: must equal ``signatureAlgorithm``).
    let innerSignatureAlgorithm: AlgorithmIdentifier
    /// The signature bits.
    let signatureValue: [UInt8]
    /// The serial number's content octets (two's complement, as encoded).
    public let serialNumber: [UInt8]
    public let issuer: DistinguishedName
    public let subject: DistinguishedName
    public let notBefore: Date
    public let notAfter: Date
    /// A validity time in GeneralizedTime before 2050 (RFC 5280 §4.1.2.5 forbids it).
    public let hasNonConformingTime: Bool
    /// The DER SubjectPublicKeyInfo.
    var subjectPublicKeyInfo: ArraySlice<UInt8> { derBytes[publicKeyInfoRange] }
    /// The subjectKeyIdentifier extension, if present.
    public let subjectKeyIdentifier: [UInt8]?
    /// The keyIdentifier of the authorityKeyIdentifier extension, if present.
    public let authorityKeyIdentifier: [UInt8]?
    /// keyUsage bits (bit 0 = digitalSignature … bit 5 = keyCertSign), or `nil` without the extension.
    public let keyUsage: UInt16?
    /// Whether the keyUsage extension is marked critical (Doc 9303-12 §7.1.1.3 requires it).
    public let keyUsageCritical: Bool
    /// Whether an authorityKeyIdentifier extension is present at all (with or without keyIdentifier).
    public let hasAuthorityKeyIdentifierExtension: Bool
    /// The TBSCertificate version value (2 is v3); `nil` when the field is absent (v1 by default).
    public let version: Int?
    /// basicConstraints cA.
    public let isCA: Bool

    /// Parses one certificate; bytes after it are rejected.
    public init(derEncoded bytes: [UInt8]) throws {
        try self.init(berEncoded: BER.parse(bytes))
    }

    /// Every `CERTIFICATE` block of a PEM text (RFC 7468), in order. Throws if there is none or
    /// one does not parse.
    public static func parsePEM(_ pem: String) throws -> [Certificate] {
        let certificates = try PEM.blocks(pem).filter { $0.label == "CERTIFICATE" }.map { try Certificate(derEncoded: $0.der) }
        guard !certificates.isEmpty else { throw ASN1Error.invalidASN1Object(reason: "no certificate in PEM text") }
        return certificates
    }

    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        derBytes = rootNode.bytes
        let envelope = try SignedEnvelope(berEncoded: rootNode, withIdentifier: identifier)
        // Owned copies: a trust store keeps its certificates, and must not keep the files (master
        // lists) their OIDs were parsed from (ASN1ObjectIdentifier.owned).
        signatureAlgorithm = envelope.signatureAlgorithm.owned
        signatureValue = envelope.signatureValue
        let tbs = try TBSCertificate(berEncoded: envelope.toBeSigned)
        // Nodes are slices of the parsed buffer: their indices, less the certificate's first, are
        // offsets into derBytes.
        let base = rootNode.encodedBytes.startIndex
        tbsRange = (envelope.toBeSigned.encodedBytes.startIndex - base)..<(envelope.toBeSigned.encodedBytes.endIndex - base)
        publicKeyInfoRange = (tbs.subjectPublicKeyInfo.startIndex - base)..<(tbs.subjectPublicKeyInfo.endIndex - base)
        let whole = 0..<derBytes.count
        guard whole.contains(tbsRange.lowerBound), tbsRange.upperBound <= whole.upperBound,
              whole.contains(publicKeyInfoRange.lowerBound), publicKeyInfoRange.upperBound <= whole.upperBound else {
            throw ASN1Error.invalidASN1Object(reason: "certificate parts outside the certificate's bytes")
        }
        serialNumber = tbs.serialNumber
        innerSignatureAlgorithm = tbs.signature.owned
        issuer = tbs.issuer
        notBefore = tbs.validity.notBefore
        notAfter = tbs.validity.notAfter
        hasNonConformingTime = tbs.validity.hasNonConformingTime
        subject = tbs.subject
        subjectKeyIdentifier = tbs.extensions.subjectKeyIdentifier
        authorityKeyIdentifier = tbs.extensions.authorityKeyIdentifier
        keyUsage = tbs.extensions.keyUsage
        keyUsageCritical = tbs.extensions.keyUsageCritical
        hasAuthorityKeyIdentifierExtension = tbs.extensions.hasAuthorityKeyIdentifierExtension
        version = tbs.version
        isCA = tbs.extensions.isCA
    }

    /// Whether the subject key may sign documents (keyUsage digitalSignature, RFC 5280 §4.2.1.3).
    public var allowsDigitalSignature: Bool { (keyUsage ?? 0) & 0x0001 != 0 }
    /// Whether the key may sign certificates (keyUsage keyCertSign).
    public var allowsCertificateSigning: Bool { keyUsage.map { $0 & 0x0020 != 0 } ?? isCA }
    /// Issuer and subject are the same name: a self-signed root or a link certificate's peer.
    public var isSelfIssued: Bool { issuer == subject }

    /// The serial number in upper-case hex.
    public var serialNumberHex: String { serialNumber.hex }

    /// Whether `date` lies within the validity period.
    public func isValid(at date: Date) -> Bool { notBefore <= date && date <= notAfter }

    /// The public key, decoded by OpenSSL (explicit EC parameters included).
    public func publicKey() throws -> PublicKey {
        try PublicKey(subjectPublicKeyInfo: Array(subjectPublicKeyInfo))
    }

    /// Whether `issuerKey` signed this certificate, with the scheme its `signatureAlgorithm` names.
    /// Throws ``AlgorithmError`` for MD5 or an algorithm outside the allowed set.
    func isSigned(by issuerKey: PublicKey) throws -> Bool {
        let scheme = try signatureAlgorithm.signatureScheme(defaultDigest: nil)
        return try issuerKey.verify(signature: signatureValue, message: tbsBytes, scheme: scheme)
    }

    public static func == (lhs: Certificate, rhs: Certificate) -> Bool { lhs.derBytes == rhs.derBytes }
    public func hash(into hasher: inout Hasher) { derBytes.withUnsafeBytes { hasher.combine(bytes: $0) } }
}

/// What RFC 5280 signs: a Certificate (§4.1) and a CertificateList (§5.1) are both
///
/// ```
/// SEQUENCE { toBeSigned (TBSCertificate | TBSCertList), signatureAlgorithm AlgorithmIdentifier,
///            signatureValue BIT STRING }
/// ```
struct SignedEnvelope: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    /// The signed part, its bytes as encoded.
    var toBeSigned: ASN1Node
    var signatureAlgorithm: AlgorithmIdentifier
    var signatureValue: [UInt8]

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        (toBeSigned, signatureAlgorithm, signatureValue) = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let toBeSigned = try nodes.required("toBeSigned")
            let algorithm = try AlgorithmIdentifier(berEncoded: nodes.required("signatureAlgorithm"))
            let bits = try ASN1BitString(berEncoded: nodes.required("signatureValue"))
            return (toBeSigned, algorithm, Array(bits.bytes))
        }
    }

    /// The signed bytes as encoded, the algorithm and the signature: what a signature check needs.
    var parts: (toBeSigned: [UInt8], algorithm: AlgorithmIdentifier, signature: [UInt8]) {
        (toBeSigned.bytes, signatureAlgorithm, signatureValue)
    }
}

/// RFC 5280 §4.1:
///
/// ```
/// TBSCertificate ::= SEQUENCE { version [0] EXPLICIT Version DEFAULT v1, serialNumber INTEGER,
///     signature AlgorithmIdentifier, issuer Name, validity Validity, subject Name,
///     subjectPublicKeyInfo SubjectPublicKeyInfo, issuerUniqueID [1] IMPLICIT OPTIONAL,
///     subjectUniqueID [2] IMPLICIT OPTIONAL, extensions [3] EXPLICIT Extensions OPTIONAL }
/// ```
///
/// The serial number is kept as encoded (issuers write non-minimal and negative serials).
struct TBSCertificate: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var version: Int?
    var serialNumber: [UInt8]
    var signature: AlgorithmIdentifier
    var issuer: DistinguishedName
    var validity: Validity
    var subject: DistinguishedName
    /// The DER SubjectPublicKeyInfo as encoded, a slice of the parsed buffer (decoded by OpenSSL
    /// when a signature is checked).
    var subjectPublicKeyInfo: ArraySlice<UInt8>
    var extensions: CertificateExtensions
}

extension TBSCertificate {
    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            // version [0] EXPLICIT Version DEFAULT v1
            let version = try nodes.next(ifIdentifier: .context(0)).map { node -> Int in
                guard case .constructed(let inner) = node.content, let value = inner.first(where: { _ in true }) else {
                    throw ASN1Error.invalidASN1Object(reason: "certificate version")
                }
                return try Int(berEncoded: value)
            }
            let serial = try nodes.required("serialNumber", identifier: .integer).primitiveBytes()
            let signature = try AlgorithmIdentifier(berEncoded: nodes.required("signature", identifier: .sequence))
            let issuer = try DistinguishedName(berEncoded: nodes.required("issuer"))
            let validity = try Validity(berEncoded: nodes.required("validity"))
            let subject = try DistinguishedName(berEncoded: nodes.required("subject"))
            let key = try nodes.required("subjectPublicKeyInfo", identifier: .sequence)
            var extensions = CertificateExtensions()
            // issuerUniqueID and subjectUniqueID are skipped.
            while let node = nodes.next() {
                guard node.identifier == .context(3), case .constructed(let wrapped) = node.content,
                      let list = wrapped.first(where: { _ in true }) else { continue }
                try extensions.read(list: list)
            }
            return TBSCertificate(
                version: version, serialNumber: Array(serial), signature: signature, issuer: issuer, validity: validity,
                subject: subject, subjectPublicKeyInfo: key.encodedBytes, extensions: extensions)
        }
    }
}

/// `Validity ::= SEQUENCE { notBefore Time, notAfter Time }` (RFC 5280 §4.1.2.5).
struct Validity: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var notBefore: Date
    var notAfter: Date
    /// A GeneralizedTime before 2050, which RFC 5280 §4.1.2.5 forbids.
    var hasNonConformingTime: Bool

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        (notBefore, notAfter, hasNonConformingTime) = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let start = try UTCDate.parseTime(nodes.required("notBefore"))
            let end = try UTCDate.parseTime(nodes.required("notAfter"))
            return (start.date, end.date, start.generalizedBefore2050 || end.generalizedBefore2050)
        }
    }
}

/// The extensions passive authentication reads (RFC 5280 §4.2.1): subjectKeyIdentifier,
/// authorityKeyIdentifier, keyUsage, basicConstraints; others are skipped.
///
/// ```
/// Extensions ::= SEQUENCE SIZE (1..MAX) OF Extension
/// Extension ::= SEQUENCE { extnID OBJECT IDENTIFIER, critical BOOLEAN DEFAULT FALSE, extnValue OCTET STRING }
/// ```
struct CertificateExtensions: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var subjectKeyIdentifier: [UInt8]?
    var authorityKeyIdentifier: [UInt8]?
    /// keyUsage bits (bit 0 = digitalSignature … bit 5 = keyCertSign), `nil` without the extension.
    var keyUsage: UInt16?
    var keyUsageCritical = false
    var hasAuthorityKeyIdentifierExtension = false
    var isCA = false

    init() {}

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        try read(list: rootNode, identifier: identifier)
    }

    /// Adds what one `Extensions` list says (a certificate with several `[3]` fields gets all of them).
    mutating func read(list: ASN1Node, identifier: ASN1Identifier = Self.defaultIdentifier) throws {
        try BER.sequence(list, identifier: identifier) { nodes in
            while let node = nodes.next() { try read(node) }
        }
    }

    private mutating func read(_ node: ASN1Node) throws {
        let parts = try node.children(.sequence, "Extension")
        guard parts.count >= 2, let value = parts.last else { return }
        let extensionValue = try value.octetStringBytes()
        guard parts[0].identifier == .objectIdentifier else { throw ASN1Error.invalidASN1Object(reason: "extnID") }
        // An extension this reader does not know, or whose extnID does not decode, is skipped.
        guard let id = try? ASN1ObjectIdentifier(berEncoded: parts[0]) else { return }
        typealias Extension = ASN1ObjectIdentifier.CertificateExtension
        switch id {
        case Extension.subjectKeyIdentifier:
            subjectKeyIdentifier = Array(try ASN1OctetString(berEncoded: BER.parse(extensionValue)).bytes)
        case Extension.authorityKeyIdentifier:
            hasAuthorityKeyIdentifierExtension = true
            // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING OPTIONAL, … }
            try BER.sequence(BER.parse(extensionValue), identifier: .sequence) { fields in
                while let field = fields.next() {
                    if field.identifier == .context(0) { authorityKeyIdentifier = Array(try field.primitiveBytes()) }
                }
            }
        case Extension.keyUsage:
            let bits = try ASN1BitString(berEncoded: BER.parse(extensionValue))
            var value: UInt16 = 0
            for (i, byte) in bits.bytes.prefix(2).enumerated() {
                value |= UInt16(byte.bitReversed) << (8 * i)
            }
            keyUsage = value
            // Extension ::= SEQUENCE { extnID, critical BOOLEAN DEFAULT FALSE, extnValue }
            keyUsageCritical = parts.count == 3 && parts[1].identifier == .boolean && (try? Bool(berEncoded: parts[1])) == true
        case Extension.basicConstraints:
            isCA = try BER.sequence(BER.parse(extensionValue), identifier: .sequence) { fields in
                defer { fields.skipRemaining() }
                return try fields.next(ifIdentifier: .boolean).map { try Bool(berEncoded: $0) } ?? false
            }
        default: break
        }
    }
}
