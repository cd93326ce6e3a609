public import SwiftASN1

/// A public key with its algorithm (RFC 5280 §4.1.2.7), as ChipAuthenticationPublicKeyInfo, DG15 and
/// certificates carry it:
///
/// ```
/// SubjectPublicKeyInfo ::= SEQUENCE {
///     algorithm         AlgorithmIdentifier,
///     subjectPublicKey  BIT STRING }
/// ```
///
/// Every key encoding here fills whole octets: a BIT STRING with unused bits is refused.
public struct SubjectPublicKeyInfo: SecurityInfoCoding, Sendable, Hashable {
    public var algorithm: AlgorithmIdentifier
    /// The BIT STRING's octets.
    public var subjectPublicKey: [UInt8]

    public init(algorithm: AlgorithmIdentifier, subjectPublicKey: [UInt8]) {
        self.algorithm = algorithm
        self.subjectPublicKey = subjectPublicKey
    }

    /// Parses one encoded SubjectPublicKeyInfo (BER accepted); trailing bytes are refused.
    public init(encoded bytes: [UInt8]) throws {
        try self.init(berEncoded: BER.parse(bytes))
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let algorithm = try AlgorithmIdentifier(berEncoded: &nodes)
            let key = try ASN1BitString(berEncoded: &nodes)
            guard key.paddingBits == 0 else {
                throw ASN1Error.invalidASN1Object(reason: "public key BIT STRING with unused bits")
            }
            return SubjectPublicKeyInfo(algorithm: algorithm, subjectPublicKey: Array(key.bytes))
        }
    }

    /// The DER encoding (for a key parsed from DER, the same bytes: ``init(encoded:)`` accepts BER).
    public func derEncoded() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(algorithm)
            try coder.serialize(ASN1BitString(bytes: ArraySlice(subjectPublicKey)))
        }
    }
}
