internal import CLibCrypto
import Synchronization

/// An owned OpenSSL `BIGNUM`, cleared and freed when the last reference goes. Not thread-safe:
/// the group that owns it serialises access.
final class ChipBigNumber {
    let pointer: OpaquePointer

    init() throws(ChipCryptoError) {
        guard let bn = BN_new() else { throw .openSSL("BN_new") }
        pointer = bn
    }

    /// The unsigned big-endian value of `bytes`.
    init(_ bytes: [UInt8]) throws(ChipCryptoError) {
        guard let bn = BN_bin2bn(bytes, Int32(bytes.count), nil) else { throw .openSSL("BN_bin2bn") }
        pointer = bn
    }

    convenience init(word: UInt) throws(ChipCryptoError) {
        try self.init()
        try ChipOpenSSL.check(BN_set_word(pointer, word), "BN_set_word")
    }

    deinit {
        BN_clear_free(pointer)
    }

    var bitCount: Int { Int(BN_num_bits(pointer)) }
    var byteCount: Int { (bitCount + 7) / 8 }
    var isZero: Bool { BN_is_zero(pointer) == 1 }
    var isOne: Bool { BN_is_one(pointer) == 1 }

    /// Big-endian, left-padded with zeros to `length` bytes (or minimal when `length` is nil).
    func bytes(length: Int? = nil) throws(ChipCryptoError) -> [UInt8] {
        let size = length ?? byteCount
        guard byteCount <= size else { throw .invalidInput("value longer than \(size) bytes") }
        var output = [UInt8](repeating: 0, count: size)
        guard BN_bn2binpad(pointer, &output, Int32(size)) == Int32(size) else { throw .openSSL("BN_bn2binpad") }
        return output
    }

    static func compare(_ a: ChipBigNumber, _ b: ChipBigNumber) -> Int { Int(BN_cmp(a.pointer, b.pointer)) }

    /// A private key drawn from `random`: `bound`'s byte length, the bits above its bit length
    /// cleared, redrawn until it lies in [1, bound - 1]. Drawing this way lets a scripted source hand
    /// in a worked example's key unchanged.
    static func randomScalar(below bound: ChipBigNumber, random: (Int) throws -> [UInt8]) throws -> [UInt8] {
        let topBits = bound.bitCount % 8
        for _ in 0..<64 {
            var candidate = try random(bound.byteCount)
            if topBits != 0, !candidate.isEmpty { candidate[0] &= UInt8((1 << topBits) - 1) }
            let value = try ChipBigNumber(candidate)
            if !value.isZero && compare(value, bound) < 0 { return candidate }
            chipWipe(&candidate)
        }
        throw ChipCryptoError.invalidInput("the random source gave no key in range")
    }
}

/// An owned `BN_CTX` (OpenSSL's scratch space for big-number arithmetic) that also keeps every
/// number made through it alive until it goes: a `BIGNUM` pointer handed to OpenSSL must not outlive
/// its owner, and Swift may end an object's life right after its last use (the load of `pointer`).
final class ChipBigNumberContext {
    let pointer: OpaquePointer
    private var kept: [ChipBigNumber] = []

    init() throws(ChipCryptoError) {
        guard let ctx = BN_CTX_new() else { throw .openSSL("BN_CTX_new") }
        pointer = ctx
    }

    /// A new number (zero) that lives as long as this context.
    func number() throws(ChipCryptoError) -> ChipBigNumber { keep(try ChipBigNumber()) }

    /// The unsigned big-endian value of `bytes`, living as long as this context.
    func number(_ bytes: [UInt8]) throws(ChipCryptoError) -> ChipBigNumber { keep(try ChipBigNumber(bytes)) }

    /// A small value, living as long as this context.
    func number(word: UInt) throws(ChipCryptoError) -> ChipBigNumber { keep(try ChipBigNumber(word: word)) }

    private func keep(_ number: ChipBigNumber) -> ChipBigNumber {
        kept.append(number)
        return number
    }

    deinit {
        BN_CTX_free(pointer)
    }
}

extension Mutex where Value: Sendable {
    /// Runs `body` under the lock with the guarded numbers and a context for the call's temporaries:
    /// how ``ChipDHGroup`` and ``ChipECGroup`` do all their arithmetic.
    func withLockAndContext<T: Sendable>(_ body: (Value, ChipBigNumberContext) throws -> T) throws -> T {
        try withLock { value in
            let context = try ChipBigNumberContext()
            defer { withExtendedLifetime(context) {} }
            return try body(value, context)
        }
    }
}
