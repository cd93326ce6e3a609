public import SwiftASN1

/// An algorithm with its parameters, as PACEDomainParameterInfo, ChipAuthenticationDomainParameterInfo
/// and SubjectPublicKeyInfo carry them (RFC 5280 §4.1.1.2):
///
/// ```
/// AlgorithmIdentifier ::= SEQUENCE {
///     algorithm   OBJECT IDENTIFIER,
///     parameters  ANY DEFINED BY algorithm OPTIONAL }
/// ```
///
/// ``domainParameters`` interprets the parameters as domain parameters (BSI TR-03110-3 §A.2.1).
public struct AlgorithmIdentifier: SecurityInfoCoding, Sendable, Hashable {
    /// The OID of `algorithm`.
    public var algorithm: ASN1ObjectIdentifier
    /// The complete encoding of `parameters` (tag and length included), if present.
    public var parameters: [UInt8]?

    public init(algorithm: ASN1ObjectIdentifier, parameters: [UInt8]?) {
        self.algorithm = algorithm
        self.parameters = parameters
    }

    /// `standardizedDomainParameters` with the given ID (BSI TR-03110-3 §A.2.1.1).
    public static func standardized(_ id: Int) -> AlgorithmIdentifier {
        var serializer = DER.Serializer()
        try? serializer.serialize(id)
        return AlgorithmIdentifier(
            algorithm: SecurityProtocolOID.standardizedDomainParameters, parameters: serializer.serializedBytes)
    }

    /// `id-ecPublicKey` with explicit ECParameters.
    public static func explicit(_ parameters: ECDomainParameters) throws -> AlgorithmIdentifier {
        var serializer = DER.Serializer()
        try serializer.serialize(parameters)
        return AlgorithmIdentifier(algorithm: SecurityProtocolOID.ecPublicKey, parameters: serializer.serializedBytes)
    }

    /// `dhpublicnumber` with explicit X9.42 DomainParameters.
    public static func explicit(_ parameters: DHDomainParameters) throws -> AlgorithmIdentifier {
        var serializer = DER.Serializer()
        try serializer.serialize(parameters)
        return AlgorithmIdentifier(algorithm: SecurityProtocolOID.dhPublicNumber, parameters: serializer.serializedBytes)
    }

    /// This identifier with its OID in storage of its own (``SwiftASN1/ASN1ObjectIdentifier/owned``;
    /// the parameters are always copied): for what outlives the parse, a trust store's certificates.
    public var owned: AlgorithmIdentifier { AlgorithmIdentifier(algorithm: algorithm.owned, parameters: parameters) }

    /// Whether the parameters are absent or NULL (RFC 5754 §2 allows both for hashes).
    public var hasNoParameters: Bool { parameters == nil || parameters == [0x05, 0x00] }

    /// This identifier as a `DigestAlgorithmIdentifier` (RFC 5652 §10.1.1): hash algorithms take no
    /// parameters; RFC 5754 §2 says to omit them but to accept NULL, which many issuers still write.
    /// Anything else is rejected (`ASN1Error.unexpectedFieldType`).
    public func checkedAsDigest() throws -> AlgorithmIdentifier {
        if let parameters { _ = try ASN1Null(berEncoded: BER.parse(parameters)) }
        return self
    }

    /// The domain parameters these parameters describe.
    ///
    /// - Throws: `SecurityInfosError.malformedDomainParameters` when the parameters are not
    ///   a standardized ID, a named curve, ECParameters or DH parameters.
    public var domainParameters: DomainParameters {
        get throws {
            guard let parameters else {
                throw SecurityInfosError.malformedDomainParameters("\(algorithm) without parameters")
            }
            do {
                let node = try BER.parse(parameters)
                if algorithm == SecurityProtocolOID.standardizedDomainParameters {
                    return .standardized(try smallIntegerNode(node, "standardized domain parameter ID"))
                }
                if node.identifier == .objectIdentifier {
                    return .namedCurve(try ASN1ObjectIdentifier(berEncoded: node))
                }
                if algorithm == SecurityProtocolOID.dhPublicNumber || algorithm == SecurityProtocolOID.dhKeyAgreement {
                    return .dh(try DHDomainParameters(berEncoded: node, withIdentifier: .sequence))
                }
                // id-ecPublicKey and the BSI EC key type OIDs carry ECParameters.
                return .ec(try ECDomainParameters(berEncoded: node, withIdentifier: .sequence))
            } catch let error as SecurityInfosError {
                throw error
            } catch {
                throw SecurityInfosError.malformedDomainParameters("\(algorithm): \(error)")
            }
        }
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            let parameters = nodes.next().map { Array($0.encodedBytes) }
            return AlgorithmIdentifier(algorithm: oid, parameters: parameters)
        }
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(algorithm)
            if let parameters { coder.serializeRawBytes(parameters) }
        }
    }
}

/// Domain parameters for DH or ECDH (BSI TR-03110-3 §A.2.1): a standardized ID, a named curve, or
/// explicit parameters.
public enum DomainParameters: Sendable, Hashable {
    /// A standardized domain parameter ID (0-2 DH, 8-18 ECDH; Doc 9303-11 §9.5.1).
    case standardized(Int)
    /// A curve named by OID (RFC 5480 `namedCurve`).
    case namedCurve(ASN1ObjectIdentifier)
    /// Explicit elliptic curve parameters.
    case ec(ECDomainParameters)
    /// Explicit Diffie-Hellman parameters.
    case dh(DHDomainParameters)
}

