import SwiftASN1

/// The SecurityInfo types are parsed as BER (DER is a subset) from the bytes as read and keep
/// those bytes; they serialize as DER.
protocol SecurityInfoCoding: DERImplicitlyTaggable, BERImplicitlyTaggable {}

extension SecurityInfoCoding {
    public static var defaultIdentifier: ASN1Identifier { .sequence }

    public init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        try self.init(berEncoded: rootNode, withIdentifier: identifier)
    }

    /// The DER encoding.
    public func derEncoded() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }
}

extension DER.Serializer {
    /// `SEQUENCE { protocol OBJECT IDENTIFIER, <one element>, INTEGER OPTIONAL }`: the shape of
    /// PACEInfo, PACEDomainParameterInfo and the Chip Authentication infos (Doc 9303-11 §9.2,
    /// TR-03110-3 §A.1.1), the trailing INTEGER a parameterId or keyId.
    mutating func appendSecurityInfo(
        _ identifier: ASN1Identifier, protocol oid: ASN1ObjectIdentifier, trailing integer: Int?,
        element: (inout DER.Serializer) throws -> Void
    ) throws {
        try appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(oid)
            try element(&coder)
            if let integer { try coder.serialize(integer) }
        }
    }
}

/// An unsigned INTEGER's magnitude without leading zero bytes (at least one byte).
func unsignedMagnitude(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
    let trimmed = bytes.drop { $0 == 0 }
    return trimmed.isEmpty ? [0] : Array(trimmed)
}

/// A small non-negative INTEGER (version, parameter ID, key ID), refusing values over `Int.max`.
func smallInteger(_ nodes: inout ASN1NodeCollection.Iterator, _ what: String) throws -> Int {
    let value = try Int(berEncoded: &nodes)
    guard value >= 0 else { throw ASN1Error.invalidASN1Object(reason: "\(what) is negative") }
    return value
}

/// An optional trailing INTEGER.
func optionalSmallInteger(_ nodes: inout ASN1NodeCollection.Iterator, _ what: String) throws -> Int? {
    guard let node = nodes.next() else { return nil }
    return try smallIntegerNode(node, what)
}

/// A non-negative INTEGER node.
func smallIntegerNode(_ node: ASN1Node, _ what: String) throws -> Int {
    let value = try Int(berEncoded: node)
    guard value >= 0 else { throw ASN1Error.invalidASN1Object(reason: "\(what) is negative") }
    return value
}

/// The next element of a SEQUENCE, which must be present.
func requiredNode(_ nodes: inout ASN1NodeCollection.Iterator, _ what: String) throws -> ASN1Node {
    guard let node = nodes.next() else { throw ASN1Error.invalidASN1Object(reason: "\(what) missing") }
    return node
}
