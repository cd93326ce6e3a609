public import SwiftASN1

/// A Chip Authentication protocol the chip supports (Doc 9303-11 §9.2.5, TR-03110-3 §A.1.1.2):
///
/// ```
/// ChipAuthenticationInfo ::= SEQUENCE {
///     protocol  OBJECT IDENTIFIER (id-CA-DH-3DES-CBC-CBC | ... | id-CA-ECDH-AES-CBC-CMAC-256),
///     version   INTEGER,  -- MUST be 1 or 2
///     keyId     INTEGER OPTIONAL }
/// ```
public struct ChipAuthenticationInfo: SecurityInfoCoding, Sendable, Hashable {
    /// The protocol OID.
    public var protocolOID: ASN1ObjectIdentifier
    public var version: Int
    public var keyID: Int?
    /// The encoding as read (or as built).
    public var rawBytes: [UInt8]

    /// The protocol the OID names (always non-nil for a parsed info).
    public var chipAuthenticationProtocol: ChipAuthenticationProtocol? { ChipAuthenticationProtocol(oid: protocolOID) }

    public init(protocol caProtocol: ChipAuthenticationProtocol, version: Int = 1, keyID: Int? = nil) {
        protocolOID = caProtocol.oid
        self.version = version
        self.keyID = keyID
        rawBytes = []
        rawBytes = (try? derEncoded()) ?? []
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard ChipAuthenticationProtocol(oid: oid) != nil else {
                throw ASN1Error.invalidASN1Object(reason: "\(oid) is no Chip Authentication protocol")
            }
            let version = try smallInteger(&nodes, "ChipAuthenticationInfo version")
            let keyID = try optionalSmallInteger(&nodes, "ChipAuthenticationInfo keyId")
            return ChipAuthenticationInfo(protocolOID: oid, version: version, keyID: keyID,
                                          rawBytes: Array(rootNode.encodedBytes))
        }
    }

    private init(protocolOID: ASN1ObjectIdentifier, version: Int, keyID: Int?, rawBytes: [UInt8]) {
        self.protocolOID = protocolOID
        self.version = version
        self.keyID = keyID
        self.rawBytes = rawBytes
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendSecurityInfo(identifier, protocol: protocolOID, trailing: keyID) { try $0.serialize(version) }
    }
}
