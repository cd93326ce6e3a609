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
    var eContentType: String
    /// The eContent octets (segments of a constructed OCTET STRING joined); `nil` when detached.
    var eContent: [UInt8]?
    /// Certificates carried in the message, in order; entries that failed to parse are counted.
    var certificates: [Certificate]
    var unparsableCertificates: Int
    var signerInfos: [SignerInfo]

    /// Parses a ContentInfo whose content type is id-signedData. Trailing bytes after the
    /// ContentInfo are ignored by the caller's bounding (``BERExtent``), not here.
    init(contentInfo bytes: ArraySlice<UInt8>) throws {
        let root = try BER.parse(bytes)
        let info = try root.children(.sequence, "ContentInfo")
        guard info.count == 2, try info[0].oid() == OID.signedData else {
            throw ASN1Error.invalidASN1Object(reason: "ContentInfo is not id-signedData")
        }
        let wrapped = try info[1].children(.context(0), "content")
        guard wrapped.count == 1 else { throw ASN1Error.invalidASN1Object(reason: "ContentInfo content") }
        let fields = try wrapped[0].children(.sequence, "SignedData")
        guard fields.count >= 4 else { throw ASN1Error.invalidASN1Object(reason: "SignedData lacks fields") }
        guard fields[0].identifier == .integer else { throw ASN1Error.invalidASN1Object(reason: "SignedData version missing") }
        version = try Int(berEncoded: fields[0])
        guard fields[1].identifier == .set else { throw ASN1Error.invalidASN1Object(reason: "digestAlgorithms missing") }
        digestAlgorithms = try fields[1].children(.set, "digestAlgorithms").map { try AlgorithmIdentifier(node: $0) }

        let encap = try fields[2].children(.sequence, "EncapsulatedContentInfo")
        guard let typeNode = encap.first, typeNode.identifier == .objectIdentifier else {
            throw ASN1Error.invalidASN1Object(reason: "eContentType missing")
        }
        eContentType = try typeNode.oid()
        if encap.count >= 2 {
            let explicit = try encap[1].children(.context(0), "eContent")
            guard explicit.count == 1 else { throw ASN1Error.invalidASN1Object(reason: "eContent") }
            eContent = try explicit[0].octetStringBytes()
        }

        var certificates: [Certificate] = []
        var unparsable = 0
        var signerNode: ASN1Node?
        for field in fields.dropFirst(3) {
            switch field.identifier {
            case .context(0):
                for entry in try field.children(.context(0), "certificates") where entry.identifier == .sequence {
                    if let certificate = try? Certificate(node: entry) { certificates.append(certificate) } else { unparsable += 1 }
                }
            case .context(1): continue
            case .set: signerNode = field
            default: throw ASN1Error.invalidASN1Object(reason: "unexpected SignedData field \(field.identifier)")
            }
        }
        guard let signerNode else { throw ASN1Error.invalidASN1Object(reason: "signerInfos missing") }
        self.certificates = certificates
        unparsableCertificates = unparsable
        signerInfos = try signerNode.children(.set, "signerInfos").map { try SignerInfo(node: $0) }
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
    var signedAttributes: [String: [ASN1Node]]
    var signatureAlgorithm: AlgorithmIdentifier
    var signature: [UInt8]

    init(node: ASN1Node) throws {
        var fields = try node.children(.sequence, "SignerInfo").makeIterator()
        guard let versionNode = fields.next(), versionNode.identifier == .integer else {
            throw ASN1Error.invalidASN1Object(reason: "SignerInfo version missing")
        }
        version = try Int(berEncoded: versionNode)
        guard let sidNode = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "sid missing") }
        switch sidNode.identifier {
        case .sequence:
            let parts = try sidNode.children(.sequence, "IssuerAndSerialNumber")
            guard parts.count == 2, parts[1].identifier == .integer else {
                throw ASN1Error.invalidASN1Object(reason: "IssuerAndSerialNumber")
            }
            sid = .issuerAndSerialNumber(issuer: try DistinguishedName(node: parts[0]), serial: Array(try parts[1].primitiveBytes()))
        case .context(0):
            sid = .subjectKeyIdentifier(try sidNode.octetStringBytes(tag: .context(0)))
        default: throw ASN1Error.invalidASN1Object(reason: "SignerIdentifier")
        }
        guard let digestNode = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "digestAlgorithm missing") }
        digestAlgorithm = try AlgorithmIdentifier(node: digestNode)
        guard var next = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "signatureAlgorithm missing") }
        signedAttributes = [:]
        if next.identifier == .context(0) {
            var der = next.bytes
            // A BER indefinite-length SET would need re-encoding before hashing; DER is required here (RFC 5652 §5.3).
            guard der.count > 1, der[1] != 0x80 else { throw ASN1Error.invalidASN1Object(reason: "signedAttrs not DER") }
            der[0] = 0x31
            signedAttributesForSignature = der
            for attribute in try next.children(.context(0), "signedAttrs") {
                let parts = try attribute.children(.sequence, "Attribute")
                guard parts.count == 2 else { throw ASN1Error.invalidASN1Object(reason: "Attribute") }
                let type = try parts[0].oid()
                guard signedAttributes[type] == nil else {
                    throw ASN1Error.invalidASN1Object(reason: "signed attribute \(type) twice")
                }
                signedAttributes[type] = try parts[1].children(.set, "AttributeValues")
            }
            guard let after = fields.next() else { throw ASN1Error.invalidASN1Object(reason: "signatureAlgorithm missing") }
            next = after
        }
        signatureAlgorithm = try AlgorithmIdentifier(node: next)
        guard let signatureNode = fields.next(), signatureNode.identifier == .octetString else {
            throw SignedDataError.signatureMissing
        }
        signature = try signatureNode.octetStringBytes()
    }
}

/// A SignerInfo without its signature value.
enum SignedDataError: Error {
    case signatureMissing
}
