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
public final class ScriptedRandom: RandomSource, Sendable {
    private let bytes: [UInt8]
    /// How many bytes have been handed out.
    private let position = Mutex(0)

    /// Creates a source that returns `bytes`, in order, across all calls.
    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The number of bytes not yet handed out.
    public var remaining: Int {
        position.withLock { bytes.count - $0 }
    }

    /// Returns the next `count` bytes; a request past the end consumes nothing and throws.
    public func randomBytes(_ count: Int) throws -> [UInt8] {
        guard count >= 0 else { throw CryptoError.invalidInput("random byte count \(count)") }
        return try position.withLock { position in
            guard bytes.count - position >= count else { throw CryptoError.randomSourceExhausted }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }
    }
}

/// Wraps another source and records every byte it hands out, in order, so a live session can be
/// replayed later with `ScriptedRandom(recorded)`.
public final class RecordingRandom: RandomSource, Sendable {
    private let base: any RandomSource
    /// Every byte handed out so far, in order; held while `base` draws, so the log keeps the order.
    private let log = Mutex<[UInt8]>([])

    public init(_ base: any RandomSource) {
        self.base = base
    }

    /// Every byte handed out so far, in order.
    public var recorded: [UInt8] {
        log.withLock { $0 }
    }

    public func randomBytes(_ count: Int) throws -> [UInt8] {
        try log.withLock { log in
            let bytes = try base.randomBytes(count)
            log.append(contentsOf: bytes)
            return bytes
        }
    }
}
