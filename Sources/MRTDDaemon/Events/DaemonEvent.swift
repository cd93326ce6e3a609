import FoundationEssentials
import Synchronization
public import MRTDClient

/// One Server-Sent Event of `GET /v1/events`: a type (`reader.added`, ...) and a JSON payload.
/// Payloads carry reader names, job ids, phases and codes, never document data.
public struct DaemonEvent: Sendable, Equatable {
    /// nil: a keep-alive (``keepAlive``), sent as an SSE comment, never numbered or kept.
    public var type: EventType?
    /// The JSON object sent as `data:`.
    public var data: String
    /// Monotonic sequence number, sent as the SSE `id:` (`EventBus`).
    public var sequence: UInt64 = 0
    /// Who may see the event: reader and card events are public; job events go to the job's owner
    /// (and root) only.
    public var audience: Audience = .everyone

    public enum Audience: Sendable, Equatable {
        case everyone
        /// The uid that created the job (nil: an owner unknown, so root only).
        case owner(UInt32?)
    }

    /// What keeps idle streams open through proxies.
    public static let keepAlive = DaemonEvent(type: nil, data: "")

    public init(type: EventType?, data: String, audience: Audience = .everyone) {
        self.type = type
        self.data = data
        self.audience = audience
    }

    /// Whether a subscriber with these credentials receives this event.
    func isVisible(to peer: PeerCredentials) -> Bool {
        switch audience {
        case .everyone: return true
        case .owner(let uid): return peer.isRoot || uid == peer.uid
        }
    }

    /// The bytes of this event on the wire (text/event-stream).
    var wireFormat: String {
        guard let type else { return ": keep-alive\n\n" }
        return "id: \(sequence)\nevent: \(type.rawValue)\ndata: \(data)\n\n"
    }

    static func make(_ type: EventType, _ payload: some Encodable, audience: Audience = .everyone) -> DaemonEvent {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(payload)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        return DaemonEvent(type: type, data: data, audience: audience)
    }
}

/// Fans events out to every `GET /v1/events` subscriber that may see them (job events to the
/// job's owner and root, reader and card events to all). Synchronous and lock-based so that the
/// order events are published in is the order every subscriber sees. A subscriber that falls
/// `bufferSize` events behind (a stalled client) is dropped: its stream ends and its connection closes.
///
/// Every event gets the next id (`sequence`): ids increase by one per event within a run, and a
/// run's first id is above any id of an earlier run (it starts from the start time in
/// microseconds), so an id from before a restart is never taken for one of this run. The last
/// `historySize` events are kept so that a client reconnecting with `Last-Event-ID: N` gets the
/// events after N it may see before the live ones; when N is older than that history, or is no id
/// of this run, it gets an `events.reset` event first instead (what it missed is lost).
public final class EventBus: Sendable {
    fileprivate struct Subscriber {
        var peer: PeerCredentials
        var continuation: AsyncStream<DaemonEvent>.Continuation
        var onDrop: @Sendable () -> Void
    }

    fileprivate struct State {
        var subscribers: [UUID: Subscriber] = [:]
        var quota: UIDQuota
        /// The id of the last event published (`firstSequence - 1` before any).
        var sequence: UInt64
        var history: EventHistory
        var closed = false
    }

    private let state: Mutex<State>
    /// The id of this run's first event.
    public let firstSequence: UInt64
    private let bufferSize: Int
    private let dropped = Mutex(0)


    /// `historySize` events are kept for resumption; it is capped at `bufferSize` so a replay always
    /// fits the new subscriber's buffer. `firstSequence` (tests) sets the first id.
    public init(
        maxSubscribers: Int, maxSubscribersPerUser: Int = .max, bufferSize: Int = 512, historySize: Int = 256,
        firstSequence: UInt64? = nil
    ) {
        self.bufferSize = bufferSize
        let start = firstSequence ?? UInt64(max(1, Date().timeIntervalSince1970 * 1_000_000))
        self.firstSequence = max(1, start)
        state = Mutex(State(
            quota: UIDQuota(limit: maxSubscribers, perUser: maxSubscribersPerUser), sequence: self.firstSequence - 1,
            history: EventHistory(capacity: max(0, min(historySize, bufferSize - 1)))))
    }

    public var subscriberCount: Int { state.withLock { $0.subscribers.count } }

    /// Subscribers dropped so far because they fell behind their buffer.
    public var droppedSubscribers: Int { dropped.withLock { $0 } }

    /// The id of the last event published (`firstSequence - 1` before any).
    public var lastSequence: UInt64 { state.withLock { $0.sequence } }

