import Foundation

/// One Server-Sent Event of `GET /v1/events`: a type (`reader.added`, ...) and a JSON payload.
/// Payloads carry reader names, job ids, phases and codes, never document data.
public struct DaemonEvent: Sendable, Equatable {
    public var type: String
    /// The JSON object sent as `data:`.
    public var data: String
    /// Monotonic sequence number, sent as the SSE `id:`.
    public var sequence: UInt64 = 0

    public init(type: String, data: String) {
        self.type = type
        self.data = data
    }

    /// The bytes of this event on the wire (text/event-stream).
    var wireFormat: String { "id: \(sequence)\nevent: \(type)\ndata: \(data)\n\n" }

    static func make(_ type: String, _ payload: some Encodable) -> DaemonEvent {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = (try? encoder.encode(payload)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
        return DaemonEvent(type: type, data: data)
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

/// Fans events out to every `GET /v1/events` subscriber. Synchronous and lock-based so that the
/// order events are published in is the order every subscriber sees.
public final class EventBus: @unchecked Sendable {
    private let lock = NSLock()
    private var subscribers: [UUID: AsyncStream<DaemonEvent>.Continuation] = [:]
    private var sequence: UInt64 = 0
    private var closed = false
    private let maxSubscribers: Int

    public init(maxSubscribers: Int) {
        self.maxSubscribers = maxSubscribers
    }

    public var subscriberCount: Int { lock.withLock { subscribers.count } }

    /// A new stream of every event from now on; a slow subscriber loses the oldest events beyond 512.
    /// Throws `APIError.tooManySubscribers` or `.shuttingDown`.
    public func subscribe() throws(APIError) -> AsyncStream<DaemonEvent> {
        let (stream, continuation) = AsyncStream<DaemonEvent>.makeStream(bufferingPolicy: .bufferingNewest(512))
        let id = UUID()
        let refusal: APIError? = lock.withLock {
            if closed { return .shuttingDown }
            if subscribers.count >= maxSubscribers { return .tooManySubscribers }
            subscribers[id] = continuation
            return nil
        }
        if let refusal { throw refusal }
        continuation.onTermination = { [weak self] _ in
            guard let self else { return }
            self.lock.withLock { _ = self.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    public func publish(_ event: DaemonEvent) {
        lock.withLock {
            sequence += 1
            var numbered = event
            numbered.sequence = sequence
            for continuation in subscribers.values { continuation.yield(numbered) }
        }
    }

    /// Ends every stream (shutdown); later subscriptions are refused.
    public func finishAll() {
        let all: [AsyncStream<DaemonEvent>.Continuation] = lock.withLock {
            closed = true
            defer { subscribers.removeAll() }
            return Array(subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }
}
