internal import CLibCrypto
public import MRTDCore

/// Why a key agreement public key or its domain parameters are not acceptable.
public enum KeyAgreementKeyProblem: String, Sendable, Equatable {
    /// The public value is not a valid element of the group (not on the curve, the identity, out of
    /// range, or outside the prime-order subgroup).
    case publicKeyInvalid
    /// The domain parameters themselves fail validation.
    case domainParametersInvalid
}

/// A static or ephemeral (EC)DH public key together with its domain parameters: a chip's Chip
/// Authentication key from DG14 or EF.CardSecurity, or the other side's ephemeral key.
///
/// Accepts a SubjectPublicKeyInfo with `id-ecPublicKey` (named curve or explicit parameters,
/// brainpool included), `dhpublicnumber` (ANSI X9.42, with `q`), `dhKeyAgreement` (PKCS #3), or
/// BSI `standardizedDomainParameters` with a parameter ID (TR-03110-3 §A.2.1.1).
public struct KeyAgreementPublicKey: Sendable {
    /// ECDH or DH.
    public let algorithm: KeyAgreementAlgorithm
    /// The standardized curve or group these parameters equal (`brainpoolP256r1`, `P-256`,
    /// `RFC5114-2048-224`), or `nil` for parameters matching none.
    public let domainName: String?
    /// Whether the parameters were given explicitly rather than by name or ID.
    public let hasExplicitParameters: Bool
    /// The bit length of the field prime (EC) or of `p` (DH).
    public let fieldBits: Int
    /// The bit length of the group order `n` (EC) or of the subgroup order `q` (DH; 0 when unknown).
    public let orderBits: Int
    /// The public key as it travels in Chip Authentication and PACE: `04 || x || y` (EC, uncompressed)
    /// or the big-endian integer left-padded to the byte length of `p` (DH).
    public let encodedPublicKey: [UInt8]

    let handle: EVPKeyHandle

    /// The byte length of a shared secret: the field size (EC) or of `p` (DH), leading zeros kept.
    public var sharedSecretLength: Int { (fieldBits + 7) / 8 }

