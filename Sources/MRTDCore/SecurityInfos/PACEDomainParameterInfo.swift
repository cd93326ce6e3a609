public import SwiftASN1

/// Explicit (or proprietary) domain parameters for PACE (Doc 9303-11 §9.2.2, TR-03110-3 §A.1.1.1):
///
/// ```
/// PACEDomainParameterInfo ::= SEQUENCE {
///     protocol         OBJECT IDENTIFIER (id-PACE-DH-GM | id-PACE-ECDH-GM | id-PACE-DH-IM |
///                                         id-PACE-ECDH-IM | id-PACE-ECDH-CAM),
///     domainParameter  AlgorithmIdentifier,
///     parameterId      INTEGER OPTIONAL }
/// ```
public struct PACEDomainParameterInfo: SecurityInfoCoding, Sendable, Hashable {
    /// The family OID (`id-PACE-ECDH-GM`, ...).
    public var protocolOID: ASN1ObjectIdentifier
    public var domainParameter: AlgorithmIdentifier
    public var parameterID: Int?
    /// The encoding as read (or as built).
    public var rawBytes: [UInt8]

    /// Mapping and key agreement of the family OID.
    public var family: (mapping: PACEMapping, keyAgreement: KeyAgreementAlgorithm)? {
        Self.family(of: protocolOID)
    }

    public init(mapping: PACEMapping, keyAgreement: KeyAgreementAlgorithm, domainParameter: AlgorithmIdentifier,
                parameterID: Int?) {
        protocolOID = PACEProtocol.familyOID(mapping, keyAgreement)
        self.domainParameter = domainParameter
        self.parameterID = parameterID
        rawBytes = []
        rawBytes = (try? derEncoded()) ?? []
    }

    static func family(of oid: ASN1ObjectIdentifier) -> (mapping: PACEMapping, keyAgreement: KeyAgreementAlgorithm)? {
        guard let arcs = oid.arcs(under: SecurityProtocolOID.pace), arcs.count == 1,
              let arc = Int(exactly: arcs[0]), let family = PACEProtocol.family(arc: arc) else { return nil }
        return (family.0, family.1)
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard Self.family(of: oid) != nil else {
                throw ASN1Error.invalidASN1Object(reason: "\(oid) is no PACE domain parameter protocol")
            }
            let algorithm = try AlgorithmIdentifier(berEncoded: &nodes)
            let parameterID = try optionalSmallInteger(&nodes, "PACEDomainParameterInfo parameterId")
            return PACEDomainParameterInfo(
                protocolOID: oid, domainParameter: algorithm, parameterID: parameterID,
                rawBytes: Array(rootNode.encodedBytes))
        }
    }

    private init(protocolOID: ASN1ObjectIdentifier, domainParameter: AlgorithmIdentifier, parameterID: Int?, rawBytes: [UInt8]) {
        self.protocolOID = protocolOID
        self.domainParameter = domainParameter
        self.parameterID = parameterID
        self.rawBytes = rawBytes
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendSecurityInfo(identifier, protocol: protocolOID, trailing: parameterID) { try $0.serialize(domainParameter) }
    }
}
