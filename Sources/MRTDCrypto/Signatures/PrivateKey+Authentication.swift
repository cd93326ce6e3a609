internal import CLibCrypto
import MRTDCore

/// Key generation and the raw signing operations a chip performs in Active Authentication; for the
/// virtual chip and tests.
extension PrivateKey {
    /// A fresh RSA key of `bits` bits, public exponent 65537.
    public static func generateRSA(bits: Int) throws(CryptoError) -> PrivateKey {
        let context = try EVPKeyContext(typeName: "RSA")
        guard EVP_PKEY_keygen_init(context.pointer) == 1,
              EVP_PKEY_CTX_set_rsa_keygen_bits(context.pointer, Int32(bits)) == 1
        else { throw .openSSLQueue("RSA keygen setup") }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen(context.pointer, &key) == 1, let key else { throw .openSSLQueue("EVP_PKEY_keygen") }
        return PrivateKey(handle: EVPKeyHandle(taking: key))
    }

    /// A fresh EC key on a standardized curve (Doc 9303-11 §9.5.1 IDs 8-18).
    public static func generateEC(standardizedDomainParameterID id: Int) throws(CryptoError) -> PrivateKey {
        guard let curve = ECGroup.StandardCurve(rawValue: id), let shortName = OBJ_nid2sn(curve.nid) else {
            throw .unsupported("parameter ID \(id) is not an elliptic curve")
        }
        let context = try EVPKeyContext(typeName: "EC")
        guard EVP_PKEY_keygen_init(context.pointer) == 1 else { throw .openSSLQueue("EVP_PKEY_keygen_init") }
        var name = Array(String(cString: shortName).utf8CString)
        let set: Int32 = name.withUnsafeMutableBufferPointer { buffer in
            var params = [
                OSSL_PARAM_construct_utf8_string("group", buffer.baseAddress, 0),
                OSSL_PARAM_construct_end(),
            ]
            return EVP_PKEY_CTX_set_params(context.pointer, &params)
        }
        guard set == 1 else { throw .openSSLQueue("EVP_PKEY_CTX_set_params(group)") }
        var key: OpaquePointer? = nil
        guard EVP_PKEY_keygen(context.pointer, &key) == 1, let key else { throw .openSSLQueue("EVP_PKEY_keygen") }
        return PrivateKey(handle: EVPKeyHandle(taking: key))
    }

    /// The modulus length of an RSA key in bits (0 for other keys).
    public var rsaModulusBits: Int {
        EVP_PKEY_get_base_id(handle.pointer) == EVP_PKEY_RSA ? Int(EVP_PKEY_get_bits(handle.pointer)) : 0
    }

    /// The EC group order length in bits (0 for other keys).
    public var ecOrderBits: Int {
        EVP_PKEY_get_base_id(handle.pointer) == EVP_PKEY_EC ? Int(EVP_PKEY_get_bits(handle.pointer)) : 0
    }

    /// The raw RSA private operation `m^d mod n` on a block of the modulus length.
    public func rsaPrivateOperation(_ block: [UInt8]) throws(CryptoError) -> [UInt8] {
        let context = try EVPKeyContext(key: handle)
        guard EVP_PKEY_sign_init(context.pointer) == 1,
              EVP_PKEY_CTX_set_rsa_padding(context.pointer, mrtd_RSA_NO_PADDING()) == 1
        else { throw .openSSLQueue("EVP_PKEY_sign_init") }
        let modulusLength = (rsaModulusBits + 7) / 8
        guard block.count <= modulusLength else { throw .invalidDataLength(block.count) }
        let input = [UInt8](repeating: 0, count: modulusLength - block.count) + block
        var length = modulusLength
        var output = [UInt8](repeating: 0, count: modulusLength)
        let status = output.withUnsafeMutableBufferPointer { out in
            input.withUnsafeBufferPointer { EVP_PKEY_sign(context.pointer, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard status == 1 else { throw .openSSLQueue("EVP_PKEY_sign") }
        return [UInt8](repeating: 0, count: modulusLength - length) + output.prefix(length)
    }

    /// An ECDSA signature over `digest`, as DER (`plain: false`) or plain `r || s` (BSI TR-03111).
    public func ecdsaSign(digest: [UInt8], plain: Bool) throws(CryptoError) -> [UInt8] {
        let context = try EVPKeyContext(key: handle)
        guard EVP_PKEY_sign_init(context.pointer) == 1 else { throw .openSSLQueue("EVP_PKEY_sign_init") }
        var length = 0
        guard (digest.withUnsafeBufferPointer { EVP_PKEY_sign(context.pointer, nil, &length, $0.baseAddress, $0.count) }) == 1 else {
            throw .openSSLQueue("EVP_PKEY_sign")
        }
        var output = [UInt8](repeating: 0, count: length)
        let status = output.withUnsafeMutableBufferPointer { out in
            digest.withUnsafeBufferPointer { EVP_PKEY_sign(context.pointer, out.baseAddress, &length, $0.baseAddress, $0.count) }
        }
        guard status == 1 else { throw .openSSLQueue("EVP_PKEY_sign") }
        let der = Array(output.prefix(length))
        guard plain else { return der }
        guard let rs = ECDSASignatureEncoding.plain(der: der, length: (ecOrderBits + 7) / 8) else {
            throw .openSSL("ECDSA signature not convertible to plain format")
        }
        return rs
    }
}
