import Foundation

/// One operating-system thread that runs blocking C calls (PC/SC, libnfc) one after another, off
/// Swift's cooperative pool; async callers get the results through continuations.
///
/// The thread ends after `stop()` once the jobs already queued have run; jobs submitted after that
/// fail with `BlockingThread.Stopped`.
final class BlockingThread: @unchecked Sendable {
    struct Stopped: Error {}

    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var stopping = false

    init(name: String) {
        let thread = Thread { [self] in loop() }
        thread.name = name
        thread.start()
    }

    /// Runs `body` on the thread and returns its result.
    func run<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = submit { continuation.resume(with: Result { try body() }) }
            if !accepted { continuation.resume(throwing: Stopped()) }
        }
    }

    /// Queues `job`; false when the thread is stopping.
    @discardableResult
    func submit(_ job: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return false }
        jobs.append(job)
        condition.signal()
        return true
    }

    /// Lets the queued jobs finish, then ends the thread. Idempotent.
    func stop() {
        condition.lock()
        stopping = true
        condition.signal()
        condition.unlock()
    }

    private func loop() {
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if jobs.isEmpty {
                condition.unlock()
                return
            }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}
