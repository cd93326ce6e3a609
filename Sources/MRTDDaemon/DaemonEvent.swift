import Foundation
import Synchronization

/// One Server-Sent Event of `GET /v1/events`: a type (`reader.added`, ...) and a JSON payload.
/// Payloads carry reader names, job ids, phases and codes, never document data.
public struct DaemonEvent: Sendable, Equatable {
    public var type: String
    /// The JSON object sent as `data:`.
    public var data: String
    /// Monotonic sequence number, sent as the SSE `id:`.
    public var sequence: UInt64 = 0
    /// Who may see the event: reader and card events are public; job events go to the job's owner
    /// (and root) only.
    public var audience: Audience = .everyone

    public enum Audience: Sendable, Equatable {
        case everyone
        /// The uid that created the job (nil: an owner unknown, so root only).
        case owner(UInt32?)
    }

    public init(type: String, data: String, audience: Audience = .everyone) {
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
    var wireFormat: String { "id: \(sequence)\nevent: \(type)\ndata: \(data)\n\n" }

    static func make(_ type: String, _ payload: some Encodable, audience: Audience = .everyone) -> DaemonEvent {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(payload)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        return DaemonEvent(type: type, data: data, audience: audience)
    }
}

/// Payloads of the events, as in docs/openapi.yaml.
public enum EventPayload {
    public struct Reader: Codable, Sendable, Equatable {
        public var reader: String
        public var backend: String?
    }
    public struct Card: Codable, Sendable, Equatable {
        public var reader: String
        /// The ATR (hex), which identifies the chip type, not the document.
        public var atr: String?
    }
    public struct Progress: Codable, Sendable, Equatable {
        public var id: String
        public var reader: String
        public var phase: String
        public var file: String?
        public var percent: Int
    }
    public struct Finished: Codable, Sendable, Equatable {
        public var id: String
        public var reader: String?
        /// The result's status: `valid`, `invalid`, `unverified`.
        public var status: String
        public var durationMs: Double
    }
    public struct Failed: Codable, Sendable, Equatable {
        public var id: String
        public var reader: String?
        public var error: String
        public var message: String
    }
}

/// Fans events out to every `GET /v1/events` subscriber that may see them (job events to the
/// job's owner and root, reader and card events to all). Synchronous and lock-based so that the
/// order events are published in is the order every subscriber sees. A subscriber that falls
/// `bufferSize` events behind (a stalled client) is dropped: its stream ends and its connection closes.
// Invariant: every var is only touched inside `lock.withLock`.
public final class EventBus: @unchecked Sendable {
    private struct Subscriber {
        var peer: PeerCredentials
        var continuation: AsyncStream<DaemonEvent>.Continuation
        var onDrop: @Sendable () -> Void
    }
    private let lock = Mutex(())
    private var subscribers: [UUID: Subscriber] = [:]
    private var quota: UIDQuota
    private var sequence: UInt64 = 0
    private var closed = false
    private let bufferSize: Int
    private let dropped = Mutex(0)

    public init(maxSubscribers: Int, maxSubscribersPerUser: Int = .max, bufferSize: Int = 512) {
        quota = UIDQuota(limit: maxSubscribers, perUser: maxSubscribersPerUser)
        self.bufferSize = bufferSize
    }

    public var subscriberCount: Int { lock.withLock { _ in subscribers.count } }

    /// Subscribers dropped so far because they fell behind their buffer.
    public var droppedSubscribers: Int { dropped.withLock { $0 } }

    /// A new stream of every event from now on that `peer` may see. Throws `.tooManySubscribers`,
    /// `.tooManySubscribersForUser` or `.shuttingDown`. `onDrop` runs when the subscriber is dropped
    /// for falling behind (the API closes its connection: a stalled writer would never see the end).
    public func subscribe(peer: PeerCredentials, onDrop: @escaping @Sendable () -> Void = {}) throws(APIError) -> AsyncStream<DaemonEvent> {
        let (stream, continuation) = AsyncStream<DaemonEvent>.makeStream(bufferingPolicy: .bufferingOldest(bufferSize))
        let id = UUID()
        let refusal: APIError? = lock.withLock { _ in
            if closed { return .shuttingDown }
            switch quota.take(peer.uid) {
            case .global?: return .tooManySubscribers
            case .perUser?: return .tooManySubscribersForUser
            case nil: break
            }
            subscribers[id] = Subscriber(peer: peer, continuation: continuation, onDrop: onDrop)
            return nil
        }
        if let refusal { throw refusal }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ in
                if self.subscribers.removeValue(forKey: id) != nil { self.quota.release(peer.uid) }
            }
        }
        return stream
    }

    public func publish(_ event: DaemonEvent) {
        let laggards: [Subscriber] = lock.withLock { _ in
            sequence += 1
            var numbered = event
            numbered.sequence = sequence
            var behind: [Subscriber] = []
            for (id, subscriber) in subscribers where event.isVisible(to: subscriber.peer) {
                if case .dropped = subscriber.continuation.yield(numbered) {
                    // Its buffer is full: it would silently miss events from now on. End it instead.
                    subscribers.removeValue(forKey: id)
                    quota.release(subscriber.peer.uid)
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
        let all: [AsyncStream<DaemonEvent>.Continuation] = lock.withLock { _ in
            closed = true
            defer { subscribers.removeAll() }
            return subscribers.values.map(\.continuation)
        }
        for continuation in all { continuation.finish() }
    }
}
