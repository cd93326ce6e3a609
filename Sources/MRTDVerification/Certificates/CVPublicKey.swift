public import MRTDCore
public import MRTDCrypto
public import SwiftASN1

/// The public key of a CV certificate (BSI TR-03110-3 §D.3): `7F49 { 06 OID, ... }` with
/// `81 n, 82 e` for RSA, or `81 p, 82 a, 83 b, 84 G, 85 r, 86 Y, 87 f` for ECDSA. Only CVCA
/// certificates carry the EC domain parameters; DV and IS keys use their CVCA's.
public struct CVPublicKey: Sendable, Equatable {
    /// The TA algorithm (`id-TA-ECDSA-SHA-256`, …): the signature scheme this key verifies.
    public let algorithmOID: ASN1ObjectIdentifier
    /// The data objects after the OID, by context tag (`0x81`...`0x87`).
    public let elements: [UInt: [UInt8]]

    /// The key object `7F49` (tag and length included).
    public init(object: TLV) throws(CVCertificateError) {
        let node: ASN1Node
        do {
            node = try BER.parse(object.encoded)
        } catch {
            throw .malformed("public key: \(error)")
        }
        try self.init(node: node)
    }

    /// The key object, parsed as swift-asn1 nodes: `06` universal, `81`-`87` context-specific primitive.
    init(node: ASN1Node) throws(CVCertificateError) {
        guard case .constructed(let children) = node.content else { throw .malformed("public key is not constructed") }
        let parts = Array(children)
        guard let oid = parts.first, oid.identifier == .objectIdentifier,
              let algorithm = try? ASN1ObjectIdentifier(berEncoded: oid) else {
            throw .malformed("public key without its algorithm OID")
        }
        algorithmOID = algorithm
        var elements: [UInt: [UInt8]] = [:]
        for part in parts.dropFirst() {
            let tag = 0x80 | part.identifier.tagNumber
            guard part.identifier.tagClass == .contextSpecific, (1...7).contains(part.identifier.tagNumber),
                  case .primitive(let bytes) = part.content, elements[tag] == nil else {
                throw .malformed("public key element \(String(part.identifier.tagNumber, radix: 16)) unexpected or repeated")
            }
            elements[tag] = Array(bytes)
        }
        self.elements = elements
        guard let scheme = TerminalAuthenticationAlgorithm(oid: algorithm) else { throw .unsupportedAlgorithm(algorithm.description) }
        switch scheme.scheme {
        case .rsaPKCS1v15, .rsaPSS:
            guard elements[0x81] != nil, elements[0x82] != nil else { throw .malformed("RSA key without modulus or exponent") }
        case .ecdsa, .ecdsaPlain:
            guard elements[0x86] != nil else { throw .malformed("EC key without its public point") }
        case .dsa:
            throw .unsupportedAlgorithm(algorithm.description)
        }
    }

    /// The signature scheme of the key's TA algorithm (ECDSA signatures are plain `r || s`).
    public var signatureScheme: SignatureScheme? { TerminalAuthenticationAlgorithm(oid: algorithmOID)?.scheme }

    /// Whether the key carries EC domain parameters (CVCA keys do).
    public var hasDomainParameters: Bool { elements[0x81] != nil && elements[0x84] != nil && elements[0x85] != nil }

