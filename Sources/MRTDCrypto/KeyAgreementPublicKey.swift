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
        let spki: SubjectPublicKeyInfo
        do { spki = try SubjectPublicKeyInfo(encoded: der) } catch { throw .invalidInput("SubjectPublicKeyInfo: \(error)") }
        if spki.algorithm.algorithm == SecurityProtocolOID.standardizedDomainParameters {
            guard case .standardized(let id)? = try? spki.algorithm.domainParameters else {
                throw .invalidInput("standardizedDomainParameters without a parameter ID")
            }
            var value = spki.subjectPublicKey
            // DH public keys are a DER INTEGER inside the BIT STRING (PKCS #3, X9.42).
            if let integer = try? TLV.parse(value), integer.tag == 0x02 { value = integer.bytes }
            try self.init(standardizedDomainParameterID: id, encodedPublicKey: value)
            return
        }
        let handle = try EVPKeyHandle.parsePublicKey(der)
        let explicit = spki.algorithm.parameters?.first == 0x30
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
}
