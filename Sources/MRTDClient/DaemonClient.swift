import FoundationEssentials
public import MRTDCore
public import HTTPTypes
import NIOCore
import NIOHTTP1
import NIOPosix

/// A client of the daemon's API over its Unix socket (what `mrtdctl` and the tests use): one HTTP/1.1
/// request per connection, and Server-Sent Events as an async stream.
public struct DaemonClient: Sendable {
    public let socketPath: String

    /// Where the daemon listens unless configured otherwise (`socket` in docs/configuration.md).
    public static let defaultSocketPath = "/run/mrtdd/mrtdd.sock"

    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// An answer: status, headers and the whole body.
    public struct Answer: Sendable {
        public var status: Int
        public var headers: [(String, String)]
        public var body: [UInt8]

        public func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        /// The body decoded as `T`, or the daemon's error as `DaemonClientError.api`.
        public func decode<T: Decodable>(_ type: T.Type, expecting: Set<Int> = [200, 201, 202]) throws -> T {
            guard expecting.contains(status) else { throw DaemonClientError.from(self) }
            do {
                return try JSONDecoder().decode(T.self, from: Data(body))
            } catch {
                throw DaemonClientError.malformedAnswer("\(T.self): \(error)")
            }
        }
    }

    /// Sends one request and collects the answer.
    public func send(_ method: HTTPRequest.Method, _ path: String, json body: [UInt8]? = nil) async throws -> Answer {
        let channel = try await connect()
        return try await channel.executeThenClose { inbound, outbound in
            try await Self.write(method, path, body: body, to: outbound)
            var status = 0
            var headers: [(String, String)] = []
            var collected: [UInt8] = []
            for try await part in inbound {
                switch part {
                case .head(let head):
                    status = Int(head.status.code)
                    headers = head.headers.map { ($0.name, $0.value) }
                case .body(var buffer):
                    collected += buffer.readBytes(length: buffer.readableBytes) ?? []
                case .end:
                    return Answer(status: status, headers: headers, body: collected)
                }
            }
            throw DaemonClientError.connectionClosed
        }
    }

    /// One Server-Sent Event.
    public struct Event: Sendable, Equatable {
        public var type: String
        public var data: String
        public var id: String?
    }

    /// Follows `GET /v1/events`. `onOpen` runs once the daemon has accepted the subscription (so
    /// nothing published afterwards is missed). Ends when the daemon closes the stream. With
    /// `lastEventID` (an `id` of an event received before), the stream resumes after it: the kept
    /// events after it first, or an `events.reset` event when they are lost (docs/openapi.yaml).
    public func events(
        lastEventID: String? = nil, onOpen: @escaping @Sendable () async -> Void = {}
    ) -> AsyncThrowingStream<Event, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let channel = try await connect()
                    try await channel.executeThenClose { inbound, outbound in
                        try await Self.write(
                            .get, "/v1/events", body: nil, headers: lastEventID.map { [("Last-Event-ID", $0)] } ?? [], to: outbound)
                        var parser = SSEParser()
                        // A refusal: its status and the daemon's error document, read to the end.
                        var refused: (status: Int, body: [UInt8])?
                        for try await part in inbound {
                            switch part {
                            case .head(let head):
                                if head.status == .ok { await onOpen() } else { refused = (Int(head.status.code), []) }
                            case .body(let buffer):
                                if refused != nil {
                                    if refused!.body.count < 64 << 10 { refused!.body += Array(buffer: buffer) }  // an error document is small
                                } else {
                                    for event in parser.feed(String(buffer: buffer)) { continuation.yield(event) }
                                }
                            case .end:
                                if let refused { throw DaemonClientError.from(Answer(status: refused.status, headers: [], body: refused.body)) }
                                continuation.finish()
                                return
                            }
                        }
                        continuation.finish()
                    }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: The API

    public func health() async throws -> HealthView {
        try await send(.get, "/v1/health").decode(HealthView.self)
    }

    public func readers() async throws -> [ReaderView] {
        try await send(.get, "/v1/readers").decode(ReadersView.self).readers
    }

    public func createRead(_ request: ReadJobRequest, wait: Bool = false) async throws -> ReadJobView {
        let body = [UInt8](try JSONEncoder().encode(request))
        return try await send(.post, "/v1/reads" + (wait ? "?wait=true" : ""), json: body).decode(ReadJobView.self)
    }

    /// `POST /v1/mrz`: an MRZ from the caller's own OCR; the read it starts waits for the card.
    public func pushMRZ(_ request: MRZPushRequest) async throws -> MRZSubmission {
        let body = [UInt8](try JSONEncoder().encode(request))
        return try await send(.post, "/v1/mrz", json: body).decode(MRZSubmission.self)
    }

    public func job(_ id: String) async throws -> ReadJobView {
        try await send(.get, "/v1/reads/\(id)").decode(ReadJobView.self)
    }

    /// Cancels a running job (returning its final state) or purges a finished one (returning nil).
    public func cancel(_ id: String) async throws -> ReadJobView? {
        let answer = try await send(.delete, "/v1/reads/\(id)")
        if answer.status == 204 { return nil }
        return try answer.decode(ReadJobView.self)
    }

