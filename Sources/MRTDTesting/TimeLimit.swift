/// A bounded wait ran out: what was awaited and for how long.
public struct TimeLimitExceeded: Error, CustomStringConvertible {
    public var what: String
    public var limit: Duration
    public var description: String { "timed out after \(limit): \(what)" }
}

/// Runs `body`, failing with ``TimeLimitExceeded`` after `limit`: in a test a hang is a failure, not
/// a stuck run. `body` is cancelled when the limit passes.
public func withTimeLimit<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withThrowingTaskGroup(of: T?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(for: limit)
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw TimeLimitExceeded(what: what, limit: limit) }
        return value
    }
}

/// Polls `probe` until it gives a value, failing with ``TimeLimitExceeded`` once `limit` has passed:
/// how a test waits for an event or a state. A loaded machine only makes the wait longer, and a
/// state that never comes still fails the test. (A fixed sleep before an assertion does neither.)
public func eventually<T>(
    _ what: String, within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
    _ probe: () async throws -> T?
) async throws -> T {
    let deadline = ContinuousClock.now + limit
    while true {
        if let value = try await probe() { return value }
        guard ContinuousClock.now < deadline else { throw TimeLimitExceeded(what: what, limit: limit) }
        try await Task.sleep(for: interval)
    }
}

/// ``eventually(_:within:every:_:)`` for a condition: returns once `condition` holds.
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(30), every interval: Duration = .milliseconds(10),
    _ condition: () async throws -> Bool
) async throws {
    _ = try await eventually(what, within: limit, every: interval) { try await condition() ? true : nil }
}