    /// A DER SubjectPublicKeyInfo for OpenSSL: RSA as `rsaEncryption`, EC with explicit domain
    /// parameters from this key or, for DV/IS keys, from `domain` (the CVCA key).
    public func subjectPublicKeyInfo(domain: CVPublicKey?) throws(CVCertificateError) -> [UInt8] {
        func sequence(_ parts: [UInt8]...) -> [UInt8] { TLV.encode(tag: 0x30, value: parts.flatMap { $0 }) }
        func integer(_ magnitude: [UInt8]) -> [UInt8] {
            var m = Array(magnitude.drop { $0 == 0 })
            if m.isEmpty || m[0] & 0x80 != 0 { m.insert(0, at: 0) }
            return TLV.encode(tag: 0x02, value: m)
        }
        func bitString(_ bytes: [UInt8]) -> [UInt8] { TLV.encode(tag: 0x03, value: [0] + bytes) }
        func oid(_ id: ASN1ObjectIdentifier) -> [UInt8] { TLV.encode(tag: 0x06, value: id.contentOctets) }
        switch signatureScheme {
        case .rsaPKCS1v15?, .rsaPSS?:
            let rsaKey = sequence(integer(elements[0x81]!), integer(elements[0x82]!))
            return sequence(sequence(oid(ASN1ObjectIdentifier.AlgorithmIdentifier.rsaEncryption), [0x05, 0x00]), bitString(rsaKey))
        case .ecdsa?, .ecdsaPlain?:
            let source = hasDomainParameters ? self : domain
            guard let source, source.hasDomainParameters, let p = source.elements[0x81], let a = source.elements[0x82],
                  let b = source.elements[0x83], let g = source.elements[0x84], let r = source.elements[0x85],
                  let point = elements[0x86]
            else { throw .malformed("EC key without domain parameters (no CVCA key to take them from)") }
            let size = p.drop { $0 == 0 }.count
            func field(_ x: [UInt8]) -> [UInt8] {
                let trimmed = Array(x.drop { $0 == 0 })
                return [UInt8](repeating: 0, count: max(0, size - trimmed.count)) + trimmed
            }
            let cofactor = source.elements[0x87] ?? [1]
            let parameters = sequence(
                integer([1]), sequence(oid(SecurityProtocolOID.primeField), integer(p)),
                sequence(TLV.encode(tag: 0x04, value: field(a)), TLV.encode(tag: 0x04, value: field(b))),
                TLV.encode(tag: 0x04, value: g), integer(r), integer(cofactor))
            return sequence(sequence(oid(SecurityProtocolOID.ecPublicKey), parameters), bitString(point))
        case .dsa?, nil:
            throw .unsupportedAlgorithm(algorithmOID.description)
        }
    }
}

/// The Terminal Authentication signature algorithms (BSI TR-03110-3 §A.6.4): `id-TA` (0.4.0.127.0.7.2.2.2) `.1.x` RSA, `.2.x` ECDSA.
public struct TerminalAuthenticationAlgorithm: Sendable, Equatable {
    public let oid: ASN1ObjectIdentifier
    public let scheme: SignatureScheme

    public init?(oid: ASN1ObjectIdentifier) {
        guard let arcs = oid.arcs(under: SecurityProtocolOID.ta), arcs.count == 2 else { return nil }
        let scheme: SignatureScheme
        switch (arcs[0], arcs[1]) {
        case (1, 1): scheme = .rsaPKCS1v15(.sha1)
        case (1, 2): scheme = .rsaPKCS1v15(.sha256)
        case (1, 3): scheme = .rsaPSS(digest: .sha1, mgf1Digest: .sha1, saltLength: 20)
        case (1, 4): scheme = .rsaPSS(digest: .sha256, mgf1Digest: .sha256, saltLength: 32)
        case (1, 5): scheme = .rsaPKCS1v15(.sha512)
        case (1, 6): scheme = .rsaPSS(digest: .sha512, mgf1Digest: .sha512, saltLength: 64)
        case (2, 1): scheme = .ecdsaPlain(.sha1)
        case (2, 2): scheme = .ecdsaPlain(.sha224)
        case (2, 3): scheme = .ecdsaPlain(.sha256)
        case (2, 4): scheme = .ecdsaPlain(.sha384)
        case (2, 5): scheme = .ecdsaPlain(.sha512)
        default: return nil
        }
        self.oid = oid
        self.scheme = scheme
    }

    /// The OID of `scheme`, if TR-03110 lists it.
    public static func oid(for scheme: SignatureScheme) -> ASN1ObjectIdentifier? {
        let all: [(UInt, UInt)] = [(1, 1), (1, 2), (1, 3), (1, 4), (1, 5), (1, 6), (2, 1), (2, 2), (2, 3), (2, 4), (2, 5)]
        return all.map { SecurityProtocolOID.ta.appending($0.0, $0.1) }
            .first { TerminalAuthenticationAlgorithm(oid: $0)?.scheme == scheme }
    }
}
