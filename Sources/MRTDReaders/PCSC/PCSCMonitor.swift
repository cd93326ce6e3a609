internal import CPCSCLite
import FoundationEssentials
import Synchronization
import MRTDCore
import Dispatch
import MRTDPlatform

/// Watches pcscd on its own thread: reader arrival and removal through the `\\?PnP?\Notification`
/// pseudo-reader, card insertion and removal through `SCardGetStatusChange` (blocking, no polling),
/// pcscd going away and coming back. Fans the events out to every subscriber.
// The monitor thread is started once (`started`).
final class PCSCMonitor: Sendable {
    static let pnpReader = "\\\\?PnP?\\Notification"

    private let options: PCSCOptions
    private let describe: @Sendable (PCSCContext, String) -> ReaderDescriptor

    fileprivate struct State {
        var started = false
        var stopping = false
        var finished = false
        var context: PCSCContext?
        var subscribers: [Int: AsyncStream<ReaderEvent>.Continuation] = [:]
        var nextSubscriber = 0
        // The state subscribers are told about.
        var readerOrder: [String] = []
        var readers: [String: ReaderDescriptor] = [:]
        var cards: [String: [UInt8]] = [:]
        var available = true
        var unavailableReason = ""
    }

    private let state = Mutex(State())
    /// Signalled once by `shutdown()` to cut a retry delay short.
    private let retryWait = DispatchSemaphore(value: 0)

    init(options: PCSCOptions, describe: @escaping @Sendable (PCSCContext, String) -> ReaderDescriptor) {
        self.options = options
        self.describe = describe
    }