    /// Parses a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7).
    ///
    /// - Throws: `CryptoError.invalidInput` for undecodable keys, `.unsupported` for other key types.
    public init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let (algorithmOID, parameters, publicKeyBits) = try Self.split(der)
        if algorithmOID == Self.standardizedDomainParametersOID {
            guard let parameters, parameters.tag == 0x02, let id = Self.smallInteger(parameters.value) else {
                throw .invalidInput("standardizedDomainParameters without a parameter ID")
            }
            var value = publicKeyBits
            // DH public keys are a DER INTEGER inside the BIT STRING (PKCS #3, X9.42).
            if let integer = try? TLV.parse(value), integer.tag == 0x02 { value = integer.bytes }
            try self.init(standardizedDomainParameterID: id, encodedPublicKey: value)
            return
        }
        let handle = try EVPKeyHandle.parsePublicKey(der)
        let explicit = parameters?.tag == 0x30
        try self.init(handle: handle, explicit: explicit)
    }

    /// A public key on one of the standardized domain parameters (Doc 9303-11 §9.5.1: IDs 0-2 DH,
    /// 8-18 ECDH) from its wire encoding.
    public init(standardizedDomainParameterID id: Int, encodedPublicKey: [UInt8]) throws(CryptoError) {
        guard let entry = StandardizedDomainParameterTable.entry(id) else {
            throw .unsupported("standardized domain parameter ID \(id)")
        }
        let handle: EVPKeyHandle
        switch entry {
        case .ec(let name, _):
            handle = try makeKey(template: nil, typeName: "EC", selection: Int32(mrtd_EVP_PKEY_PUBLIC_KEY()),
                                 parameters: [.text("group", name), .octets("pub", encodedPublicKey)])
        case .dh(let name, _):
            handle = try makeKey(template: nil, typeName: "DHX", selection: Int32(mrtd_EVP_PKEY_PUBLIC_KEY()),
                                 parameters: [.text("group", name), .integer("pub", encodedPublicKey)])
        }
        try self.init(handle: handle, explicit: false)
    }

    init(handle: EVPKeyHandle, explicit: Bool) throws(CryptoError) {
        self.handle = handle
        hasExplicitParameters = explicit
        switch EVP_PKEY_get_base_id(handle.pointer) {
        case EVP_PKEY_EC:
            algorithm = .ecdh
            let group = try ECGroupHandle(of: handle)
            fieldBits = group.degree
            orderBits = group.orderBits
            let nid = group.matchingCurveNID
            if nid != 0, let shortName = OBJ_nid2sn(nid) {
                domainName = StandardizedDomainParameterTable.displayName(openSSLName: String(cString: shortName))
            } else {
                domainName = nil
            }
            encodedPublicKey = try group.uncompressed(handle.octets("pub"))
        case EVP_PKEY_DH, EVP_PKEY_DHX:
            algorithm = .dh
            guard let p = handle.bigNumber("p"), let y = handle.bigNumber("pub") else {
                throw .invalidInput("DH key without p or public value")
            }
            fieldBits = p.bitCount
            orderBits = handle.bigNumber("q")?.bitCount ?? 0
            domainName = handle.text("group").map { StandardizedDomainParameterTable.displayName(openSSLName: $0) }
            encodedPublicKey = try y.bytes(length: p.byteCount)
        case let other:
            throw .unsupported("key agreement with key type NID \(other)")
        }
    }

    /// A key on the same domain parameters as `domain` (an ephemeral key made from it): the domain
    /// facts are copied, only the public value is read, so the curve is not matched again.
    init(handle: EVPKeyHandle, sameDomainAs domain: KeyAgreementPublicKey) throws(CryptoError) {
        self.handle = handle
        algorithm = domain.algorithm
        domainName = domain.domainName
        hasExplicitParameters = domain.hasExplicitParameters
        fieldBits = domain.fieldBits
        orderBits = domain.orderBits
        switch domain.algorithm {
        case .ecdh:
            let encoded = try handle.octets("pub")
            encodedPublicKey = encoded.first == 0x04 ? encoded : try ECGroupHandle(of: handle).uncompressed(encoded)
        case .dh:
            guard let y = handle.bigNumber("pub") else { throw .invalidInput("DH key without public value") }
            encodedPublicKey = try y.bytes(length: (domain.fieldBits + 7) / 8)
        }
    }

    /// Another public key on the same domain parameters, from its wire encoding (the peer's
    /// ephemeral key). Not validated: call ``problem()``.
    public func publicKey(encoded: [UInt8]) throws(CryptoError) -> KeyAgreementPublicKey {
        let parameter: KeyParameter = algorithm == .ecdh
            ? .octets("pub", encoded) : .integer("pub", encoded)
        guard algorithm == .ecdh || encoded.count <= sharedSecretLength else {
            throw .invalidInput("DH public value longer than p")
        }
        let key = try makeKey(template: handle, typeName: nil, selection: Int32(mrtd_EVP_PKEY_PUBLIC_KEY()),
                              parameters: [parameter])
        return try KeyAgreementPublicKey(handle: key, sameDomainAs: self)
    }

    /// Validates the key (Doc 9303-11 §9.6 / BSI TR-03111 §3.2.2): a point on the curve, not the
    /// identity, of the group order; a DH value in (1, p-1) with `y^q = 1` when `q` is known. Explicit
    /// parameters that match no standardized curve or group are checked themselves (DH without `q`
    /// structurally only: PKCS #3 does not require a safe prime).
    ///
    /// - Returns: `nil` when the key is acceptable, else what is wrong with it.
    public func problem() -> KeyAgreementKeyProblem? {
        guard let context = try? EVPKeyContext(key: handle) else { return .publicKeyInvalid }
        defer { CryptoError.clearOpenSSLQueue() }
        if domainName == nil {
            // DH without q (PKCS #3) has no subgroup to check, and its p need not be a safe prime:
            // only the structural checks apply. Everything else gets the full check.
            let checked = algorithm == .dh && orderBits == 0
                ? EVP_PKEY_param_check_quick(context.pointer) : EVP_PKEY_param_check(context.pointer)
            guard checked == 1 else { return .domainParametersInvalid }
        }
        guard EVP_PKEY_public_check(context.pointer) == 1 else { return .publicKeyInvalid }
        return nil
    }

    // MARK: SubjectPublicKeyInfo structure

    /// `0.4.0.127.0.7.1.2` (bsi-de algorithms 2): standardizedDomainParameters.
    static let standardizedDomainParametersOID: [UInt8] = [0x04, 0x00, 0x7F, 0x00, 0x07, 0x01, 0x02]

    /// The algorithm OID (content bytes), the parameters (if any) and the BIT STRING content without
    /// its unused-bits byte.
    static func split(_ der: [UInt8]) throws(CryptoError) -> ([UInt8], TLV?, [UInt8]) {
        do {
            let spki = try TLV.parse(der, expecting: 0x30)
            let parts = try spki.children()
            guard parts.count == 2, parts[0].tag == 0x30, parts[1].tag == 0x03 else {
                throw CryptoError.invalidInput("SubjectPublicKeyInfo is not SEQUENCE { AlgorithmIdentifier, BIT STRING }")
            }
            let algorithm = try parts[0].children()
            guard let oid = algorithm.first, oid.tag == 0x06, algorithm.count <= 2 else {
                throw CryptoError.invalidInput("AlgorithmIdentifier without an OID")
            }
            guard parts[1].value.first == 0x00 else {
                throw CryptoError.invalidInput("public key BIT STRING with unused bits")
            }
            return (oid.bytes, algorithm.count == 2 ? algorithm[1] : nil, Array(parts[1].value.dropFirst()))
        } catch let error as CryptoError {
            throw error
        } catch {
            throw .invalidInput("SubjectPublicKeyInfo: \(error)")
        }
    }

    static func smallInteger(_ bytes: ArraySlice<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 4, bytes.first! & 0x80 == 0 else { return nil }
        return bytes.reduce(0) { $0 << 8 | Int($1) }
    }
}
