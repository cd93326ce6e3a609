public import Foundation
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
public struct Certificate: Sendable, Hashable {
    /// The certificate as encoded.
    public let derBytes: [UInt8]
    /// The `tbsCertificate` as encoded: what the issuer signed.
    let tbsBytes: [UInt8]
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
    let subjectPublicKeyInfo: [UInt8]
    /// The subjectKeyIdentifier extension, if present.
    public let subjectKeyIdentifier: [UInt8]?
    /// The keyIdentifier of the authorityKeyIdentifier extension, if present.
    public let authorityKeyIdentifier: [UInt8]?
    /// keyUsage bits (bit 0 = digitalSignature … bit 5 = keyCertSign), or `nil` without the extension.
    public let keyUsage: UInt16?
    /// basicConstraints cA.
    public let isCA: Bool

    /// Parses one certificate; bytes after it are rejected.
    public init(derEncoded bytes: [UInt8]) throws {
        try self.init(node: BER.parse(bytes))
    }

    init(node: ASN1Node) throws {
        derBytes = node.bytes
        let outer = try node.children(.sequence, "Certificate")
        guard outer.count == 3 else { throw ASN1Error.invalidASN1Object(reason: "Certificate has \(outer.count) elements") }
        tbsBytes = outer[0].bytes
        signatureAlgorithm = try AlgorithmIdentifier(node: outer[1])
        let bits = try ASN1BitString(berEncoded: outer[2])
        signatureValue = Array(bits.bytes)

        var tbs = try outer[0].children(.sequence, "TBSCertificate")[...]
        if tbs.first?.identifier == .context(0) { tbs = tbs.dropFirst() }
        guard tbs.count >= 6 else { throw ASN1Error.invalidASN1Object(reason: "TBSCertificate lacks fields") }
        var fields = tbs.makeIterator()
        guard let serialNode = fields.next(), serialNode.identifier == .integer else {
            throw ASN1Error.invalidASN1Object(reason: "serialNumber missing")
        }
        serialNumber = Array(try serialNode.primitiveBytes())
        guard let innerAlgorithm = fields.next(), innerAlgorithm.identifier == .sequence else {
            throw ASN1Error.invalidASN1Object(reason: "signature missing")
        }
        innerSignatureAlgorithm = try AlgorithmIdentifier(node: innerAlgorithm)
        guard let issuerNode = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "issuer missing") }
        issuer = try DistinguishedName(node: issuerNode)
        guard let validityNode = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "validity missing") }
        let validity = try validityNode.children(.sequence, "Validity")
        guard validity.count == 2 else { throw ASN1Error.invalidASN1Object(reason: "validity has \(validity.count) times") }
        let start = try UTCDate.parseTime(validity[0])
        let end = try UTCDate.parseTime(validity[1])
        notBefore = start.date
        notAfter = end.date
        hasNonConformingTime = start.generalizedBefore2050 || end.generalizedBefore2050
        guard let subjectNode = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "subject missing") }
        subject = try DistinguishedName(node: subjectNode)
        guard let keyNode = fields.next(), keyNode.identifier == .sequence else {
            throw ASN1Error.invalidASN1Object(reason: "subjectPublicKeyInfo missing")
        }
        subjectPublicKeyInfo = keyNode.bytes

        var ski: [UInt8]?
        var aki: [UInt8]?
        var usage: UInt16?
        var ca = false
        while let node = fields.next() {
            guard node.identifier == .context(3) else { continue }
            guard case .constructed(let wrapped) = node.content, let list = wrapped.first(where: { _ in true }) else { continue }
            for ext in try list.children(.sequence, "Extensions") {
                let parts = try ext.children(.sequence, "Extension")
                guard parts.count >= 2, let value = parts.last else { continue }
                let extensionValue = try value.octetStringBytes()
                guard parts[0].identifier == .objectIdentifier else { throw ASN1Error.invalidASN1Object(reason: "extnID") }
                let id = try parts[0].primitiveBytes()
                // id-ce (2.5.29) extensions: 55 1D nn
                guard id.count == 3, id.first == 0x55, id.dropFirst().first == 0x1D, let last = id.last else { continue }
                switch last {
                case 14:  // subjectKeyIdentifier
                    ski = try ASN1OctetString(berEncoded: BER.parse(extensionValue)).bytes.map { $0 }
                case 35:  // authorityKeyIdentifier
                    // AuthorityKeyIdentifier ::= SEQUENCE { keyIdentifier [0] IMPLICIT OCTET STRING OPTIONAL, … }
                    for child in try BER.parse(extensionValue).children(.sequence, "AuthorityKeyIdentifier")
                    where child.identifier == .context(0) {
                        aki = Array(try child.primitiveBytes())
                    }
                case 15:  // keyUsage
                    let bits = try ASN1BitString(berEncoded: BER.parse(extensionValue))
                    var value: UInt16 = 0
                    for (i, byte) in bits.bytes.prefix(2).enumerated() {
                        value |= UInt16(byte.bitReversed) << (8 * i)
                    }
                    usage = value
                case 19:  // basicConstraints
                    let seq = try BER.parse(extensionValue).children(.sequence, "BasicConstraints")
                    if let first = seq.first, first.identifier == .boolean { ca = try Bool(berEncoded: first) }
                default: break
                }
            }
        }
        subjectKeyIdentifier = ski
        authorityKeyIdentifier = aki
        keyUsage = usage
        isCA = ca
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
        try PublicKey(subjectPublicKeyInfo: subjectPublicKeyInfo)
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
