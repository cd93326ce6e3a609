public import FoundationEssentials
import MRTDCore
public import MRTDCrypto
import SwiftASN1

/// An X.509 v3 certificate built field by field (RFC 5280 §4.1) for passive authentication
/// tests: every field can be omitted or broken to reproduce the TR-03105 PKI test cases.
public struct CertificateBuilder: Sendable {
    /// Fields that can be left out of the TBSCertificate (TR-03105 LDS_H_50/55/57, LDS_H_51/52).
    public enum Field: Sendable, Hashable { case serialNumber, issuer, validity, innerSignature }

    public var serialNumber: [UInt8] = [0x01]
    /// The TBSCertificate version value (2 = v3); nil leaves the field out (TR-03105 LDS_H_48/49).
    public var version: Int? = 2
    public var issuer: [UInt8]
    public var subject: [UInt8]
    public var notBefore: Date
    public var notAfter: Date
    /// Write the validity as GeneralizedTime even before 2050 (RFC 5280 violation, LDS_H_56).
    public var forceGeneralizedTime = false
    /// DER SubjectPublicKeyInfo of the subject key.
    public var subjectPublicKeyInfo: [UInt8]
    /// How the issuer signs (also written as the algorithm identifiers).
    public var scheme: SignatureScheme
    /// Replaces the outer signatureAlgorithm (DER AlgorithmIdentifier).
    public var outerAlgorithmOverride: [UInt8]?
    /// Replaces the TBSCertificate `signature` field.
    public var innerAlgorithmOverride: [UInt8]?
    public var isCA: Bool
    /// keyUsage bits (bit 0 digitalSignature, bit 5 keyCertSign, bit 6 cRLSign); nil omits it.
    public var keyUsage: UInt16?
    /// Whether keyUsage is marked critical (Doc 9303-12 requires it; TR-03105 LDS_H_62 clears it).
    public var keyUsageCritical = true
    public var subjectKeyIdentifier: [UInt8]?
    public var authorityKeyIdentifier: [UInt8]?
    /// Writes the authorityKeyIdentifier extension with the issuer's serial number only, no
    /// keyIdentifier (TR-03105 LDS_H_60).
    public var authorityKeyIdentifierWithoutKeyID = false
    public var omitted: Set<Field> = []
    /// Flip a bit of the signature, or leave it empty.
    public var corruptSignature = false
    public var emptySignature = false

    public init(
        issuer: [UInt8], subject: [UInt8], subjectPublicKeyInfo: [UInt8], scheme: SignatureScheme, isCA: Bool,
        notBefore: Date, notAfter: Date
    ) {
        self.issuer = issuer
        self.subject = subject
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
        self.scheme = scheme
        self.isCA = isCA
        self.notBefore = notBefore
        self.notAfter = notAfter
        keyUsage = isCA ? 0x0060 : 0x0001
        subjectKeyIdentifier = Self.keyIdentifier(subjectPublicKeyInfo)
    }

    /// RFC 5280 §4.2.1.2 method-like identifier: SHA-1 of the SubjectPublicKeyInfo.
    public static func keyIdentifier(_ spki: [UInt8]) -> [UInt8] { DigestAlgorithm.sha1.hash(spki) }

    /// The DER certificate, signed by `issuerKey`.
    public func issue(signedBy issuerKey: PrivateKey) throws -> [UInt8] {
        typealias D = DERBuilder
        typealias Extension = ASN1ObjectIdentifier.CertificateExtension
        let algorithm = D.signatureAlgorithm(scheme)
        func time(_ date: Date) -> [UInt8] { forceGeneralizedTime ? D.generalizedTime(date) : D.time(date) }
        var extensions: [[UInt8]] = []
        if let ski = subjectKeyIdentifier {
            extensions.append(D.sequence(D.oid(Extension.subjectKeyIdentifier), D.octetString(D.octetString(ski))))
        }
        if authorityKeyIdentifierWithoutKeyID {
            // AuthorityKeyIdentifier { authorityCertSerialNumber [2] } (RFC 5280 §4.2.1.1) without [0].
            extensions.append(D.sequence(D.oid(Extension.authorityKeyIdentifier), D.octetString(D.sequence(D.tlv(0x82, [0x01])))))
        } else if let aki = authorityKeyIdentifier {
            extensions.append(D.sequence(D.oid(Extension.authorityKeyIdentifier), D.octetString(D.sequence(D.tlv(0x80, aki)))))
        }
        if let keyUsage {
            // BIT STRING: bit 0 is the most significant bit of the first octet.
            let first = UInt8(keyUsage & 0xFF).bitReversed
            let second = UInt8(keyUsage >> 8).bitReversed
            let bits: [UInt8] = second == 0 ? [first] : [first, second]
            extensions.append(D.sequence(D.oid(Extension.keyUsage), keyUsageCritical ? D.boolean(true) : [], D.octetString(D.bitString(bits))))
        }
        if isCA {
            extensions.append(D.sequence(D.oid(Extension.basicConstraints), D.boolean(true), D.octetString(D.sequence(D.boolean(true)))))
        }
        var tbs: [[UInt8]] = version.map { [D.tlv(0xA0, D.integer($0))] } ?? []
        if !omitted.contains(.serialNumber) { tbs.append(D.integer(unsigned: serialNumber)) }
        if !omitted.contains(.innerSignature) { tbs.append(innerAlgorithmOverride ?? algorithm) }
        if !omitted.contains(.issuer) { tbs.append(issuer) }
        if !omitted.contains(.validity) { tbs.append(D.sequence(time(notBefore), time(notAfter))) }
        tbs.append(subject)
        tbs.append(subjectPublicKeyInfo)
        if !extensions.isEmpty { tbs.append(D.tlv(0xA3, D.sequence(extensions))) }
        let tbsBytes = D.sequence(tbs)
        // `signature(message:scheme:)`: plain r || s for the BSI ecdsa-plain schemes.
        var signature = emptySignature ? [] : try issuerKey.signature(message: tbsBytes, scheme: scheme)
        if corruptSignature, !signature.isEmpty { signature[signature.count / 2] ^= 0x01 }
        return D.sequence(tbsBytes, outerAlgorithmOverride ?? algorithm, D.bitString(signature))
    }
}

/// An X.509 CRL (RFC 5280 §5.1) revoking the given serial numbers.
public struct CRLBuilder: Sendable {
    public var issuer: [UInt8]
    public var revokedSerials: [[UInt8]]
    public var thisUpdate: Date
    public var nextUpdate: Date
    public var scheme: SignatureScheme

    public init(issuer: [UInt8], revokedSerials: [[UInt8]], thisUpdate: Date, nextUpdate: Date, scheme: SignatureScheme) {
        self.issuer = issuer
        self.revokedSerials = revokedSerials
        self.thisUpdate = thisUpdate
        self.nextUpdate = nextUpdate
        self.scheme = scheme
    }

    public func issue(signedBy key: PrivateKey) throws -> [UInt8] {
        typealias D = DERBuilder
        typealias Extension = ASN1ObjectIdentifier.CertificateExtension
        let algorithm = D.signatureAlgorithm(scheme)
        var tbs: [[UInt8]] = [D.integer(1), algorithm, issuer, D.time(thisUpdate), D.time(nextUpdate)]
        if !revokedSerials.isEmpty {
            tbs.append(D.sequence(revokedSerials.map { D.sequence(D.integer(unsigned: $0), D.time(thisUpdate)) }))
        }
        let tbsBytes = D.sequence(tbs)
        return D.sequence(tbsBytes, algorithm, D.bitString(try key.sign(message: tbsBytes, scheme: scheme)))
    }
}
