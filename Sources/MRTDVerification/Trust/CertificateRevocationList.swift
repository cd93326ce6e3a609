public import FoundationEssentials
import MRTDCrypto
import MRTDCore
import SwiftASN1

/// An X.509 CRL (RFC 5280 §5.1), as CSCAs publish them (Doc 9303-12 §7.1.4).
///
/// ```
/// CertificateList ::= SEQUENCE { tbsCertList TBSCertList, signatureAlgorithm AlgorithmIdentifier,
///                                signatureValue BIT STRING }
/// TBSCertList ::= SEQUENCE { version Version OPTIONAL, signature AlgorithmIdentifier, issuer Name,
///     thisUpdate Time, nextUpdate Time OPTIONAL,
///     revokedCertificates SEQUENCE OF SEQUENCE { userCertificate CertificateSerialNumber,
///         revocationDate Time, crlEntryExtensions Extensions OPTIONAL } OPTIONAL,
///     crlExtensions [0] EXPLICIT Extensions OPTIONAL }
/// ```
public struct CertificateRevocationList: Sendable, BERReadable {
    public let derBytes: [UInt8]
    let tbsBytes: [UInt8]
    let signatureAlgorithm: AlgorithmIdentifier
    let signatureValue: [UInt8]
    public let issuer: DistinguishedName
    public let thisUpdate: Date
    public let nextUpdate: Date?
    /// Revoked serial numbers (normalised content octets).
    let revokedSerials: Set<[UInt8]>

    /// Parses one DER CRL.
    public init(derEncoded bytes: [UInt8]) throws {
        try self.init(berEncoded: BER.parse(bytes))
    }

    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        derBytes = rootNode.bytes
        let envelope = try SignedEnvelope(berEncoded: rootNode, withIdentifier: identifier)
        let parts = envelope.parts
        tbsBytes = parts.toBeSigned
        signatureAlgorithm = parts.algorithm.owned  // kept by the trust store: not the CRL file's bytes
        signatureValue = parts.signature
        // TBSCertList (the ASN.1 above).
        (issuer, thisUpdate, nextUpdate, revokedSerials) = try BER.sequence(envelope.toBeSigned, identifier: .sequence) { nodes in
            _ = nodes.next(ifIdentifier: .integer)  // version
            _ = try nodes.required("signature")
            let issuer = try DistinguishedName(berEncoded: nodes.required("issuer"))
            let thisUpdate = try UTCDate.parseTime(nodes.required("thisUpdate")).date
            var next: Date?
            var revoked = Set<[UInt8]>()
            // nextUpdate, revokedCertificates and crlExtensions, told apart by their tags.
            while let node = nodes.next() {
                if node.identifier == .utcTime || node.identifier == .generalizedTime {
                    next = try UTCDate.parseTime(node).date
                } else if node.identifier == .sequence {
                    try BER.sequence(node, identifier: .sequence) { entries in
                        while let entry = entries.next() {
                            try BER.sequence(entry, identifier: .sequence) { parts in
                                defer { parts.skipRemaining() }
                                guard let serial = parts.next(ifIdentifier: .integer) else { return }
                                revoked.insert(Array(SignedDataVerifier.normalizedSerial(Array(try serial.primitiveBytes()))))
                            }
                        }
                    }
                }
            }
            return (issuer, thisUpdate, next, revoked)
        }
    }

    /// Whether the certificate with this serial number is listed as revoked.
    public func isRevoked(serialNumber: [UInt8]) -> Bool {
        revokedSerials.contains(Array(SignedDataVerifier.normalizedSerial(serialNumber)))
    }

    /// Number of revoked entries.
    public var revokedCount: Int { revokedSerials.count }

    /// Whether `issuerKey` signed this CRL.
    func isSigned(by issuerKey: PublicKey) -> Bool {
        guard let scheme = try? signatureAlgorithm.signatureScheme(defaultDigest: nil) else { return false }
        return (try? issuerKey.verify(signature: signatureValue, message: tbsBytes, scheme: scheme)) ?? false
    }
}
