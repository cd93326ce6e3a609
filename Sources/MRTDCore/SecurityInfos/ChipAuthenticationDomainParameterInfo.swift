public import SwiftASN1

/// Domain parameters for Chip Authentication (TR-03110-3 §A.1.1.2; EF.CardAccess of ID cards):
///
/// ```
/// ChipAuthenticationDomainParameterInfo ::= SEQUENCE {
///     protocol         OBJECT IDENTIFIER (id-CA-DH | id-CA-ECDH),
///     domainParameter  AlgorithmIdentifier,
///     keyId            INTEGER OPTIONAL }
/// ```
public struct ChipAuthenticationDomainParameterInfo: SecurityInfoCoding, Sendable, Hashable {
    /// `id-CA-DH` or `id-CA-ECDH`.
    public var protocolOID: ASN1ObjectIdentifier
    public var domainParameter: AlgorithmIdentifier
    public var keyID: Int?
    /// The encoding as read (or as built).
    public var rawBytes: [UInt8]

    /// DH or ECDH.
    public var keyAgreement: KeyAgreementAlgorithm {
        protocolOID == SecurityProtocolOID.caDH ? .dh : .ecdh
    }

    public init(keyAgreement: KeyAgreementAlgorithm, domainParameter: AlgorithmIdentifier, keyID: Int? = nil) {
        protocolOID = keyAgreement == .dh ? SecurityProtocolOID.caDH : SecurityProtocolOID.caECDH
        self.domainParameter = domainParameter
        self.keyID = keyID
        rawBytes = []
        rawBytes = (try? derEncoded()) ?? []
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard oid == SecurityProtocolOID.caDH || oid == SecurityProtocolOID.caECDH else {
                throw ASN1Error.invalidASN1Object(reason: "\(oid) is neither id-CA-DH nor id-CA-ECDH")
            }
            let algorithm = try AlgorithmIdentifier(berEncoded: &nodes)
            let keyID = try optionalSmallInteger(&nodes, "ChipAuthenticationDomainParameterInfo keyId")
            return ChipAuthenticationDomainParameterInfo(
                protocolOID: oid, domainParameter: algorithm, keyID: keyID, rawBytes: Array(rootNode.encodedBytes))
        }
    }

    private init(protocolOID: ASN1ObjectIdentifier, domainParameter: AlgorithmIdentifier, keyID: Int?, rawBytes: [UInt8]) {
        self.protocolOID = protocolOID
        self.domainParameter = domainParameter
        self.keyID = keyID
        self.rawBytes = rawBytes
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendSecurityInfo(identifier, protocol: protocolOID, trailing: keyID) { try $0.serialize(domainParameter) }
    }
}
