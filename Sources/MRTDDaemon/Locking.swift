import Foundation

/// A lock for the few synchronous shared states (event fan-out, metrics, progress).
final class NSLockBox: @unchecked Sendable {
    private let lock = NSLock()
    func with<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }
}

/// A value behind a lock.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
    var current: Value { withValue { $0 } }
}

import MRTDCrypto

/// Zeroes request bytes that carried an access key.
func secureWipeBytes(_ bytes: inout [UInt8]) {
    secureWipe(&bytes)
}
