public import SwiftASN1

/// The signature algorithm of an ECDSA Active Authentication key (Doc 9303-11 §9.2.7), in DG14:
///
/// ```
/// ActiveAuthenticationInfo ::= SEQUENCE {
///     protocol            OBJECT IDENTIFIER (id-AA),
///     version             INTEGER,  -- MUST be 1
///     signatureAlgorithm  OBJECT IDENTIFIER }
/// ```
public struct ActiveAuthenticationInfo: SecurityInfoCoding, Sendable, Hashable {
    public var version: Int
    /// The OID of the signature algorithm (`ecdsa-with-SHA256`, ...).
    public var signatureAlgorithm: ASN1ObjectIdentifier
    /// The encoding as read (or as built).
    public var rawBytes: [UInt8]

    public init(version: Int = 1, signatureAlgorithm: ASN1ObjectIdentifier) {
        self.version = version
        self.signatureAlgorithm = signatureAlgorithm
        rawBytes = []
        rawBytes = (try? derEncoded()) ?? []
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard oid == SecurityProtocolOID.aa else {
                throw ASN1Error.invalidASN1Object(reason: "\(oid) is not id-AA")
            }
            let version = try smallInteger(&nodes, "ActiveAuthenticationInfo version")
            let algorithm = try ASN1ObjectIdentifier(berEncoded: &nodes)
            var info = ActiveAuthenticationInfo(version: version, signatureAlgorithm: algorithm)
            info.rawBytes = Array(rootNode.encodedBytes)
            return info
        }
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(SecurityProtocolOID.aa)
            try coder.serialize(version)
            try coder.serialize(signatureAlgorithm)
        }
    }
}
