public import SwiftASN1

/// One element of SecurityInfos (Doc 9303-11 §9.2, TR-03110-3 §A.1.1):
///
/// ```
/// SecurityInfo ::= SEQUENCE {
///     protocol      OBJECT IDENTIFIER,
///     requiredData  ANY DEFINED BY protocol,
///     optionalData  ANY DEFINED BY protocol OPTIONAL }
/// ```
///
/// The protocol OID decides the concrete type; anything else is kept as ``UnknownSecurityInfo``.
public enum SecurityInfo: Sendable, Hashable {
    case pace(PACEInfo)
    case paceDomainParameters(PACEDomainParameterInfo)
    case chipAuthentication(ChipAuthenticationInfo)
    case chipAuthenticationDomainParameters(ChipAuthenticationDomainParameterInfo)
    case chipAuthenticationPublicKey(ChipAuthenticationPublicKeyInfo)
    case activeAuthentication(ActiveAuthenticationInfo)
    /// A protocol this library does not model (Terminal Authentication, EF.DIR, privileged terminal,
    /// proprietary ones), or a known one whose content does not parse.
    case unknown(UnknownSecurityInfo)

    /// The encoding as read.
    public var rawBytes: [UInt8] {
        switch self {
        case .pace(let i): i.rawBytes
        case .paceDomainParameters(let i): i.rawBytes
        case .chipAuthentication(let i): i.rawBytes
        case .chipAuthenticationDomainParameters(let i): i.rawBytes
        case .chipAuthenticationPublicKey(let i): i.rawBytes
        case .activeAuthentication(let i): i.rawBytes
        case .unknown(let i): i.rawBytes
        }
    }

    /// Classifies one SecurityInfo by its protocol OID. Never throws for a well-formed
    /// `SEQUENCE { OID, ... }`: unknown protocols and malformed known ones become `.unknown`.
    init(node: ASN1Node) throws {
        let oid: ASN1ObjectIdentifier = try BER.sequence(node, identifier: .sequence) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            while nodes.next() != nil {}
            return oid
        }
        do {
            if PACEProtocol(oid: oid) != nil {
                self = .pace(try PACEInfo(berEncoded: node))
            } else if PACEDomainParameterInfo.family(of: oid) != nil {
                self = .paceDomainParameters(try PACEDomainParameterInfo(berEncoded: node))
            } else if ChipAuthenticationProtocol(oid: oid) != nil {
                self = .chipAuthentication(try ChipAuthenticationInfo(berEncoded: node))
            } else if oid == SecurityProtocolOID.caDH || oid == SecurityProtocolOID.caECDH {
                self = .chipAuthenticationDomainParameters(try ChipAuthenticationDomainParameterInfo(berEncoded: node))
            } else if oid == SecurityProtocolOID.pkDH || oid == SecurityProtocolOID.pkECDH {
                self = .chipAuthenticationPublicKey(try ChipAuthenticationPublicKeyInfo(berEncoded: node))
            } else if oid == SecurityProtocolOID.aa {
                self = .activeAuthentication(try ActiveAuthenticationInfo(berEncoded: node))
            } else {
                self = .unknown(UnknownSecurityInfo(protocolOID: oid, rawBytes: Array(node.encodedBytes), problem: nil))
            }
        } catch {
            self = .unknown(UnknownSecurityInfo(
                protocolOID: oid, rawBytes: Array(node.encodedBytes), problem: "\(error)"))
        }
    }
}

/// A SecurityInfo kept as read and otherwise ignored.
public struct UnknownSecurityInfo: Sendable, Hashable {
    /// The protocol OID.
    public var protocolOID: ASN1ObjectIdentifier
    /// The encoding as read.
    public var rawBytes: [UInt8]
    /// Why a known protocol's info could not be parsed; `nil` for a protocol this library does not model.
    public var problem: String?

    public init(protocolOID: ASN1ObjectIdentifier, rawBytes: [UInt8], problem: String?) {
        self.protocolOID = protocolOID
        self.rawBytes = rawBytes
        self.problem = problem
    }
}