    /// The face image and its content type.
    public func face(_ id: String, png: Bool = false) async throws -> (bytes: [UInt8], contentType: String) {
        let answer = try await send(.get, "/v1/reads/\(id)/face" + (png ? "?format=png" : ""))
        guard answer.status == 200 else { throw DaemonClientError.from(answer) }
        return (answer.body, answer.header("content-type") ?? "application/octet-stream")
    }

    /// `GET /v1/reads/{id}/images/{name}`: an image besides the face (`portrait-1`, `document-front`, …).
    public func image(_ id: String, name: String) async throws -> (bytes: [UInt8], contentType: String) {
        let answer = try await send(.get, "/v1/reads/\(id)/images/\(name)")
        guard answer.status == 200 else { throw DaemonClientError.from(answer) }
        return (answer.body, answer.header("content-type") ?? "application/octet-stream")
    }

    /// `GET /v1/reads/{id}/evidence`: the read's `mrtd-evidence/1` bundle (JSON bytes). `disclose`:
    /// the data groups to carry in full (nil: every group read; the others as hashes).
    public func evidence(_ id: String, disclose: [Int]? = nil) async throws -> [UInt8] {
        let query = disclose.map { "?disclose=" + $0.map(String.init).joined(separator: ",") } ?? ""
        let answer = try await send(.get, "/v1/reads/\(id)/evidence" + query)
        guard answer.status == 200 else { throw DaemonClientError.from(answer) }
        return answer.body
    }

    // MARK: Plumbing

    private typealias Channel = NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>

    private func connect() async throws -> Channel {
        do {
            return try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(unixDomainSocketPath: socketPath) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHTTPClientHandlers()
                        return try Channel(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw DaemonClientError.cannotConnect(socketPath, "\(error)")
        }
    }

    private static func write(
        _ method: HTTPRequest.Method, _ path: String, body: [UInt8]?, headers: [(String, String)] = [],
        to outbound: NIOAsyncChannelOutboundWriter<HTTPClientRequestPart>
    ) async throws {
        var head = HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: method.rawValue), uri: path)
        head.headers.add(name: "Host", value: "mrtdd")
        head.headers.add(name: "Connection", value: "close")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        if let body {
            head.headers.add(name: "Content-Type", value: "application/json")
            head.headers.add(name: "Content-Length", value: "\(body.count)")
        }
        var parts: [HTTPClientRequestPart] = [.head(head)]
        if let body { parts.append(.body(.byteBuffer(ByteBuffer(bytes: body)))) }
        parts.append(.end(nil))
        // One write: the daemon may answer and close as soon as it has the head.
        do {
            try await outbound.write(contentsOf: parts)
        } catch ChannelError.ioOnClosedChannel {
            // The answer (an early error, say) is still in the inbound stream.
        }
    }
}

/// Splits a text/event-stream into events (WHATWG HTML §9.2.6, the subset the daemon sends).
struct SSEParser {
    private var pending = ""
    private var type = ""
    private var data: [String] = []
    private var id: String?

    mutating func feed(_ text: String) -> [DaemonClient.Event] {
        pending += text
        var events: [DaemonClient.Event] = []
        while let newline = pending.firstIndex(of: "\n") {
            let line = String(pending[..<newline])
            pending = String(pending[pending.index(after: newline)...])
            if line.isEmpty {
                if !data.isEmpty || !type.isEmpty {
                    events.append(.init(type: type.isEmpty ? "message" : type, data: data.joined(separator: "\n"), id: id))
                }
                type = ""
                data = []
                id = nil
            } else if line.hasPrefix(":") {
                continue
            } else if line.hasPrefix("event: ") {
                type = String(line.dropFirst(7))
            } else if line.hasPrefix("data: ") {
                data.append(String(line.dropFirst(6)))
            } else if line.hasPrefix("id: ") {
                id = String(line.dropFirst(4))
            }
        }
        return events
    }
}

/// Why a client call failed.
public enum DaemonClientError: Error, Sendable, CustomStringConvertible {
    case cannotConnect(String, String)
    case connectionClosed
    case api(status: Int, APIErrorBody)
    case malformedAnswer(String)

    public static func from(_ answer: DaemonClient.Answer) -> DaemonClientError {
        if let body = try? JSONDecoder().decode(APIErrorBody.self, from: Data(answer.body)) {
            return .api(status: answer.status, body)
        }
        return .malformedAnswer("HTTP status \(answer.status) without an error document")
    }

    /// The daemon's stable code, when the daemon answered with an error.
    public var code: ErrorCode? {
        if case .api(_, let body) = self { return body.error }
        return nil
    }

    public var description: String {
        switch self {
        case .cannotConnect(let path, let why): return "cannot connect to mrtdd at \(path): \(why)"
        case .connectionClosed: return "mrtdd closed the connection before answering"
        case .api(let status, let body): return "mrtdd answered \(status) \(body.error.rawValue): \(body.message)"
        case .malformedAnswer(let why): return "unexpected answer from mrtdd: \(why)"
        }
    }
}
