public import Foundation
import MRTDCore
public import MRTDCrypto
import MRTDSimulation
public import SwiftASN1

/// A CMS SignedData in a ContentInfo (RFC 5652 §5), built field by field so that tests can
/// reproduce the TR-03105 LDS_H / ICAO-P4 LDS_D cases: wrong versions, MD5, missing or wrong
/// signed attributes, a corrupted or missing signature, signer by SKI or issuerAndSerialNumber,
/// and BER with indefinite lengths as some chips write it.
public struct TestSignedData: Sendable {
    public enum SignerIdentifier: Sendable {
        /// Issuer name (DER) and serial number.
        case issuerAndSerialNumber(issuer: [UInt8], serial: [UInt8])
        case subjectKeyIdentifier([UInt8])
    }

    public enum SignatureValue: Sendable { case valid, corrupted, missing, empty }

    public var version = 3
    /// Leave out the SignedData version, the SignerInfo version or the digestAlgorithms SET
    /// (TR-03105 LDS_H_20/21/22/26).
    public var omitVersion = false
    public var omitSignerVersion = false
    public var omitDigestAlgorithms = false
    /// The digestAlgorithms SET as DER AlgorithmIdentifiers; nil writes the signer's digest.
    public var digestAlgorithms: [[UInt8]]?
    public var eContentType: ASN1ObjectIdentifier
    /// nil leaves out `eContentType` entirely (LDS_H_25).
    public var omitEContentType = false
    public var eContent: [UInt8]
    /// DER certificates to embed.
    public var certificates: [[UInt8]]
    public var signerVersion: Int?
    public var signerIdentifier: SignerIdentifier
    public var digest: DigestAlgorithm
    /// Replaces the SignerInfo's digestAlgorithm (DER AlgorithmIdentifier).
    public var signerDigestOverride: [UInt8]?
    public var scheme: SignatureScheme
    /// Replaces the SignerInfo's signatureAlgorithm (DER AlgorithmIdentifier).
    public var signatureAlgorithmOverride: [UInt8]?
    /// The contentType attribute's value; nil omits the attribute.
    public var contentTypeAttribute: ASN1ObjectIdentifier?
    /// Replaces the messageDigest attribute's value.
    public var messageDigestOverride: [UInt8]?
    public var omitMessageDigest = false
    public var signingTime: Date?
    public var signature: SignatureValue = .valid
    /// Indefinite lengths on the constructed outer layers and the eContent split into a
    /// constructed OCTET STRING (X.690 §8.7.3), as BER allows.
    public var indefiniteLength = false

    public init(
        eContentType: ASN1ObjectIdentifier, eContent: [UInt8], certificates: [[UInt8]], signerIdentifier: SignerIdentifier,
        digest: DigestAlgorithm, scheme: SignatureScheme
    ) {
        self.eContentType = eContentType
        self.eContent = eContent
        self.certificates = certificates
        self.signerIdentifier = signerIdentifier
        self.digest = digest
        self.scheme = scheme
        contentTypeAttribute = eContentType
    }

    /// The encoded ContentInfo, signed with `key`.
    public func build(signedBy key: PrivateKey) throws -> [UInt8] {
        typealias D = DERBuilder
        typealias CMS = ASN1ObjectIdentifier.CMS
        func constructed(_ tag: UInt, _ parts: [UInt8]...) -> [UInt8] {
            let content = parts.flatMap { $0 }
            guard indefiniteLength else { return D.tlv(tag, content) }
            return TLV.encodeTag(tag) + [0x80] + content + [0x00, 0x00]
        }
        var attributes: [[UInt8]] = []
        if let contentTypeAttribute {
            attributes.append(D.sequence(D.oid(CMS.contentType), D.set([D.oid(contentTypeAttribute)])))
        }
        if let signingTime {
            attributes.append(D.sequence(D.oid(CMS.signingTime), D.set([D.utcTime(signingTime)])))
        }
        if !omitMessageDigest {
            let value = messageDigestOverride ?? digest.hash(eContent)
            attributes.append(D.sequence(D.oid(CMS.messageDigest), D.set([D.octetString(value)])))
        }
        let signedAttributes = D.set(attributes)
        var signatureBytes: [UInt8] = []
        if signature != .empty, signature != .missing {
            signatureBytes = try key.signature(message: signedAttributes, scheme: scheme)
            if signature == .corrupted { signatureBytes[signatureBytes.count / 2] ^= 0x01 }
        }
        let sid: [UInt8]
        let defaultVersion: Int
        switch signerIdentifier {
        case .issuerAndSerialNumber(let issuer, let serial):
            sid = D.sequence(issuer, D.integer(unsigned: serial))
            defaultVersion = 1
        case .subjectKeyIdentifier(let ski):
            sid = D.tlv(0x80, ski)
            defaultVersion = 3
        }
        var signerInfo: [[UInt8]] = [
            omitSignerVersion ? [] : D.integer(signerVersion ?? defaultVersion), sid, signerDigestOverride ?? D.algorithm(digest.oid),
            [0xA0] + Array(signedAttributes.dropFirst()),
            signatureAlgorithmOverride ?? D.signatureAlgorithm(scheme),
        ]
        if signature != .missing { signerInfo.append(D.octetString(signatureBytes)) }

        let eContentField: [UInt8]
        if indefiniteLength {
            let half = eContent.count / 2
            eContentField = constructed(0xA0, constructed(0x24, D.octetString(Array(eContent.prefix(half))),
                                                          D.octetString(Array(eContent.dropFirst(half)))))
        } else {
            eContentField = D.tlv(0xA0, D.octetString(eContent))
        }
        let encapsulated = constructed(0x30, omitEContentType ? [] : D.oid(eContentType), eContentField)
        let digestSet = D.set(digestAlgorithms ?? [D.algorithm(digest.oid)])
        var fields: [UInt8] = (omitVersion ? [] : D.integer(version)) + (omitDigestAlgorithms ? [] : digestSet) + encapsulated
        if !certificates.isEmpty { fields += D.tlv(0xA0, certificates.flatMap { $0 }) }
        fields += D.set([D.sequence(signerInfo)])
        return constructed(0x30, D.oid(CMS.signedData), constructed(0xA0, constructed(0x30, fields)))
    }
}
