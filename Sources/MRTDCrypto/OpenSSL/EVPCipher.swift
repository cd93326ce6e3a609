internal import CLibCrypto

/// Owns one `EVP_CIPHER_CTX` and frees it in `deinit`.
final class EVPCipherContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let context = EVP_CIPHER_CTX_new() else { throw .openSSLQueue("EVP_CIPHER_CTX_new") }
        pointer = context
    }

    deinit {
        EVP_CIPHER_CTX_free(pointer)
    }
}

/// One-shot block cipher operations through the EVP API, padding disabled. Callers validate key,
/// IV and data lengths first so errors name the caller's mistake rather than OpenSSL's.
enum EVPCipher {
    /// Encrypts or decrypts `data` (a whole number of blocks) with `cipher`.
    static func crypt(
        _ cipher: OpaquePointer, key: [UInt8], iv: [UInt8]?, data: [UInt8], encrypt: Bool
    ) throws(CryptoError) -> [UInt8] {
        if data.isEmpty { return [] }
        let context = try EVPCipherContext()
        var output = [UInt8](repeating: 0, count: data.count + 32)
        var written: Int32 = 0
        var finalWritten: Int32 = 0
        let initOK: Int32 = key.withUnsafeBufferPointer { keyBuffer in
            if let iv {
                return iv.withUnsafeBufferPointer { ivBuffer in
                    EVP_CipherInit_ex2(context.pointer, cipher, keyBuffer.baseAddress, ivBuffer.baseAddress, encrypt ? 1 : 0, nil)
                }
            }
            return EVP_CipherInit_ex2(context.pointer, cipher, keyBuffer.baseAddress, nil, encrypt ? 1 : 0, nil)
        }
        guard initOK == 1 else { throw .openSSLQueue("EVP_CipherInit_ex2") }
        guard EVP_CIPHER_CTX_set_padding(context.pointer, 0) == 1 else {
            throw .openSSLQueue("EVP_CIPHER_CTX_set_padding")
        }
        let updateOK: Int32 = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                guard EVP_CipherUpdate(context.pointer, out.baseAddress, &written, input.baseAddress, Int32(input.count)) == 1 else {
                    return 0
                }
                return EVP_CipherFinal_ex(context.pointer, out.baseAddress! + Int(written), &finalWritten)
            }
        }
        guard updateOK == 1 else {
            secureWipe(&output)
            throw .openSSLQueue("EVP_CipherUpdate")
        }
        let total = Int(written + finalWritten)
        guard total == data.count else { throw .openSSL("cipher produced \(total) bytes for \(data.count)") }
        output.removeLast(output.count - total)
        return output
    }
}
