internal import CLibCrypto

/// The chip's side of Active Authentication (Doc 9303-11 §6.1): INTERNAL AUTHENTICATE signs the
/// terminal's 8-byte challenge with the DG15 private key. RSA keys sign an ISO/IEC 9796-2 scheme 1
/// message representative (partial recovery, random M1) with the raw private operation; EC keys sign
/// the challenge's hash with ECDSA, plain `r || s` (BSI TR-03111) or DER.
// Invariant: `key` is never mutated after init; OpenSSL signing with a shared EVP_PKEY is thread-safe.
public final class ChipActiveAuthentication: @unchecked Sendable {
    /// The hashes Active Authentication signs with.
    public typealias Digest = ChipDigest

    private let key: OpaquePointer

    /// The DG15 private key, PKCS #8 DER.
    public init(pkcs8 der: [UInt8]) throws(ChipCryptoError) {
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor = buffer.baseAddress
            return d2i_AutoPrivateKey(nil, &cursor, buffer.count)
        }
        guard let parsed else {
            ERR_clear_error()
            throw .invalidInput("not a PKCS #8 private key")
        }
        key = parsed
    }

    deinit {
        EVP_PKEY_free(key)
    }

    private var isRSA: Bool { EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA }
    private var bits: Int { Int(EVP_PKEY_get_bits(key)) }

    /// The answer to INTERNAL AUTHENTICATE for `challenge` (RND.IFD). `random` gives RSA's M1.
    /// `trailer` replaces ISO/IEC 9796-2's trailer (a defective chip of TR-03105-5.1 ISO7816_F_08).
    public func sign(
        challenge: [UInt8], digest: Digest, plainECDSA: Bool, trailer: [UInt8]? = nil, random: (Int) throws -> [UInt8]
    ) throws -> [UInt8] {
        if isRSA {
            return try rawRSA(try Self.representative(modulusBits: bits, m2: challenge, digest: digest, trailer: trailer, random: random))
        }
        return try ecdsa(try digest.hash(challenge), plain: plainECDSA)
    }

    /// ISO/IEC 9796-2 scheme 1, partial recovery: F = 6A || M1 || H(M1 || M2) || trailer, F one bit
    /// shorter than the modulus; trailer BC for SHA-1, else the hash identifier and CC.
    public static func representative(
        modulusBits: Int, m2: [UInt8], digest: Digest, trailer: [UInt8]? = nil, random: (Int) throws -> [UInt8]
    ) throws -> [UInt8] {
        let length = (modulusBits - 1 + 7) / 8
        let trailer: [UInt8] = trailer ?? (digest == .sha1 ? [0xBC] : [digest.identifier, 0xCC])
        let m1Length = length - 1 - digest.length - trailer.count
        guard m1Length > 0 else { throw ChipCryptoError.invalidInput("RSA key too small for \(digest.rawValue)") }
        let m1 = try random(m1Length)
        return [0x6A] + m1 + (try digest.hash(m1 + m2)) + trailer
    }

    /// `f^d mod n`, at the modulus length.
    private func rawRSA(_ block: [UInt8]) throws -> [UInt8] {
        let modulusLength = (bits + 7) / 8
        guard block.count <= modulusLength, let context = EVP_PKEY_CTX_new(key, nil) else { throw ChipCryptoError.openSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        try ChipOpenSSL.check(EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
        guard EVP_PKEY_CTX_set_rsa_padding(context, mrtd_RSA_NO_PADDING()) > 0 else { throw ChipCryptoError.openSSL("EVP_PKEY_CTX_set_rsa_padding") }
        let input = [UInt8](repeating: 0, count: modulusLength - block.count) + block
        var output = [UInt8](repeating: 0, count: modulusLength)
        var length = modulusLength
        try ChipOpenSSL.check(EVP_PKEY_sign(context, &output, &length, input, input.count), "EVP_PKEY_sign")
        return [UInt8](repeating: 0, count: modulusLength - length) + output.prefix(length)
    }

    /// ECDSA over `hash`: DER `SEQUENCE { r, s }` or plain `r || s`, each of the order's length.
    private func ecdsa(_ hash: [UInt8], plain: Bool) throws -> [UInt8] {
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw ChipCryptoError.openSSL("EVP_PKEY_CTX_new") }
        defer { EVP_PKEY_CTX_free(context) }
        try ChipOpenSSL.check(EVP_PKEY_sign_init(context), "EVP_PKEY_sign_init")
        var length = 0
        try ChipOpenSSL.check(EVP_PKEY_sign(context, nil, &length, hash, hash.count), "EVP_PKEY_sign")
        var output = [UInt8](repeating: 0, count: length)
        try ChipOpenSSL.check(EVP_PKEY_sign(context, &output, &length, hash, hash.count), "EVP_PKEY_sign")
        let der = Array(output.prefix(length))
        guard plain else { return der }
        let size = (bits + 7) / 8
        guard let sequence = try ChipTLV.parseAll(der).first, sequence.tag == 0x30 else { throw ChipCryptoError.openSSL("ECDSA signature") }
        let parts = try ChipTLV.parseAll(sequence.value)
        guard parts.count == 2 else { throw ChipCryptoError.openSSL("ECDSA signature") }
        return try parts.flatMap { part throws -> [UInt8] in
            let magnitude = Array(part.value.drop { $0 == 0 })
            guard magnitude.count <= size else { throw ChipCryptoError.openSSL("ECDSA signature component") }
            return [UInt8](repeating: 0, count: size - magnitude.count) + magnitude
        }
    }
}