    /// A new stream of every event from now on that `peer` may see. With `lastEventID` (the
    /// `Last-Event-ID` of a reconnecting client), the stream starts with the kept events after it
    /// that `peer` may see, or with an `events.reset` event when events after it are no longer kept
    /// or the id is no id of this run. Throws `.tooManySubscribers`, `.tooManySubscribersForUser` or
    /// `.shuttingDown`. `onDrop` runs when the subscriber is dropped for falling behind (the API
    /// closes its connection: a stalled writer would never see the end).
    public func subscribe(
        peer: PeerCredentials, lastEventID: UInt64? = nil, onDrop: @escaping @Sendable () -> Void = {}
    ) throws(SchedulerError) -> AsyncStream<DaemonEvent> {
        let (stream, continuation) = AsyncStream<DaemonEvent>.makeStream(bufferingPolicy: .bufferingOldest(bufferSize))
        let id = UUID()
        let refusal: SchedulerError? = state.withLock { state in
            if state.closed { return .shuttingDown }
            switch state.quota.take(peer.uid) {
            case .global?: return .tooManySubscribers
            case .perUser?: return .tooManySubscribersForUser
            case nil: break
            }
            // Replayed under the lock, before the subscriber is registered: nothing published
            // meanwhile is missed or sent twice. The replay fits the buffer (capacity < bufferSize).
            if let lastEventID {
                for event in state.replay(after: lastEventID, for: peer, firstSequence: firstSequence) {
                    continuation.yield(event)
                }
            }
            state.subscribers[id] = Subscriber(peer: peer, continuation: continuation, onDrop: onDrop)
            return nil
        }
        if let refusal { throw refusal }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { state in
                if state.subscribers.removeValue(forKey: id) != nil { state.quota.release(peer.uid) }
            }
        }
        return stream
    }

    public func publish(_ event: DaemonEvent) {
        let laggards: [Subscriber] = state.withLock { state in
            var numbered = event
            if event.type != nil {
                state.sequence += 1
                numbered.sequence = state.sequence
                state.history.append(numbered)
            }
            var behind: [Subscriber] = []
            for (id, subscriber) in state.subscribers where event.isVisible(to: subscriber.peer) {
                if case .dropped = subscriber.continuation.yield(numbered) {
                    // Its buffer is full: it would silently miss events from now on. End it instead.
                    state.subscribers.removeValue(forKey: id)
                    state.quota.release(subscriber.peer.uid)
                    behind.append(subscriber)
                }
            }
            return behind
        }
        if !laggards.isEmpty { dropped.withLock { $0 += laggards.count } }
        for subscriber in laggards {
            subscriber.continuation.finish()
            subscriber.onDrop()
        }
    }

    /// Ends every stream (shutdown); later subscriptions are refused.
    public func finishAll() {
        let all: [AsyncStream<DaemonEvent>.Continuation] = state.withLock { state in
            state.closed = true
            defer { state.subscribers.removeAll() }
            return state.subscribers.values.map(\.continuation)
        }
        for continuation in all { continuation.finish() }
    }
}

extension EventBus.State {
    /// What a subscriber resuming after `lastEventID` gets first.
    fileprivate func replay(after lastEventID: UInt64, for peer: PeerCredentials, firstSequence: UInt64) -> [DaemonEvent] {
        let oldestKept = history.first?.sequence ?? sequence + 1
        let reason: String
        if lastEventID < firstSequence - 1 || lastEventID > sequence {
            reason = "unknownId"
        } else if lastEventID + 1 < oldestKept {
            reason = "expired"
        } else {
            return history.events(after: lastEventID).filter { $0.isVisible(to: peer) }
        }
        // Its id is the current one, so the client resumes from here next time.
        var reset = DaemonEvent.make(.eventsReset, EventPayload.Reset(
            reason: reason, lastEventId: String(lastEventID), oldestId: history.first.map { String($0.sequence) }))
        reset.sequence = sequence
        return [reset]
    }
}

/// The last `capacity` events, oldest first, in a fixed ring (memory stays bounded however long
/// the daemon runs).
struct EventHistory {
    private var storage: [DaemonEvent] = []
    private var start = 0
    let capacity: Int

    init(capacity: Int) {
        self.capacity = capacity
        storage.reserveCapacity(capacity)
    }

    var count: Int { storage.count }
    var first: DaemonEvent? { storage.isEmpty ? nil : storage[start] }

    mutating func append(_ event: DaemonEvent) {
        guard capacity > 0 else { return }
        if storage.count < capacity {
            storage.append(event)
        } else {
            storage[start] = event
            start = (start + 1) % capacity
        }
    }

    /// The kept events with an id above `sequence`, oldest first.
    func events(after sequence: UInt64) -> [DaemonEvent] {
        (0..<storage.count).map { storage[(start + $0) % storage.count] }.filter { $0.sequence > sequence }
    }
}
