internal import CLibCrypto
import MRTDCore

/// The Active Authentication public key of DG15 (Doc 9303-11 §6.1, Doc 9303-10 §4.7.15): RSA or EC.
public struct ActiveAuthenticationPublicKey: Sendable {
    /// RSA or EC.
    public enum KeyType: String, Sendable, Codable {
        case rsa = "RSA"
        case ec = "EC"
    }

    /// The key type.
    public let keyType: KeyType
    /// The modulus length (RSA) or the group order length (EC) in bits.
    public let bits: Int
    /// The curve of an EC key (`P-256`, `brainpoolP256r1`) when it is a standardized one.
    public let curveName: String?
    let handle: EVPKeyHandle

    /// Parses DG15: tag `6F` around a SubjectPublicKeyInfo (Doc 9303-10 §4.7.15).
    public init(dg15 rawBytes: [UInt8]) throws(CryptoError) {
        let file: TLV
        do {
            file = try TLV.parse(rawBytes, expecting: 0x6F)
        } catch {
            throw .invalidInput("DG15: \(error)")
        }
        try self.init(subjectPublicKeyInfo: file.bytes)
    }

    /// Parses a DER SubjectPublicKeyInfo holding an RSA or EC key (named or explicit parameters).
    public init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let handle = try EVPKeyHandle.parsePublicKey(der)
        self.handle = handle
        switch EVP_PKEY_get_base_id(handle.pointer) {
        case EVP_PKEY_RSA:
            keyType = .rsa
            bits = Int(EVP_PKEY_get_bits(handle.pointer))
            curveName = nil
        case EVP_PKEY_EC:
            keyType = .ec
            let group = try ECGroupHandle(of: handle)
            bits = group.orderBits
            let nid = group.matchingCurveNID
            curveName = nid != 0 ? OBJ_nid2sn(nid).map {
                StandardizedDomainParameterTable.displayName(openSSLName: String(cString: $0))
            } : nil
        case let other:
            throw .unsupported("Active Authentication key type NID \(other)")
        }
    }

    /// The raw RSA public operation `s^e mod n`, left-padded to the modulus length.
    func rsaPublicOperation(_ signature: [UInt8]) throws(CryptoError) -> [UInt8] {
        let context = try EVPKeyContext(key: handle)
        guard EVP_PKEY_verify_recover_init(context.pointer) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context.pointer, mrtd_RSA_NO_PADDING()) == 1
        else { throw .openSSLQueue("EVP_PKEY_verify_recover_init") }
        let modulusLength = (bits + 7) / 8
        guard signature.count <= modulusLength else { throw .invalidInput("signature longer than the modulus") }
        let input = signature.count == modulusLength
            ? signature : [UInt8](repeating: 0, count: modulusLength - signature.count) + signature
        var length = modulusLength
        var output = [UInt8](repeating: 0, count: modulusLength)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { EVP_PKEY_verify_recover(context.pointer, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard status == 1 else { throw .openSSLQueue("EVP_PKEY_verify_recover") }
        if length == modulusLength { return output }
        return [UInt8](repeating: 0, count: modulusLength - length) + output.prefix(length)
    }

    /// `n - value` for the modulus `n` (ISO/IEC 9796-2 §B.6: the signer may send the smaller of
    /// `J^d` and `n - J^d`).
    func rsaModulusMinus(_ value: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let n = handle.bigNumber("n") else { throw .invalidInput("RSA key without modulus") }
        let v = try BigNumber(value)
        let result = try BigNumber()
        guard BN_sub(result.pointer, n.pointer, v.pointer) == 1, BN_is_negative(result.pointer) == 0 else {
            throw .invalidInput("value larger than the modulus")
        }
        return try result.bytes(length: n.byteCount)
    }

    /// Verifies an ECDSA signature (DER `ECDSA-Sig-Value`) over `digest`.
    func ecdsaVerify(derSignature: [UInt8], digest: [UInt8]) throws(CryptoError) -> Bool {
        let context = try EVPKeyContext(key: handle)
        guard EVP_PKEY_verify_init(context.pointer) == 1 else { throw .openSSLQueue("EVP_PKEY_verify_init") }
        let status = derSignature.withUnsafeBufferPointer { signature in
            digest.withUnsafeBufferPointer { EVP_PKEY_verify(context.pointer, signature.baseAddress, signature.count, $0.baseAddress, $0.count) }
        }
        CryptoError.clearOpenSSLQueue()
        return status == 1
    }
}
