internal import CLibCrypto

/// Owns one `EVP_MAC_CTX` and frees it in `deinit`.
final class EVPMACContext {
    let pointer: OpaquePointer

    init(_ mac: OpaquePointer) throws(CryptoError) {
        guard let context = EVP_MAC_CTX_new(mac) else { throw .openSSLQueue("EVP_MAC_CTX_new") }
        pointer = context
    }

    deinit {
        EVP_MAC_CTX_free(pointer)
    }
}

/// AES-CMAC (NIST SP 800-38B, RFC 4493), the MAC of AES secure messaging and of the PACE and CA
/// authentication tokens (Doc 9303-11 §9.8.6.2, §4.4.3.4); ICAO uses the first 8 bytes.
public enum AESCMAC {
    /// Returns the full 16-byte CMAC of `data` under an AES key of 16, 24 or 32 bytes.
    public static func mac(key: [UInt8], data: [UInt8]) throws(CryptoError) -> [UInt8] {
        let cipherName: String
        switch key.count {
        case 16: cipherName = "AES-128-CBC"
        case 24: cipherName = "AES-192-CBC"
        case 32: cipherName = "AES-256-CBC"
        default: throw .invalidKeyLength(key.count)
        }
        let context = try EVPMACContext(FetchedAlgorithms.shared.cmac)
        var cipherNameBytes = Array(cipherName.utf8CString)
        let initOK: Int32 = cipherNameBytes.withUnsafeMutableBufferPointer { name in
            var params = [
                OSSL_PARAM_construct_utf8_string("cipher", name.baseAddress, 0),
                OSSL_PARAM_construct_end(),
            ]
            return key.withUnsafeBufferPointer { keyBuffer in
                EVP_MAC_init(context.pointer, keyBuffer.baseAddress, keyBuffer.count, &params)
            }
        }
        guard initOK == 1 else { throw .openSSLQueue("EVP_MAC_init") }
        guard (data.withUnsafeBufferPointer { EVP_MAC_update(context.pointer, $0.baseAddress, $0.count) }) == 1 else {
            throw .openSSLQueue("EVP_MAC_update")
        }
        var tag = [UInt8](repeating: 0, count: 16)
        var length = 0
        guard (tag.withUnsafeMutableBufferPointer { EVP_MAC_final(context.pointer, $0.baseAddress, &length, $0.count) }) == 1,
              length == 16
        else { throw .openSSLQueue("EVP_MAC_final") }
        return tag
    }
}
