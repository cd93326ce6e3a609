public import SwiftASN1

/// EF.CardSecurity: CMS SignedData (RFC 5652) whose signed content is SecurityInfos with content
/// type `id-SecurityObject` (TR-03110-3 §A.1.2.5, Doc 9303-11 §9.2.11).
///
/// ```
/// ContentInfo ::= SEQUENCE {
///     contentType  OBJECT IDENTIFIER (id-signedData),
///     content      [0] EXPLICIT SignedData }
/// SignedData ::= SEQUENCE {
///     version, digestAlgorithms,
///     encapContentInfo  SEQUENCE { eContentType OBJECT IDENTIFIER, eContent [0] EXPLICIT OCTET STRING },
///     ... }
/// ```
///
/// This type only extracts the content; verifying the signature is passive authentication's job.
public struct CardSecurity: Sendable, Hashable {
    /// `id-signedData`.
    public static let signedDataOID = ASN1ObjectIdentifier.CMS.signedData

    /// The file as read.
    public var rawBytes: [UInt8]
    /// The signed content (DER SecurityInfos).
    public var eContent: [UInt8]
    /// The parsed content.
    public var securityInfos: SecurityInfos

    /// Parses EF.CardSecurity (BER accepted; bytes after the ContentInfo are ignored).
    public init(rawBytes bytes: [UInt8]) throws {
        let content: [UInt8]
        do {
            let header = try TLV.parseHeader(bytes)
            guard header.totalLength <= bytes.count else {
                throw SecurityInfosError.notSecurityObject("declares \(header.totalLength) bytes, \(bytes.count) present")
            }
            let root = try BER.parse(Array(bytes.prefix(header.totalLength)))
            content = try BER.sequence(root, identifier: .sequence) { nodes in
                let type = try ASN1ObjectIdentifier(berEncoded: &nodes)
                guard type == Self.signedDataOID else {
                    throw SecurityInfosError.notSecurityObject("content type \(type) is not signedData")
                }
                let wrapped = try requiredNode(&nodes, "SignedData")
                return try BER.explicitlyTagged(wrapped, tagNumber: 0, tagClass: .contextSpecific) { signedData in
                    try Self.eContent(of: signedData)
                }
            }
        } catch let error as SecurityInfosError {
            throw error
        } catch {
            throw SecurityInfosError.notSecurityObject("\(error)")
        }
        rawBytes = bytes
        eContent = content
        securityInfos = try SecurityInfos(derEncoded: content)
    }

    private static func eContent(of signedData: ASN1Node) throws -> [UInt8] {
        guard signedData.identifier == .sequence, case .constructed(let nodes) = signedData.content else {
            throw SecurityInfosError.notSecurityObject("SignedData is not a SEQUENCE")
        }
        var iterator = nodes.makeIterator()
        _ = try Int(berEncoded: &iterator)  // version
        _ = try requiredNode(&iterator, "digestAlgorithms")
        let encap = try requiredNode(&iterator, "encapContentInfo")
        return try BER.sequence(encap, identifier: .sequence) { info in
            let type = try ASN1ObjectIdentifier(berEncoded: &info)
            guard type == SecurityProtocolOID.securityObject else {
                throw SecurityInfosError.notSecurityObject("eContentType \(type) is not id-SecurityObject")
            }
            guard let tagged = info.next() else {
                throw SecurityInfosError.notSecurityObject("no eContent")
            }
            return try BER.explicitlyTagged(tagged, tagNumber: 0, tagClass: .contextSpecific) { node in
                Array(try ASN1OctetString(berEncoded: node).bytes)
            }
        }
    }
}

extension SecurityInfos {
    /// The PACE parameters of this EF.CardAccess that `signed` (EF.CardSecurity's SecurityInfos)
    /// does not hold, described (empty when every one is there). TR-03110-3 §A.1.2: EF.CardSecurity
    /// contains the SecurityInfos of EF.CardAccess; EF.CardAccess is not signed, so a PACEInfo or
    /// PACEDomainParameterInfo it offers and EF.CardSecurity lacks was not the issuer's (BSI
    /// TR-03105-5.1 LDS_J_02, J_03). Other SecurityInfos are not compared: real cards keep some in
    /// EF.CardAccess only (PrivilegedTerminalInfo, a ChipAuthenticationInfo of another key).
    public func paceParametersMissing(from signed: SecurityInfos) -> [String] {
        func key(_ i: PACEInfo) -> String { "\(i.protocolOID)/\(i.version)/\(i.parameterID ?? -1)" }
        func key(_ d: PACEDomainParameterInfo) -> String {
            "\(d.protocolOID)/\((try? d.domainParameter.derEncoded()) ?? [])/\(d.parameterID ?? -1)"
        }
        let signedInfos = Set(signed.paceInfos.map(key)), signedDomains = Set(signed.paceDomainParameterInfos.map(key))
        return paceInfos.filter { !signedInfos.contains(key($0)) }.map { "PACEInfo \($0.protocolOID) parameterId \($0.parameterID.map(String.init) ?? "none")" }
            + paceDomainParameterInfos.filter { !signedDomains.contains(key($0)) }
                .map { "PACEDomainParameterInfo \($0.protocolOID) parameterId \($0.parameterID.map(String.init) ?? "none")" }
    }
}
