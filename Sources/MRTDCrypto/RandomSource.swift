internal import CLibCrypto
import FoundationEssentials
import Synchronization

/// A source of random bytes. Protocol code takes one so tests can replay the ICAO worked examples
/// (Doc 9303-11 Appendices D, G, H, I) byte for byte.
public protocol RandomSource: Sendable {
    /// Returns `count` random bytes.
    func randomBytes(_ count: Int) throws -> [UInt8]
}

/// The operating system's cryptographically secure generator, through OpenSSL `RAND_bytes`.
public struct SystemRandom: RandomSource {
    public init() {}

    public func randomBytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0, count <= Int(Int32.max) else { throw CryptoError.invalidInput("random byte count \(count)") }
        if count == 0 { return [] }
        var bytes = [UInt8](repeating: 0, count: count)
        let status = bytes.withUnsafeMutableBufferPointer { RAND_bytes($0.baseAddress, Int32(count)) }
        guard status == 1 else { throw CryptoError.openSSLQueue("RAND_bytes") }
        return bytes
    }
}

/// A test double that hands out the given bytes in order and throws
/// `CryptoError.randomSourceExhausted` when asked for more than it has left.
// Invariant: `position` is only touched inside `lock.withLock`.
public final class ScriptedRandom: RandomSource, @unchecked Sendable {
    private let lock = Mutex(())
    private let bytes: [UInt8]
    private var position = 0

    /// Creates a source that returns `bytes`, in order, across all calls.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The number of bytes not yet handed out.
    public var remaining: Int {
        lock.withLock { _ in bytes.count - position }
    }

    /// Returns the next `count` bytes; a request past the end consumes nothing and throws.
    public func randomBytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0 else { throw CryptoError.invalidInput("random byte count \(count)") }
        return try lock.withLock { _ in
            guard bytes.count - position >= count else { throw CryptoError.randomSourceExhausted }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }
    }
}

/// Wraps another source and records every byte it hands out, in order, so a live session can be
/// replayed later with `ScriptedRandom(recorded)`.
// Invariant: `log` is only touched inside `lock.withLock`.
public final class RecordingRandom: RandomSource, @unchecked Sendable {
    private let lock = Mutex(())
    private let base: any RandomSource
    private var log: [UInt8] = []

    public init(_ base: any RandomSource) {
        self.base = base
    }

    /// Every byte handed out so far, in order.
    public var recorded: [UInt8] {
        lock.withLock { _ in log }
    }

    public func randomBytes(_ count: Int) throws -> [UInt8] {
        try lock.withLock { _ in
            let bytes = try base.randomBytes(count)
            log.append(contentsOf: bytes)
            return bytes
        }
    }
}
