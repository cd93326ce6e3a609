public import SwiftASN1

/// A PACE protocol the chip supports (Doc 9303-11 §9.2.1, BSI TR-03110-3 §A.1.1.1):
///
/// ```
/// PACEInfo ::= SEQUENCE {
///     protocol     OBJECT IDENTIFIER (id-PACE-DH-GM-3DES-CBC-CBC | ... | id-PACE-ECDH-CAM-AES-CBC-CMAC-256),
///     version      INTEGER,  -- SHOULD be 2
///     parameterId  INTEGER OPTIONAL }
/// ```
///
/// `parameterId` is a standardized domain parameter ID (0-31) or names a PACEDomainParameterInfo
/// with explicit parameters (32 and above, or any ID when such an info carries it).
public struct PACEInfo: SecurityInfoCoding, Sendable, Hashable {
    /// The protocol OID.
    public var protocolOID: ASN1ObjectIdentifier
    public var version: Int
    public var parameterID: Int?
    /// The encoding as read (or as built).
    public var rawBytes: [UInt8]

    /// The protocol the OID names (always non-nil for a parsed PACEInfo).
    public var paceProtocol: PACEProtocol? { PACEProtocol(oid: protocolOID) }

    public init(protocol paceProtocol: PACEProtocol, version: Int = 2, parameterID: Int?) {
        protocolOID = paceProtocol.oid
        self.version = version
        self.parameterID = parameterID
        rawBytes = []
        rawBytes = (try? derEncoded()) ?? []
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard PACEProtocol(oid: oid) != nil else {
                throw ASN1Error.invalidASN1Object(reason: "\(oid) is no PACE protocol")
            }
            let version = try smallInteger(&nodes, "PACEInfo version")
            let parameterID = try optionalSmallInteger(&nodes, "PACEInfo parameterId")
            var info = PACEInfo(protocolOID: oid, version: version, parameterID: parameterID)
            info.rawBytes = Array(rootNode.encodedBytes)
            return info
        }
    }

    private init(protocolOID: ASN1ObjectIdentifier, version: Int, parameterID: Int?) {
        self.protocolOID = protocolOID
        self.version = version
        self.parameterID = parameterID
        rawBytes = []
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendSecurityInfo(identifier, protocol: protocolOID, trailing: parameterID) { try $0.serialize(version) }
    }
}