    /// A new subscriber's stream, starting with the current state. Starts the monitor thread.
    func subscribe() -> AsyncStream<ReaderEvent> {
        let (stream, continuation) = AsyncStream<ReaderEvent>.makeStream(bufferingPolicy: .unbounded)
        let startThread: Bool = state.withLock { state in
            if state.finished || state.stopping {
                continuation.finish()
                return false
            }
            if !state.available { continuation.yield(.backendUnavailable(.pcsc, reason: state.unavailableReason)) }
            for name in state.readerOrder {
                guard let descriptor = state.readers[name] else { continue }
                continuation.yield(.readerAdded(descriptor))
                if let atr = state.cards[name] { continuation.yield(.cardInserted(reader: name, atr: atr)) }
            }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
            }
            defer { state.started = true }
            return !state.started
        }
        if startThread {
            BlockingThread.detach(name: "pcsc-monitor") { [self] in run() }
        }
        return stream
    }

    /// Whether pcscd answered the last time the monitor asked.
    var isServiceAvailable: Bool { state.withLock { $0.available } }

    /// Cancels the blocking wait (`SCardCancel`), ends the thread and every subscriber's stream.
    func shutdown() async {
        let wasStarted: Bool = state.withLock { state in
            state.stopping = true
            return state.started
        }
        wakeRetry()
        if wasStarted {
            // SCardCancel only interrupts a wait already in progress: repeat until the thread is out.
            for _ in 0..<100 {
                let (done, current) = state.withLock { ($0.finished, $0.context) }
                if done { break }
                current?.cancel()
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        finishSubscribers()
    }

    private func finishSubscribers() {
        let all: [AsyncStream<ReaderEvent>.Continuation] = state.withLock { state in
            state.finished = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }

    private var isStopping: Bool { state.withLock { $0.stopping } }

    // MARK: - The monitor thread

    private enum WatchEnd { case stopped, serviceLost(PCSCStatus) }

    private func run() {
        var delay = options.retryDelay
        while !isStopping {
            let context: PCSCContext
            do throws(PCSCStatus) {
                context = try PCSCContext.establish()
            } catch {
                serviceLost(error)
                pause(delay)
                delay = min(delay * 2, options.maxRetryDelay)
                continue
            }
            let published: Bool = state.withLock { state in
                guard !state.stopping else { return false }
                state.context = context
                return true
            }
            guard published else {
                context.release()
                break
            }
            let end = watch(context)
            state.withLock { $0.context = nil }
            context.release()
            switch end {
            case .stopped:
                break
            case .serviceLost(let status):
                serviceLost(status)
                pause(delay)
                delay = min(delay * 2, options.maxRetryDelay)
                continue
            }
            delay = options.retryDelay
        }
        finishSubscribers()
    }

    private func wakeRetry() {
        retryWait.signal()
    }

    /// Waits out a retry delay; `shutdown()` ends it early.
    private func pause(_ delay: Duration) {
        if !isStopping {
            // A signal between the check and the wait is kept by the semaphore: the wait returns at once.
            _ = retryWait.wait(timeout: .now() + .milliseconds(Int(delay.wholeMilliseconds)))
        }
    }

    private func watch(_ context: PCSCContext) -> WatchEnd {
        var states: [PCSCContext.ReaderState] = []
        var counters: [String: UInt] = [:]
        var needList = true
        var pnp = true
        while true {
            if isStopping { return .stopped }
            if needList {
                let names: [String]
                do throws(PCSCStatus) { names = try context.listReaders() } catch { return .serviceLost(error) }
                recovered()
                let gone = states.map(\.name).filter { !names.contains($0) }
                for name in gone { removeReader(name) }
                states = names.map { name in
                    states.first { $0.name == name } ?? .init(name: name, currentState: UInt(SCARD_STATE_UNAWARE))
                }
                for name in names where !gone.contains(name) && state.withLock({ $0.readers[name] == nil }) {
                    addReader(describe(context, name))
                }
                needList = false
            }
            var query = states
            if pnp {
                // pcsc-lite: the high word of the PnP reader's state is the number of readers.
                query.insert(.init(name: Self.pnpReader, currentState: UInt(states.count) << 16), at: 0)
            }
            let status = context.statusChange(&query, timeout: UInt(mrtd_infinite()))
            switch status {
            case .success:
                if pnp {
                    let event = query.removeFirst().eventState
                    if event & UInt(SCARD_STATE_UNKNOWN) != 0 { pnp = false }
                    if event & UInt(SCARD_STATE_CHANGED) != 0 { needList = true }
                }
                for i in states.indices {
                    let event = query[i].eventState
                    let first = states[i].currentState == UInt(SCARD_STATE_UNAWARE)
                    guard first || event & UInt(SCARD_STATE_CHANGED) != 0 else { continue }
                    states[i].currentState = event & ~UInt(SCARD_STATE_CHANGED)
                    if event & UInt(SCARD_STATE_UNKNOWN | SCARD_STATE_IGNORE) != 0 {
                        needList = true
                        continue
                    }
                    let name = states[i].name
                    let present = event & UInt(SCARD_STATE_PRESENT) != 0
                    // pcsc-lite counts card events in the high word: a changed count with a card
                    // present both times means the card was swapped between two waits.
                    let counter = event >> 16
                    let swapped = present && counters[name].map { $0 != counter } == true
                    counters[name] = counter
                    cardState(name, present: present, atr: query[i].atr, swapped: swapped)
                }
            case .cancelled, .timeout:
                continue
            default:
                if status.meansReaderGone {
                    needList = true
                    continue
                }
                return .serviceLost(status)
            }
        }
    }

    // MARK: - State and events

    private func addReader(_ descriptor: ReaderDescriptor) {
        state.withLock { state in
            state.readers[descriptor.name] = descriptor
            state.readerOrder.append(descriptor.name)
            state.broadcast([.readerAdded(descriptor)])
        }
    }

    private func removeReader(_ name: String) {
        state.withLock { $0.removeReader(name) }
    }

    private func cardState(_ name: String, present: Bool, atr: [UInt8], swapped: Bool) {
        state.withLock { state in
            let had = state.cards[name] != nil
            var events: [ReaderEvent] = []
            if had && (!present || swapped) {
                state.cards[name] = nil
                events.append(.cardRemoved(reader: name))
            }
            if present && (!had || swapped) {
                state.cards[name] = atr
                events.append(.cardInserted(reader: name, atr: atr))
            }
            state.readers[name]?.cardPresent = present
            state.broadcast(events)
        }
    }

    private func serviceLost(_ status: PCSCStatus) {
        state.withLock { state in
            guard state.available else { return }
            for name in state.readerOrder { state.removeReader(name) }
            state.available = false
            state.unavailableReason = status.description
            state.broadcast([.backendUnavailable(.pcsc, reason: status.description)])
        }
    }

    private func recovered() {
        state.withLock { state in
            guard !state.available else { return }
            state.available = true
            state.unavailableReason = ""
            state.broadcast([.backendRecovered(.pcsc)])
        }
    }
}

extension PCSCMonitor.State {
    fileprivate func broadcast(_ events: [ReaderEvent]) {
        for continuation in subscribers.values {
            for event in events { continuation.yield(event) }
        }
    }

    fileprivate mutating func removeReader(_ name: String) {
        var events: [ReaderEvent] = []
        if cards.removeValue(forKey: name) != nil { events.append(.cardRemoved(reader: name)) }
        if readers.removeValue(forKey: name) != nil { events.append(.readerRemoved(name: name)) }
        readerOrder.removeAll { $0 == name }
        broadcast(events)
    }
}
