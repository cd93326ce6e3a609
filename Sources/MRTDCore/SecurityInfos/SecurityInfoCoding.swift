public import SwiftASN1

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
