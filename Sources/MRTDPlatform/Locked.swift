import Synchronization

/// A `Mutex` on the heap: the state escaping closures share (a local captured by a callback).
/// State that a class owns sits in a `Mutex` stored property instead.
package final class Locked<Value>: Sendable {
    private let mutex: Mutex<Value>

    package init(_ value: sending Value) { mutex = Mutex(value) }

    /// Runs `body` with the value, under the lock.
    package func withValue<T, E: Error>(_ body: (inout sending Value) throws(E) -> sending T) throws(E) -> sending T {
        try mutex.withLock(body)
    }
}

extension Locked where Value: Sendable {
    /// A copy of the value.
    package var current: Value { mutex.withLock { $0 } }
}
