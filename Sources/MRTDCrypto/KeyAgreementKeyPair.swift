internal import CLibCrypto
public import MRTDCore

/// An (EC)DH key pair: the terminal's ephemeral key in Chip Authentication, or (in tests and the
/// virtual chip) a chip's static key. The private key never leaves OpenSSL.
public struct KeyAgreementKeyPair: Sendable {
    /// The public half, with its domain parameters.
    public let publicKey: KeyAgreementPublicKey
    let handle: EVPKeyHandle

    /// ECDH or DH.
    public var algorithm: KeyAgreementAlgorithm { publicKey.algorithm }
    /// The public key in wire encoding (uncompressed point, or DH integer padded to the length of `p`).
    public var encodedPublicKey: [UInt8] { publicKey.encodedPublicKey }

    /// A fresh key pair on the domain parameters of `domain` (Doc 9303-11 §6.2.1: the terminal's
    /// ephemeral key uses the chip's static parameters).
    ///
    /// With ``SystemRandom`` OpenSSL's own generator makes the key (`EVP_PKEY_keygen`). Any other
    /// source supplies the private key bytes, so worked examples replay: EC draws the byte length of
    /// the order `n` and DH the byte length of `q` (of `p` when `q` is unknown), big-endian, with the
    /// bits above that length cleared, redrawn while out of range.
    public static func generate(on domain: KeyAgreementPublicKey, random: any RandomSource) throws -> KeyAgreementKeyPair {
        if random is SystemRandom {
            return try generate(on: domain)
        }
        let bits: Int
        switch domain.algorithm {
        case .ecdh: bits = domain.orderBits
        case .dh: bits = domain.orderBits > 0 ? domain.orderBits : domain.fieldBits
        }
        let length = (bits + 7) / 8
        for _ in 0..<64 {
            var candidate = try random.randomBytes(length)
            // Bits above the order's length are cleared (P-521: 66 bytes for 521 bits).
            if let first = candidate.first { candidate[0] = first & UInt8(0xFF >> (8 * length - bits)) }
            let pair = try? KeyAgreementKeyPair(privateKey: candidate, on: domain)
            secureWipe(&candidate)
            if let pair { return pair }
        }
        throw CryptoError.invalidInput("random source produced no private key in range")
    }

    /// A fresh key pair from OpenSSL's generator on the parameters of `domain`.
    public static func generate(on domain: KeyAgreementPublicKey) throws(CryptoError) -> KeyAgreementKeyPair {
        let context = try EVPKeyContext(key: domain.handle)
        guard EVP_PKEY_keygen_init(context.pointer) == 1 else { throw .openSSLQueue("EVP_PKEY_keygen_init") }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen(context.pointer, &key) == 1, let key else { throw .openSSLQueue("EVP_PKEY_keygen") }
        let handle = EVPKeyHandle(taking: key)
        return KeyAgreementKeyPair(handle: handle, publicKey: try KeyAgreementPublicKey(handle: handle, sameDomainAs: domain))
    }

    /// A fresh key pair on standardized domain parameters (Doc 9303-11 §9.5.1), for chip keys in tests.
    public static func generate(standardizedDomainParameterID id: Int) throws(CryptoError) -> KeyAgreementKeyPair {
        guard let entry = StandardizedDomainParameterTable.entry(id) else {
            throw .unsupported("standardized domain parameter ID \(id)")
        }
        let context: EVPKeyContext
        let name: String
        switch entry {
        case .ec(let openSSLName, _):
            context = try EVPKeyContext(typeName: "EC")
            name = openSSLName
        case .dh(let openSSLName, _):
            context = try EVPKeyContext(typeName: "DHX")
            name = openSSLName
        }
        guard EVP_PKEY_keygen_init(context.pointer) == 1 else { throw .openSSLQueue("EVP_PKEY_keygen_init") }
        var nameBytes = Array(name.utf8CString)
        let set: Int32 = nameBytes.withUnsafeMutableBufferPointer { buffer in
            var params = [
                OSSL_PARAM_construct_utf8_string("group", buffer.baseAddress, 0),
                OSSL_PARAM_construct_end(),
            ]
            return EVP_PKEY_CTX_set_params(context.pointer, &params)
        }
        guard set == 1 else { throw .openSSLQueue("EVP_PKEY_CTX_set_params(group)") }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen(context.pointer, &key) == 1, let key else { throw .openSSLQueue("EVP_PKEY_keygen") }
        let handle = EVPKeyHandle(taking: key)
        return KeyAgreementKeyPair(handle: handle, publicKey: try KeyAgreementPublicKey(handle: handle, explicit: false))
    }

