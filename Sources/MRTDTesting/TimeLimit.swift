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
