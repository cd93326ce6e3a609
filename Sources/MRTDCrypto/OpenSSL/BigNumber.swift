internal import CLibCrypto
import Synchronization

/// Owns a `BIGNUM` and clears and frees it in `deinit` (values may be private keys).
final class BigNumber {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let bn = BN_new() else { throw .openSSLQueue("BN_new") }
        pointer = bn
    }

    /// The unsigned big-endian integer `bytes`.
    convenience init(_ bytes: [UInt8]) throws(CryptoError) {
        try self.init()
        let ok = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), pointer) }
        guard ok != nil else { throw .openSSLQueue("BN_bin2bn") }
    }

    /// A copy of a borrowed `BIGNUM`.
    convenience init(copying other: OpaquePointer) throws(CryptoError) {
        try self.init()
        guard BN_copy(pointer, other) != nil else { throw .openSSLQueue("BN_copy") }
    }

    convenience init(word: UInt) throws(CryptoError) {
        try self.init()
        guard BN_set_word(pointer, word) == 1 else { throw .openSSLQueue("BN_set_word") }
    }

    deinit {
        BN_clear_free(pointer)
    }

    var bitCount: Int { Int(BN_num_bits(pointer)) }
    var byteCount: Int { (bitCount + 7) / 8 }
    var isZero: Bool { BN_is_zero(pointer) == 1 }
    var isOne: Bool { BN_is_one(pointer) == 1 }

    /// Big-endian bytes, left-padded with zeros to `length`.
    func bytes(length: Int) throws(CryptoError) -> [UInt8] {
        guard byteCount <= length else { throw .invalidInput("integer of \(byteCount) bytes does not fit \(length)") }
        var out = [UInt8](repeating: 0, count: length)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(pointer, $0.baseAddress, Int32(length)) }
        guard written == Int32(length) else { throw .openSSLQueue("BN_bn2binpad") }
        return out
    }

    /// Big-endian bytes without leading zeros.
    func bytes() throws(CryptoError) -> [UInt8] { try bytes(length: byteCount) }

    static func compare(_ a: BigNumber, _ b: BigNumber) -> Int { Int(BN_cmp(a.pointer, b.pointer)) }
}

extension BigNumber {
    /// A private key below `bound` (a group order, or q for DH): draws `bound`'s byte length from
    /// `random`, clears the bits above `bound`'s top bit and draws again until 0 < x < bound
    /// (rejection sampling, so the key is uniform). Returns the big-endian bytes, `bound.byteCount`
    /// long, in the order the random source gave them (worked examples replay byte for byte).
    static func randomBytes(below bound: BigNumber, using random: any RandomSource) throws -> [UInt8] {
        let topBits = bound.bitCount % 8
        for _ in 0..<64 {
            var candidate = try random.randomBytes(bound.byteCount)
            if topBits != 0, !candidate.isEmpty { candidate[0] &= UInt8((1 << topBits) - 1) }
            let x = try BigNumber(candidate)
            if !x.isZero && compare(x, bound) < 0 { return candidate }
            secureWipe(&candidate)
        }
        throw CryptoError.invalidInput("random source gave no private key in range")
    }
}

/// Owns a `BN_CTX` (scratch space for BIGNUM arithmetic) and frees it in `deinit`. Not thread-safe:
/// the owner serialises access.
final class BigNumberContext {
    let pointer: OpaquePointer

    init() throws(CryptoError) {
        guard let ctx = BN_CTX_new() else { throw .openSSLQueue("BN_CTX_new") }
        pointer = ctx
    }

    deinit {
        BN_CTX_free(pointer)
    }
}


/// Keeps OpenSSL-owning objects alive to the end of a scope. Swift may release an object right after
/// the last read of its `pointer`, before the C call that receives the pointer has run; every
/// temporary whose pointer goes into a C call is therefore registered here.
final class LifetimeScope {
    private var objects: [AnyObject] = []

    init() {}

    func keep<T: AnyObject>(_ object: T) -> T {
        objects.append(object)
        return object
    }
}

extension Mutex where Value: Sendable {
    /// Runs `body` under the lock with the guarded OpenSSL objects and a scope that keeps the call's
    /// temporaries alive: how ``DHGroup`` and ``ECGroup`` do all their arithmetic.
    func withLockInScope<T: Sendable>(_ body: (Value, LifetimeScope) throws -> T) throws -> T {
        try withLock { value in
            let scope = LifetimeScope()
            defer { withExtendedLifetime(scope) {} }
            return try body(value, scope)
        }
    }
}
