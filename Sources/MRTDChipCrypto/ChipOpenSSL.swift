internal import CLibCrypto

/// The few OpenSSL calls every chip primitive shares: one-shot block cipher runs and digests.
/// Written for the chip side only (no product crypto type is involved), so that the virtual chip and
/// the reader compute secure messaging, keys and mappings with code of their own.
enum ChipOpenSSL {
    /// Fails with the call's name when an OpenSSL call returned anything but 1.
    static func check(_ result: Int32, _ call: String) throws(ChipCryptoError) {
        guard result == 1 else {
            ERR_clear_error()
            throw .openSSL(call)
        }
    }

    /// Runs `cipher` (an `EVP_*` CBC or ECB cipher) once over `data`, without padding: `data` must
    /// be a whole number of blocks.
    static func run(
        _ cipher: OpaquePointer?, key: [UInt8], iv: [UInt8]?, data: [UInt8], encrypt: Bool
    ) throws(ChipCryptoError) -> [UInt8] {
        guard let cipher, let context = EVP_CIPHER_CTX_new() else { throw .openSSL("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let initialised: Int32 = iv.map { iv in
            EVP_CipherInit_ex(context, cipher, nil, key, iv, encrypt ? 1 : 0)
        } ?? EVP_CipherInit_ex(context, cipher, nil, key, nil, encrypt ? 1 : 0)
        try check(initialised, "EVP_CipherInit_ex")
        try check(EVP_CIPHER_CTX_set_padding(context, 0), "EVP_CIPHER_CTX_set_padding")
        var output = [UInt8](repeating: 0, count: data.count + 32)
        var written: Int32 = 0
        try check(EVP_CipherUpdate(context, &output, &written, data, Int32(data.count)), "EVP_CipherUpdate")
        var tail = [UInt8](repeating: 0, count: 32)
        var tailWritten: Int32 = 0
        try check(EVP_CipherFinal_ex(context, &tail, &tailWritten), "EVP_CipherFinal_ex")
        let result = Array(output.prefix(Int(written))) + tail.prefix(Int(tailWritten))
        chipWipe(&output)
        return result
    }

    /// SHA-1 or SHA-256 (or another `EVP_MD`) of `data`.
    static func digest(_ md: OpaquePointer?, _ data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        try check(EVP_Digest(data, data.count, &output, &length, md, nil), "EVP_Digest")
        return Array(output.prefix(Int(length)))
    }
}

/// Overwrites key material before the array goes (the chip's own copy of the product's secure wipe).
public func chipWipe(_ bytes: inout [UInt8]) {
    for i in bytes.indices { bytes[i] = 0 }
    bytes.withUnsafeMutableBytes { buffer in
        if let base = buffer.baseAddress { OPENSSL_cleanse(base, buffer.count) }
    }
}
