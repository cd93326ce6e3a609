public import Foundation
import MRTDCrypto
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
public struct CertificateRevocationList: Sendable {
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
        let root = try BER.parse(bytes)
        derBytes = bytes
        let outer = try root.children(.sequence, "CertificateList")
        guard outer.count == 3 else { throw ASN1Error.invalidASN1Object(reason: "CertificateList") }
        tbsBytes = outer[0].bytes
        signatureAlgorithm = try AlgorithmIdentifier(node: outer[1])
        signatureValue = Array(try ASN1BitString(berEncoded: outer[2]).bytes)
        var fields = try outer[0].children(.sequence, "TBSCertList")[...]
        if fields.first?.identifier == .integer { fields = fields.dropFirst() }
        guard fields.count >= 3 else { throw ASN1Error.invalidASN1Object(reason: "TBSCertList lacks fields") }
        var iterator = fields.dropFirst().makeIterator()  // skip `signature`
        guard let issuerNode = iterator.next(), let thisNode = iterator.next() else {
            throw ASN1Error.invalidASN1Object(reason: "TBSCertList")
        }
        issuer = try DistinguishedName(node: issuerNode)
        thisUpdate = try UTCDate.parseTime(thisNode).date
        var next: Date?
        var revoked = Set<[UInt8]>()
        while let node = iterator.next() {
            if node.identifier == .utcTime || node.identifier == .generalizedTime {
                next = try UTCDate.parseTime(node).date
            } else if node.identifier == .sequence {
                for entry in try node.children(.sequence, "revokedCertificates") {
                    let parts = try entry.children(.sequence, "revokedCertificate")
                    guard let serial = parts.first, serial.identifier == .integer else { continue }
                    revoked.insert(Array(SignedDataVerifier.normalizedSerial(Array(try serial.primitiveBytes()))))
                }
            }
        }
        nextUpdate = next
        revokedSerials = revoked
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
