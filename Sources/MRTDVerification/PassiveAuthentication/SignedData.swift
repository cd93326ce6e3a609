import MRTDCore
import SwiftASN1

/// CMS `SignedData` in a `ContentInfo` (RFC 5652 §3, §5): the container of EF.SOD
/// (Doc 9303-10 §4.6.2), EF.CardSecurity (BSI TR-03110-3 §A.1.2.5) and CSCA master lists
/// (Doc 9303-12 §9).
///
/// ```
/// ContentInfo ::= SEQUENCE { contentType ContentType, content [0] EXPLICIT ANY DEFINED BY contentType }
/// SignedData ::= SEQUENCE {
///     version CMSVersion,
///     digestAlgorithms DigestAlgorithmIdentifiers,
///     encapContentInfo EncapsulatedContentInfo,
///     certificates [0] IMPLICIT CertificateSet OPTIONAL,
///     crls [1] IMPLICIT RevocationInfoChoices OPTIONAL,
///     signerInfos SignerInfos }
/// EncapsulatedContentInfo ::= SEQUENCE { eContentType ContentType, eContent [0] EXPLICIT OCTET STRING OPTIONAL }
/// ```
///
/// Parsed as BER (chips write indefinite lengths and constructed OCTET STRINGs); structural
/// checks only — ``SignedDataVerifier`` decides whether it is acceptable.
struct SignedData: Sendable {
    var version: Int
    var digestAlgorithms: [AlgorithmIdentifier]
    var eContentType: ASN1ObjectIdentifier
    /// The eContent octets (segments of a constructed OCTET STRING joined); `nil` when detached.
    var eContent: [UInt8]?
    /// Certificates carried in the message, in order; entries that failed to parse are counted.
    var certificates: [Certificate]
    var unparsableCertificates: Int
    var signerInfos: [SignerInfo]
}

extension SignedData: BERReadable {
    /// Parses a ContentInfo whose content type is id-signedData. Trailing bytes after the
    /// ContentInfo are ignored by the caller's bounding (``BERExtent``), not here.
    init(contentInfo bytes: ArraySlice<UInt8>) throws {
        let signedData = try BER.sequence(BER.parse(bytes), identifier: .sequence) { nodes in
            guard let type = nodes.next(ifIdentifier: .objectIdentifier), try type.oid() == ASN1ObjectIdentifier.CMS.signedData,
                  let content = nodes.next() else {
                throw ASN1Error.invalidASN1Object(reason: "ContentInfo is not id-signedData")
            }
            return try BER.explicitlyTagged(content, tagNumber: 0, tagClass: .contextSpecific) { $0 }
        }
        self = try SignedData(berEncoded: signedData)
    }

    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let version = try Int(berEncoded: nodes.required("SignedData version", identifier: .integer))
            let digestAlgorithms = try BER.set(nodes.required("digestAlgorithms", identifier: .set), identifier: .set) { set in
                var algorithms: [AlgorithmIdentifier] = []
                while let node = set.next() { algorithms.append(try AlgorithmIdentifier(berEncoded: node)) }
                return algorithms
            }
            let (eContentType, eContent) = try Self.encapsulatedContentInfo(nodes.required("encapContentInfo"))
            var certificates: [Certificate] = []
            var unparsable = 0
            var signerNode: ASN1Node?
            while let field = nodes.next() {
                switch field.identifier {
                case .context(0):
                    try BER.set(field, identifier: .context(0)) { entries in
                        // Other CertificateChoices (attribute certificates, [0]-[3]) are not certificates.
                        while let entry = entries.next() {
                            guard entry.identifier == .sequence else { continue }
                            if let certificate = try? Certificate(berEncoded: entry) { certificates.append(certificate) } else { unparsable += 1 }
                        }
                    }
                case .context(1): continue
                case .set: signerNode = field
                default: throw ASN1Error.invalidASN1Object(reason: "unexpected SignedData field \(field.identifier)")
                }
            }
            guard let signerNode else { throw ASN1Error.invalidASN1Object(reason: "signerInfos missing") }
            let signerInfos = try BER.set(signerNode, identifier: .set) { set in
                var signerInfos: [SignerInfo] = []
                while let node = set.next() { signerInfos.append(try SignerInfo(berEncoded: node)) }
                return signerInfos
            }
            return SignedData(
                version: version, digestAlgorithms: digestAlgorithms, eContentType: eContentType, eContent: eContent,
                certificates: certificates, unparsableCertificates: unparsable, signerInfos: signerInfos)
        }
    }

    /// `EncapsulatedContentInfo ::= SEQUENCE { eContentType ContentType, eContent [0] EXPLICIT OCTET STRING OPTIONAL }`;
    /// the eContent of a constructed (BER) OCTET STRING is joined.
    private static func encapsulatedContentInfo(_ node: ASN1Node) throws -> (type: ASN1ObjectIdentifier, content: [UInt8]?) {
        try BER.sequence(node, identifier: .sequence) { nodes in
            defer { nodes.skipRemaining() }
            let type = try nodes.required("eContentType", identifier: .objectIdentifier).oid()
            let content = try BER.optionalExplicitlyTagged(&nodes, tagNumber: 0, tagClass: .contextSpecific) {
                try $0.octetStringBytes()
            }
            guard content != nil || nodes.next() == nil else { throw ASN1Error.invalidASN1Object(reason: "eContent") }
            return (type, content)
        }
    }
}

