internal import CLibcShims
import Dispatch
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// One operating-system thread that runs blocking work (PC/SC, libnfc, PKCS #11, file writes) one
/// job after another, off Swift's cooperative pool; async callers get the results through
/// continuations. Between jobs the thread can run a periodic `tick` (card polling, rescans).
///
/// The only executor for blocking work in the package: its state sits in a `Mutex`, and the thread
/// sleeps on one semaphore (woken by every submission, `setTick` and `stop`).
///
/// The thread ends after `stop()` once the jobs already queued have run; jobs submitted after that
/// fail with `BlockingThread.Stopped`.
package final class BlockingThread: Sendable {
    /// The thread is stopping and takes no more work.
    package struct Stopped: Error {
        package init() {}
    }

    private struct State {
        var jobs: [@Sendable () -> Void] = []
        var stopping = false
        var tick: (@Sendable () -> Void)?
    }

    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let tickInterval: Duration

    /// Starts the thread. `name` shows in ps, top and /proc/<pid>/task/*/comm (first 15 bytes);
    /// `tickInterval` spaces the runs of `setTick`'s body; `stackSize` nil is the system's default.
    package init(name: String, tickInterval: Duration = .seconds(1), stackSize: Int? = nil) {
        self.tickInterval = max(tickInterval, .milliseconds(1))
        Self.detach(name: name, stackSize: stackSize) { [self] in loop() }
    }

    /// Runs `body` on the thread and returns its result.
    package func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            let accepted = submit {
                do throws(E) {
                    continuation.resume(returning: try body())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
            if !accepted { continuation.resume(throwing: Stopped()) }
        }
    }

    /// Runs `body` on the thread and blocks the calling (dedicated) thread until it is done; nil
    /// when the thread is stopping. Never call this from the thread itself or from the cooperative pool.
    package func runAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> T? {
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        guard submit({
            box.set(body())
            done.signal()
        }) else { return nil }
        done.wait()
        return box.take()
    }

    /// Queues `job`; false when the thread is stopping.
    @discardableResult
    package func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = state.withLock { state in
            guard !state.stopping else { return false }
            state.jobs.append(job)
            return true
        }
        if accepted { wake.signal() }
        return accepted
    }

    /// Starts (or, with nil, stops) the periodic tick. `body` runs on the thread between jobs.
    package func setTick(_ body: (@Sendable () -> Void)?) {
        state.withLock { $0.tick = body }
        wake.signal()
    }

    /// Lets the queued jobs finish, then ends the thread. Later submissions are refused. Idempotent.
    package func stop() {
        state.withLock { $0.stopping = true }
        wake.signal()
    }

    private enum Step {
        case job(@Sendable () -> Void)
        case tick(@Sendable () -> Void)
        case exit
        case wait(ticking: Bool)
    }

    private func loop() {
        var nextTick = DispatchTime.now() + .nanoseconds(Int(tickInterval.nanoseconds))
        while true {
            let now = DispatchTime.now()
            let step: Step = state.withLock { state in
                if !state.jobs.isEmpty { return .job(state.jobs.removeFirst()) }
                if state.stopping { return .exit }
                if let tick = state.tick {
                    return now >= nextTick ? .tick(tick) : .wait(ticking: true)
                }
                return .wait(ticking: false)
            }
            switch step {
            case .job(let job):
                job()
            case .tick(let tick):
                tick()
                nextTick = DispatchTime.now() + .nanoseconds(Int(tickInterval.nanoseconds))
            case .exit:
                return
            case .wait(let ticking):
                if ticking { _ = wake.wait(timeout: nextTick) } else { wake.wait() }
            }
        }
    }

    /// Starts a detached operating-system thread named `name` that runs `body` once.
    /// `stackSize` nil is the system's default.
    package static func detach(name: String, stackSize: Int? = nil, _ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(ThreadStart(name: name, body: body)).toOpaque()
        let attributes = UnsafeMutablePointer<pthread_attr_t>.allocate(capacity: 1)
        pthread_attr_init(attributes)
        defer {
            pthread_attr_destroy(attributes)
            attributes.deallocate()
        }
        if let stackSize { pthread_attr_setstacksize(attributes, stackSize) }
        pthread_attr_setdetachstate(attributes, Int32(PTHREAD_CREATE_DETACHED))
        #if canImport(Darwin)
        var thread: pthread_t?
        #else
        var thread: pthread_t = 0
        #endif
        let created = pthread_create(&thread, attributes, { raw in
            #if canImport(Darwin)
            let start = Unmanaged<ThreadStart>.fromOpaque(raw).takeRetainedValue()
            #else
            let start = Unmanaged<ThreadStart>.fromOpaque(raw!).takeRetainedValue()
            #endif
            start.nameCurrentThread()
            start.body()
            return nil
        }, context)
        // Without a thread the process cannot do its blocking work at all (resource exhaustion).
        precondition(created == 0, "pthread_create failed (\(created))")
    }
}

/// The result `runAndWait` hands from the thread to the waiting caller.
private final class ResultBox<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    func set(_ new: T) { value.withLock { $0 = new } }
    func take() -> T? { value.withLock { $0.take() } }
}

private final class ThreadStart: Sendable {
    let name: String
    let body: @Sendable () -> Void
    init(name: String, body: @escaping @Sendable () -> Void) {
        self.name = name
        self.body = body
    }

    /// Linux: prctl(PR_SET_NAME), what pthread_setname_np does for the calling thread (Glibc's
    /// module does not export that GNU function); the kernel keeps 15 bytes. Not a write to
    /// /proc/thread-self/comm: in a process that is not dumpable (ProcessHardening) that file
    /// belongs to root, and the daemon's user could not open it.
    func nameCurrentThread() {
        #if os(Linux)
        _ = cthread_set_name(name)
        #endif
    }
}

extension Duration {
    fileprivate var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