    /// The key pair with private key `privateKey` (big-endian) on the parameters of `domain`; the
    /// public key is computed (`d·G`, or `g^x mod p`).
    ///
    /// - Throws: `CryptoError.invalidInput` when the private key is out of range.
    public init(privateKey: [UInt8], on domain: KeyAgreementPublicKey) throws(CryptoError) {
        let scalar = try BigNumber(privateKey)
        let publicValue: KeyParameter
        switch domain.algorithm {
        case .ecdh:
            let group = try ECGroupHandle(of: domain.handle)
            guard group.isValidScalar(scalar) else { throw .invalidInput("EC private key out of range") }
            publicValue = .octets("pub", try group.multiplyGenerator(by: scalar))
        case .dh:
            guard let p = domain.handle.bigNumber("p"), let g = domain.handle.bigNumber("g"),
                  let y = try? BigNumber(), let context = BN_CTX_new()
            else { throw .openSSLQueue("DH parameters") }
            defer { BN_CTX_free(context) }
            guard BN_is_zero(scalar.pointer) == 0, !BN_is_one(scalar.pointer).asBool,
                  BigNumber.compare(scalar, p) < 0 else { throw .invalidInput("DH private key out of range") }
            guard BN_mod_exp_mont_consttime(y.pointer, g.pointer, scalar.pointer, p.pointer, context, nil) == 1 else {
                throw .openSSLQueue("BN_mod_exp_mont_consttime")
            }
            publicValue = .integer("pub", try y.bytes(length: p.byteCount))
        }
        let handle = try makeKey(
            template: domain.handle, typeName: nil, selection: Int32(mrtd_EVP_PKEY_KEYPAIR()),
            parameters: [.integer("priv", privateKey), publicValue])
        self.init(handle: handle, publicKey: try KeyAgreementPublicKey(handle: handle, sameDomainAs: domain))
    }

    init(handle: EVPKeyHandle, publicKey: KeyAgreementPublicKey) {
        self.handle = handle
        self.publicKey = publicKey
    }

    /// The SubjectPublicKeyInfo of the public key (DER), with the curve named or, when
    /// `explicitParameters`, spelled out (as many chips' DG14 keys are). DH keys are always explicit.
    public func subjectPublicKeyInfo(explicitParameters: Bool = false) throws(CryptoError) -> [UInt8] {
        guard explicitParameters, algorithm == .ecdh else { return try publicKey.handle.subjectPublicKeyInfo() }
        // A copy of the public half, so the shared key object is never mutated.
        let copy = try makeKey(template: publicKey.handle, typeName: nil, selection: Int32(mrtd_EVP_PKEY_PUBLIC_KEY()),
                               parameters: [.octets("pub", encodedPublicKey)])
        guard EVP_PKEY_set_utf8_string_param(copy.pointer, "encoding", "explicit") == 1 else {
            throw .openSSLQueue("EVP_PKEY_set_utf8_string_param(encoding)")
        }
        return try copy.subjectPublicKeyInfo()
    }

    /// The shared secret with `peer` (Doc 9303-11 §9.6, BSI TR-03111 §4.3.1): the x-coordinate of
    /// the shared point for ECDH, `y^x mod p` for DH, both at full length (leading zeros kept).
    /// The peer key is not validated here: check ``KeyAgreementPublicKey/problem()`` first.
    public func sharedSecret(with peer: KeyAgreementPublicKey) throws(CryptoError) -> [UInt8] {
        guard peer.algorithm == algorithm else { throw .invalidInput("peer key of another algorithm") }
        let context = try EVPKeyContext(key: handle)
        guard EVP_PKEY_derive_init(context.pointer) == 1 else { throw .openSSLQueue("EVP_PKEY_derive_init") }
        if algorithm == .dh {
            guard EVP_PKEY_CTX_set_dh_pad(context.pointer, 1) == 1 else { throw .openSSLQueue("EVP_PKEY_CTX_set_dh_pad") }
        }
        guard EVP_PKEY_derive_set_peer_ex(context.pointer, peer.handle.pointer, 0) == 1 else {
            throw .openSSLQueue("EVP_PKEY_derive_set_peer_ex")
        }
        var length = 0
        guard EVP_PKEY_derive(context.pointer, nil, &length) == 1, length > 0 else { throw .openSSLQueue("EVP_PKEY_derive") }
        var secret = [UInt8](repeating: 0, count: length)
        guard (secret.withUnsafeMutableBufferPointer { EVP_PKEY_derive(context.pointer, $0.baseAddress, &length) }) == 1 else {
            secureWipe(&secret)
            throw .openSSLQueue("EVP_PKEY_derive")
        }
        let expected = publicKey.sharedSecretLength
        if length < expected {
            // Left-pad: a shared secret keeps the byte length of the field or of p.
            let padded = [UInt8](repeating: 0, count: expected - length) + secret.prefix(length)
            secureWipe(&secret)
            return padded
        }
        return Array(secret.prefix(length))
    }
}