/// ```
/// SignerInfo ::= SEQUENCE {
///     version CMSVersion,
///     sid SignerIdentifier,
///     digestAlgorithm DigestAlgorithmIdentifier,
///     signedAttrs [0] IMPLICIT SignedAttributes OPTIONAL,
///     signatureAlgorithm SignatureAlgorithmIdentifier,
///     signature SignatureValue,
///     unsignedAttrs [1] IMPLICIT UnsignedAttributes OPTIONAL }
/// SignerIdentifier ::= CHOICE { issuerAndSerialNumber IssuerAndSerialNumber,
///                               subjectKeyIdentifier [0] SubjectKeyIdentifier }
/// ```
struct SignerInfo: Sendable {
    enum Identifier: Sendable, Equatable {
        case issuerAndSerialNumber(issuer: DistinguishedName, serial: [UInt8])
        case subjectKeyIdentifier([UInt8])
    }

    var version: Int
    var sid: Identifier
    var digestAlgorithm: AlgorithmIdentifier
    /// The DER bytes the signature covers: signedAttrs with its tag turned into SET (RFC 5652 §5.4).
    var signedAttributesForSignature: [UInt8]?
    /// Signed attributes by type: each value set's elements as encoded.
    var signedAttributes: [ASN1ObjectIdentifier: [ASN1Node]]
    var signatureAlgorithm: AlgorithmIdentifier
    var signature: [UInt8]

    private init(fields: inout ASN1NodeCollection.Iterator) throws {
        guard let versionNode = fields.next(), versionNode.identifier == .integer else {
            throw ASN1Error.invalidASN1Object(reason: "SignerInfo version missing")
        }
        version = try Int(berEncoded: versionNode)
        guard let sidNode = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "sid missing") }
        switch sidNode.identifier {
        case .sequence:
            sid = try BER.sequence(sidNode, identifier: .sequence) { parts in
                let issuer = try DistinguishedName(berEncoded: parts.required("IssuerAndSerialNumber issuer"))
                let serial = try parts.required("IssuerAndSerialNumber serialNumber", identifier: .integer).primitiveBytes()
                return .issuerAndSerialNumber(issuer: issuer, serial: Array(serial))
            }
        case .context(0):
            sid = .subjectKeyIdentifier(try sidNode.octetStringBytes(tag: .context(0)))
        default: throw ASN1Error.invalidASN1Object(reason: "SignerIdentifier")
        }
        guard let digestNode = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "digestAlgorithm missing") }
        digestAlgorithm = try AlgorithmIdentifier(berEncoded: digestNode)
        guard var next = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "signatureAlgorithm missing") }
        signedAttributes = [:]
        if next.identifier == .context(0) {
            var der = next.bytes
            // A BER indefinite-length SET would need re-encoding before hashing; DER is required here (RFC 5652 §5.3).
            guard der.count > 1, der[1] != 0x80 else { throw ASN1Error.invalidASN1Object(reason: "signedAttrs not DER") }
            der[0] = 0x31
            signedAttributesForSignature = der
            // Attribute ::= SEQUENCE { attrType OBJECT IDENTIFIER, attrValues SET OF AttributeValue }
            var attributes: [ASN1ObjectIdentifier: [ASN1Node]] = [:]
            try BER.set(next, identifier: .context(0)) { nodes in
                while let attribute = nodes.next() {
                    let (type, values) = try BER.sequence(attribute, identifier: .sequence) { parts in
                        (try parts.required("Attribute attrType").oid(),
                         try parts.required("Attribute attrValues").children(.set, "AttributeValues"))
                    }
                    guard attributes[type] == nil else {
                        throw ASN1Error.invalidASN1Object(reason: "signed attribute \(type) twice")
                    }
                    attributes[type] = values
                }
            }
            signedAttributes = attributes
            guard let after = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "signatureAlgorithm missing") }
            next = after
        }
        signatureAlgorithm = try AlgorithmIdentifier(berEncoded: next)
        guard let signatureNode = fields.next(), signatureNode.identifier == .octetString else {
            throw SignedDataError.signatureMissing
        }
        signature = try signatureNode.octetStringBytes()
    }
}

extension SignerInfo: BERReadable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { fields in
            defer { fields.skipRemaining() }  // unsignedAttrs
            return try SignerInfo(fields: &fields)
        }
    }
}

/// A SignerInfo without its signature value.
enum SignedDataError: Error {
    case signatureMissing
}
