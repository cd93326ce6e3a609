internal import CLibCrypto
import FoundationEssentials

extension BigNumber {
    /// Takes over a `BIGNUM` that OpenSSL allocated for the caller (`EVP_PKEY_get_bn_param`).
    convenience init(taking other: OpaquePointer) throws(CryptoError) {
        defer { BN_clear_free(other) }
        try self.init(copying: other)
    }
}

/// Owns an `EVP_PKEY_CTX` and frees it in `deinit`.
final class EVPKeyContext {
    let pointer: OpaquePointer

    init(key: EVPKeyHandle) throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key.pointer, nil) else {
            throw .openSSLQueue("EVP_PKEY_CTX_new_from_pkey")
        }
        pointer = context
    }

    init(typeName: String) throws(CryptoError) {
        guard let context = EVP_PKEY_CTX_new_from_name(nil, typeName, nil) else {
            throw .openSSLQueue("EVP_PKEY_CTX_new_from_name(\(typeName))")
        }
        pointer = context
    }

    deinit {
        EVP_PKEY_CTX_free(pointer)
    }
}

/// Owns an `EC_GROUP` and frees it in `deinit`.
final class ECGroupHandle {
    let pointer: OpaquePointer

    /// Takes ownership of `group`.
    init(taking group: OpaquePointer) {
        pointer = group
    }

    /// The group of an EC key, from its exported domain parameters (named or explicit).
    init(of key: EVPKeyHandle) throws(CryptoError) {
        var params: UnsafeMutablePointer<OSSL_PARAM>? = nil
        guard EVP_PKEY_todata(key.pointer, Int32(mrtd_EVP_PKEY_KEY_PARAMETERS()), &params) == 1, let params else {
            throw .openSSLQueue("EVP_PKEY_todata")
        }
        defer { OSSL_PARAM_free(params) }
        guard let group = EC_GROUP_new_from_params(params, nil, nil) else {
            throw .openSSLQueue("EC_GROUP_new_from_params")
        }
        pointer = group
    }

    /// The field size in bits.
    var degree: Int { Int(EC_GROUP_get_degree(pointer)) }

    /// The group order.
    var orderBits: Int {
        guard let order = EC_GROUP_get0_order(pointer) else { return 0 }
        return Int(BN_num_bits(order))
    }

    /// The OpenSSL NID of the named curve with these parameters, or 0. Explicit parameters are
    /// compared with the standardized curves first (cheap), then with every curve OpenSSL knows.
    var matchingCurveNID: Int32 {
        let named = EC_GROUP_get_curve_name(pointer)
        if named != 0 { return named }
        for (nid, group) in StandardizedCurveGroups.shared.groups where EC_GROUP_cmp(pointer, group, nil) == 0 {
            return nid
        }
        let matched = EC_GROUP_check_named_curve(pointer, 0, nil)
        CryptoError.clearOpenSSLQueue()
        return max(matched, 0)
    }

    /// Re-encodes a point as `04 || x || y` (SEC 1 §2.3.3, uncompressed).
    func uncompressed(_ encoded: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let point = EC_POINT_new(pointer) else { throw .openSSLQueue("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard (encoded.withUnsafeBufferPointer { EC_POINT_oct2point(pointer, point, $0.baseAddress, $0.count, nil) }) == 1 else {
            throw .openSSLQueue("EC_POINT_oct2point")
        }
        return try encode(point)
    }

    private func encode(_ point: OpaquePointer) throws(CryptoError) -> [UInt8] {
        let length = EC_POINT_point2oct(pointer, point, POINT_CONVERSION_UNCOMPRESSED, nil, 0, nil)
        guard length > 0 else { throw .openSSLQueue("EC_POINT_point2oct") }
        var out = [UInt8](repeating: 0, count: length)
        let written = out.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(pointer, point, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, length, nil)
        }
        guard written == length else { throw .openSSLQueue("EC_POINT_point2oct") }
        return out
    }

    deinit {
        EC_GROUP_free(pointer)
    }
}

extension Int32 {
    var asBool: Bool { self != 0 }
}

extension EVPKeyHandle {
    /// A big-number parameter of the key (`p`, `g`, `q`, `n`, `e`, `pub`), or `nil` when absent.
    func bigNumber(_ name: String) -> BigNumber? {
        var number: OpaquePointer? = nil
        guard EVP_PKEY_get_bn_param(pointer, name, &number) == 1, let number else {
            CryptoError.clearOpenSSLQueue()
            return nil
        }
        return try? BigNumber(taking: number)
    }

    /// A UTF-8 string parameter (`group`), or `nil`.
    func text(_ name: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_utf8_string_param(pointer, name, &buffer, buffer.count, &length) == 1 else {
            CryptoError.clearOpenSSLQueue()
            return nil
        }
        return String(decoding: buffer.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The key's SubjectPublicKeyInfo (RFC 5280 §4.1.2.7), DER.
    func subjectPublicKeyInfo() throws(CryptoError) -> [UInt8] {
        try encodeDER("i2d_PUBKEY") { i2d_PUBKEY(pointer, $0) }
    }

    /// Parses a DER SubjectPublicKeyInfo; trailing bytes are rejected.
    static func parsePublicKey(_ der: [UInt8]) throws(CryptoError) -> EVPKeyHandle {
        if let key = SubjectPublicKeyInfoFastLane.key(der) { return key }
        return try decodePublicKey(der)
    }

    /// `d2i_PUBKEY`: every SubjectPublicKeyInfo OpenSSL knows, through its decoders (slow in 3.0;
    /// `SubjectPublicKeyInfoFastLane` takes the common shapes first).
    static func decodePublicKey(_ der: [UInt8]) throws(CryptoError) -> EVPKeyHandle {
        guard !der.isEmpty else { throw .invalidInput("empty SubjectPublicKeyInfo") }
        var consumed = 0
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let key = d2i_PUBKEY(nil, &cursor, buffer.count)
            if let cursor, let base = buffer.baseAddress { consumed = cursor - base }
            return key
        }
        guard let parsed else { throw .openSSLQueue("d2i_PUBKEY") }
        let handle = EVPKeyHandle(taking: parsed)
        guard consumed == der.count else { throw .invalidInput("\(der.count - consumed) bytes after the SubjectPublicKeyInfo") }
        return handle
    }
}

/// The curves of the standardized domain parameters (IDs 8-18), built once; `EC_GROUP` objects are
/// only read after creation, so they may be shared between threads.
// Invariant: the EC_GROUPs are built once in init and only read afterwards.
final class StandardizedCurveGroups: @unchecked Sendable {
    static let shared = StandardizedCurveGroups()
    let groups: [(Int32, OpaquePointer)]

    private init() {
        groups = ECGroup.StandardCurve.allCases.compactMap { curve in
            EC_GROUP_new_by_curve_name(curve.nid).map { (curve.nid, $0) }
        }
    }
}
