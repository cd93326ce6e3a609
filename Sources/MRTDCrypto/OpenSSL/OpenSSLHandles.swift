internal import CLibCrypto

/// Owns a memory `BIO` and frees it in `deinit`. The BIO holds its own copy of any initial bytes.
final class MemoryBIO {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let bio = BIO_new(BIO_s_mem()) else { throw .openSSLQueue("BIO_new") }
        pointer = bio
    }

    convenience init(_ bytes: some Collection<UInt8>) throws(CryptoError) {
        try self.init()
        let bytes = Array(bytes)
        if bytes.isEmpty { return }
        let written = bytes.withUnsafeBytes { BIO_write(pointer, $0.baseAddress, Int32($0.count)) }
        guard written == Int32(bytes.count) else { throw .openSSLQueue("BIO_write") }
    }

    /// Everything written to the BIO and not yet read.
    var contents: [UInt8] {
        var data: UnsafeMutablePointer<CChar>? = nil
        let length = mrtd_BIO_get_mem_data(pointer, &data)
        guard length > 0, let data else { return [] }
        return data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    deinit {
        BIO_free(pointer)
    }
}

/// Owns an `X509` and frees it in `deinit`. Never mutated after creation, so it may be shared.
// Invariant: the X509 is never mutated after creation and freed only in deinit.
final class X509Handle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        X509_free(pointer)
    }
}

/// Owns an `EVP_PKEY` and frees it in `deinit`. Never mutated after creation; each signature gets
/// its own `EVP_PKEY_CTX`, so it may be shared between threads.
// Invariant: the EVP_PKEY is never mutated after creation and freed only in deinit.
final class EVPKeyHandle: @unchecked Sendable {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        EVP_PKEY_free(pointer)
    }
}

/// Owns a `CMS_ContentInfo` and frees it in `deinit`.
final class CMSHandle {
    let pointer: OpaquePointer

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
    }

    deinit {
        CMS_ContentInfo_free(pointer)
    }
}

/// Owns a `STACK_OF(X509)` (not the certificates in it) and frees it in `deinit`.
final class X509Stack {
    let pointer: OpaquePointer
    private var members: [X509Handle] = []  // keeps the pushed certificates alive

    init() throws(CryptoError) {
        guard let stack = mrtd_sk_X509_new_null() else { throw .openSSLQueue("sk_X509_new_null") }
        pointer = stack
    }

    func push(_ certificate: X509Handle) throws(CryptoError) {
        guard mrtd_sk_X509_push(pointer, certificate.pointer) > 0 else { throw .openSSLQueue("sk_X509_push") }
        members.append(certificate)
    }

    deinit {
        mrtd_sk_X509_free(pointer)
    }
}

/// The dotted form of an ASN.1 object identifier.
func dottedOID(_ object: OpaquePointer?) -> String? {
    guard let object else { return nil }
    var buffer = [CChar](repeating: 0, count: 128)
    let length = OBJ_obj2txt(&buffer, Int32(buffer.count), object, 1)
    guard length > 0, Int(length) < buffer.count else { return nil }
    return String(decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}

/// Runs an OpenSSL `i2d_*` encoder the usual two times: once for the length, once into the buffer.
func encodeDER(
    _ name: String, _ i2d: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
) throws(CryptoError) -> [UInt8] {
    let length = i2d(nil)
    guard length > 0 else { throw .openSSLQueue(name) }
    var der = [UInt8](repeating: 0, count: Int(length))
    let written = der.withUnsafeMutableBufferPointer { buffer in
        var cursor = buffer.baseAddress
        return i2d(&cursor)
    }
    guard written == length else { throw .openSSLQueue(name) }
    return der
}
