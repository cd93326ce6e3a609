import SwiftASN1

/// The security protocols a chip supports, as listed in EF.CardAccess, DG14 and the signed content
/// of EF.CardSecurity (Doc 9303-11 §9.2, TR-03110-3 §A.1.1):
///
/// ```
/// SecurityInfos ::= SET OF SecurityInfo
/// ```
///
/// Unknown SecurityInfos are kept (``unknown``) and otherwise ignored.
public struct SecurityInfos: Sendable, Hashable {
    /// Every element, in file order.
    public var infos: [SecurityInfo]
    /// The SET exactly as read (for files with trailing bytes, the SET only), or its DER encoding.
    public var rawBytes: [UInt8]

    /// A SET of `infos`, DER encoded (elements sorted as DER requires).
    public init(infos: [SecurityInfo]) {
        self.infos = infos
        let elements = infos.map(\.rawBytes).sorted { $0.lexicographicallyPrecedes($1) }
        rawBytes = TLV.encode(tag: 0x31, value: elements.flatMap { $0 })
    }

    /// Parses the content of EF.CardAccess (or any bare SecurityInfos).
    ///
    /// Bytes after the SET are ignored: chips pad EF.CardAccess (00 or garbage) up to its allocated size.
    ///
    /// - Throws: `SecurityInfosError.malformed` when the SET or one of its elements is not a
    ///   `SEQUENCE { OBJECT IDENTIFIER, ... }` (RELIABILITY PACE-01).
    public init(derEncoded bytes: [UInt8]) throws {
        let header: TLVHeader
        do {
            header = try TLV.parseHeader(bytes)
        } catch {
            throw SecurityInfosError.malformed("SecurityInfos header: \(error)")
        }
        guard header.tag == 0x31 else {
            throw SecurityInfosError.malformed("SecurityInfos must be a SET (0x31), found tag 0x\(String(header.tag, radix: 16))")
        }
        guard header.totalLength <= bytes.count else {
            throw SecurityInfosError.malformed("SecurityInfos declares \(header.totalLength) bytes, \(bytes.count) present")
        }
        let set = Array(bytes.prefix(header.totalLength))
        let root: ASN1Node
        do {
            root = try BER.parse(set)
        } catch {
            throw SecurityInfosError.malformed("SecurityInfos: \(error)")
        }
        guard case .constructed(let nodes) = root.content else {
            throw SecurityInfosError.malformed("SecurityInfos is not constructed")
        }
        var infos: [SecurityInfo] = []
        for node in nodes {
            do {
                infos.append(try SecurityInfo(node: node))
            } catch {
                throw SecurityInfosError.malformed("SecurityInfo \(infos.count + 1): \(error)")
            }
        }
        self.infos = infos
        rawBytes = set
    }

    /// Parses DG14: tag `6E` around SecurityInfos (Doc 9303-10 §4.7.14).
    public init(dg14 bytes: [UInt8]) throws {
        let header: TLVHeader
        do {
            header = try TLV.parseHeader(bytes)
        } catch {
            throw SecurityInfosError.malformed("DG14 header: \(error)")
        }
        guard header.tag == 0x6E else { throw SecurityInfosError.wrongOuterTag(expected: 0x6E, found: header.tag) }
        guard header.totalLength <= bytes.count else {
            throw SecurityInfosError.malformed("DG14 declares \(header.totalLength) bytes, \(bytes.count) present")
        }
        try self.init(derEncoded: Array(bytes[header.headerLength..<header.totalLength]))
    }

    /// DER encoding of the SET (the bytes as read for a parsed value).
    public func derEncoded() -> [UInt8] { rawBytes }

    // MARK: Views

    public var paceInfos: [PACEInfo] {
        infos.compactMap { if case .pace(let i) = $0 { i } else { nil } }
    }

    public var paceDomainParameterInfos: [PACEDomainParameterInfo] {
        infos.compactMap { if case .paceDomainParameters(let i) = $0 { i } else { nil } }
    }

    public var chipAuthenticationInfos: [ChipAuthenticationInfo] {
        infos.compactMap { if case .chipAuthentication(let i) = $0 { i } else { nil } }
    }

    public var chipAuthenticationDomainParameterInfos: [ChipAuthenticationDomainParameterInfo] {
        infos.compactMap { if case .chipAuthenticationDomainParameters(let i) = $0 { i } else { nil } }
    }

    public var chipAuthenticationPublicKeyInfos: [ChipAuthenticationPublicKeyInfo] {
        infos.compactMap { if case .chipAuthenticationPublicKey(let i) = $0 { i } else { nil } }
    }

    public var activeAuthenticationInfos: [ActiveAuthenticationInfo] {
        infos.compactMap { if case .activeAuthentication(let i) = $0 { i } else { nil } }
    }

    /// SecurityInfos kept but not modelled, or known ones that did not parse.
    public var unknown: [UnknownSecurityInfo] {
        infos.compactMap { if case .unknown(let i) = $0 { i } else { nil } }
    }
}

/// What can be wrong with SecurityInfos, DG14 or EF.CardSecurity. Descriptions name structure only.
public enum SecurityInfosError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// The SET or one of its SecurityInfo elements is not valid (RELIABILITY PACE-01).
    case malformed(String)
    /// DG14 without its `6E` tag.
    case wrongOuterTag(expected: UInt, found: UInt)
    /// EF.CardSecurity is not CMS SignedData, or its content type is not id-SecurityObject.
    case notSecurityObject(String)
    /// Domain parameters that are not a standardized ID, a named curve, ECParameters or DH parameters.
    case malformedDomainParameters(String)

    /// A stable code.
    public var errorCode: ErrorCode {
        switch self {
        case .malformed: .securityInfosMalformed
        case .wrongOuterTag: .securityInfosWrongTag
        case .notSecurityObject: .cardSecurityMalformed
        case .malformedDomainParameters: .domainParametersMalformed
        }
    }

    /// `errorCode` as a string.
    public var code: String { errorCode.rawValue }

    public var description: String {
        switch self {
        case .malformed(let why): "malformed SecurityInfos: \(why)"
        case .wrongOuterTag(let expected, let found):
            "expected tag 0x\(String(expected, radix: 16, uppercase: true)), found 0x\(String(found, radix: 16, uppercase: true))"
        case .notSecurityObject(let why): "EF.CardSecurity: \(why)"
        case .malformedDomainParameters(let why): "malformed domain parameters: \(why)"
        }
    }
}