/// Explicit prime-field curve parameters (ANSI X9.62, SEC 1 §C.2, as TR-03110-3 §A.2.1.1 allows):
///
/// ```
/// ECParameters ::= SEQUENCE {
///     version   INTEGER { ecpVer1(1) },
///     fieldID   FieldID,            -- SEQUENCE { prime-field, INTEGER p }
///     curve     Curve,              -- SEQUENCE { a OCTET STRING, b OCTET STRING, seed BIT STRING OPTIONAL }
///     base      ECPoint,            -- OCTET STRING
///     order     INTEGER,
///     cofactor  INTEGER OPTIONAL }
/// ```
///
/// All numbers are unsigned big-endian magnitudes.
public struct ECDomainParameters: Sendable, Hashable, BERImplicitlyTaggable, DERImplicitlyTaggable {
    public static var defaultIdentifier: ASN1Identifier { .sequence }

    public var p: [UInt8]
    public var a: [UInt8]
    public var b: [UInt8]
    /// The base point G, encoded (04 || x || y).
    public var generator: [UInt8]
    /// The order n of G.
    public var order: [UInt8]
    /// The cofactor h (1 when absent).
    public var cofactor: [UInt8]

    public init(p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8] = [1]) {
        self.p = p
        self.a = a
        self.b = b
        self.generator = generator
        self.order = order
        self.cofactor = cofactor
    }

    public init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        try self.init(berEncoded: rootNode, withIdentifier: identifier)
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let version = try Int(berEncoded: &nodes)
            guard version == 1 else { throw ASN1Error.invalidASN1Object(reason: "ECParameters version \(version)") }
            let p: ArraySlice<UInt8> = try BER.sequence(requiredNode(&nodes, "fieldID"), identifier: .sequence) { field in
                let type = try ASN1ObjectIdentifier(berEncoded: &field)
                guard type == SecurityProtocolOID.primeField else {
                    throw ASN1Error.invalidASN1Object(reason: "field type \(type) is not prime-field")
                }
                return try ArraySlice<UInt8>(berEncoded: &field)
            }
            let (a, b) = try BER.sequence(requiredNode(&nodes, "curve"), identifier: .sequence) { curve in
                let a = try ASN1OctetString(berEncoded: &curve)
                let b = try ASN1OctetString(berEncoded: &curve)
                _ = curve.next()  // seed
                return (a.bytes, b.bytes)
            }
            let base = try ASN1OctetString(berEncoded: &nodes)
            let order = try ArraySlice<UInt8>(berEncoded: &nodes)
            let cofactor = try nodes.next().map { try ArraySlice<UInt8>(berEncoded: $0) }
            return ECDomainParameters(
                p: unsignedMagnitude(p), a: Array(a), b: Array(b), generator: Array(base.bytes),
                order: unsignedMagnitude(order), cofactor: cofactor.map(unsignedMagnitude) ?? [1])
        }
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        let length = p.count
        func fieldElement(_ v: [UInt8]) -> ArraySlice<UInt8> {
            ArraySlice([UInt8](repeating: 0, count: max(0, length - v.count)) + v)
        }
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(1)
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(SecurityProtocolOID.primeField)
                try coder.serialize(ArraySlice(p))
            }
            try coder.appendConstructedNode(identifier: .sequence) { coder in
                try coder.serialize(ASN1OctetString(contentBytes: fieldElement(a)))
                try coder.serialize(ASN1OctetString(contentBytes: fieldElement(b)))
            }
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(generator)))
            try coder.serialize(ArraySlice(order))
            try coder.serialize(ArraySlice(cofactor))
        }
    }
}

/// Explicit Diffie-Hellman parameters: ANSI X9.42 `DomainParameters ::= SEQUENCE { p, g, q, j OPTIONAL,
/// validationParms OPTIONAL }` or PKCS #3 `DHParameter ::= SEQUENCE { prime, base,
/// privateValueLength OPTIONAL }` (the third INTEGER is then taken as q only when it is shorter
/// than p and larger than 64 bits).
public struct DHDomainParameters: Sendable, Hashable, BERImplicitlyTaggable, DERImplicitlyTaggable {
    public static var defaultIdentifier: ASN1Identifier { .sequence }

    /// The prime modulus p.
    public var p: [UInt8]
    /// The generator g.
    public var g: [UInt8]
    /// The order q of the subgroup g generates, when given.
    public var q: [UInt8]?

    public init(p: [UInt8], g: [UInt8], q: [UInt8]?) {
        self.p = p
        self.g = g
        self.q = q
    }

    public init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        try self.init(berEncoded: rootNode, withIdentifier: identifier)
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let p = unsignedMagnitude(try ArraySlice<UInt8>(berEncoded: &nodes))
            let g = unsignedMagnitude(try ArraySlice<UInt8>(berEncoded: &nodes))
            var q: [UInt8]?
            if let third = nodes.next(), third.identifier == .integer {
                let value = unsignedMagnitude(try ArraySlice<UInt8>(berEncoded: third))
                if value.count > 8 && value.count < p.count { q = value }
            }
            while nodes.next() != nil {}
            return DHDomainParameters(p: p, g: g, q: q)
        }
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(ArraySlice(p))
            try coder.serialize(ArraySlice(g))
            if let q { try coder.serialize(ArraySlice(q)) }
        }
    }
}
