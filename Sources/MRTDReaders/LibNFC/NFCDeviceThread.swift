internal import CLibNFC
import Foundation

/// One thread of its own that runs blocking libnfc calls in order, never on Swift's cooperative
/// pool. Async callers submit a body and await its result through a continuation; between jobs
/// the thread runs a periodic `tick` (card polling for a device, rescans for the scanner).
final class NFCDeviceThread: @unchecked Sendable {
    // All mutable state is guarded by `condition`.
    private let condition = NSCondition()
    private var jobs: [() -> Void] = []
    private var finishing = false
    private var ticking = false
    private var tick: (() -> Void)?
    private let tickInterval: TimeInterval
    private let name: String

    struct Stopped: Error {}

    init(name: String, tickInterval: Duration) {
        self.name = name
        let (s, atto) = tickInterval.components
        self.tickInterval = max(0.001, Double(s) + Double(atto) / 1e18)
        let thread = Thread { [self] in
            // Shows in ps, top and /proc/<pid>/task/*/comm.
            mrtd_name_current_thread(name)
            main()
        }
        thread.stackSize = 1 << 20
        thread.start()
    }

    /// Starts (or stops) the periodic tick. `body` runs on the thread.
    func setTick(_ body: (() -> Void)?) {
        condition.lock()
        tick = body
        ticking = body != nil
        condition.broadcast()
        condition.unlock()
    }

    /// Queues `job`; false when the thread is finishing and takes no more work.
    @discardableResult
    func submit(_ job: @escaping () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !finishing else { return false }
        jobs.append(job)
        condition.broadcast()
        return true
    }

    /// Runs `body` on the thread and returns its result.
    func run<T: Sendable>(_ body: @escaping () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = submit { continuation.resume(with: Result { try body() }) }
            if !accepted { continuation.resume(throwing: Stopped()) }
        }
    }

    /// Runs `body` on the thread and blocks the calling (dedicated) thread until it is done.
    /// Never call this from the thread itself or from the cooperative pool.
    func runAndWait<T>(_ body: @escaping () -> T) -> T? {
        let done = NSCondition()
        var result: T?
        var finished = false
        let accepted = submit {
            let value = body()
            done.lock()
            result = value
            finished = true
            done.signal()
            done.unlock()
        }
        guard accepted else { return nil }
        done.lock()
        while !finished { done.wait() }
        done.unlock()
        return result
    }

    /// Runs the jobs already queued, then ends the thread. Later submissions are refused.
    func finish() {
        condition.lock()
        finishing = true
        condition.broadcast()
        condition.unlock()
    }

    private func main() {
        var nextTick = Date(timeIntervalSinceNow: tickInterval)
        while true {
            condition.lock()
            while jobs.isEmpty && !finishing && !(ticking && Date() >= nextTick) {
                if ticking {
                    _ = condition.wait(until: nextTick)
                } else {
                    condition.wait()
                }
            }
            if !jobs.isEmpty {
                let job = jobs.removeFirst()
                condition.unlock()
                job()
                continue
            }
            if finishing {
                condition.unlock()
                return
            }
            let body = tick
            condition.unlock()
            body?()
            nextTick = Date(timeIntervalSinceNow: tickInterval)
        }
    }
}
