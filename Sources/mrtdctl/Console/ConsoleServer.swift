import FoundationEssentials
import HTTPTypes
import Hummingbird
import HummingbirdCore
import Logging
import MRTDCrypto
import MRTDClient
import MRTDCore
import NIOCore
import MRTDPlatform

/// The console's HTTP server on 127.0.0.1: the page, and a handful of routes proxied to mrtdd's
/// socket. Every request must carry the token as the first path segment (`/TOKEN/...`) and a Host
/// of 127.0.0.1:PORT or localhost:PORT (DNS rebinding); there is no CORS.
struct ConsoleServer: Sendable {
    let client: DaemonClient
    let token: String
    /// Runs each time the page itself is served (`--open` then removes its launch page).
    let pageServed: @Sendable () -> Void
    /// The bound port, known once the server runs (port 0 picks a free one).
    let boundPort = Locked(0)

    static let maxRequestBody = 16 * 1024
    /// A connection that sends no complete request head within this time, after it opens or after
    /// an answer, is closed (Hummingbird's idle timeout). The event stream is an answer being
    /// written and stays open; its keepalive comes every `keepalive`.
    static let idleTimeout: TimeAmount = .seconds(10)
    static let keepalive: Duration = .seconds(15)
    /// Event-stream chunks held for a browser that reads slower than the daemon sends (the
    /// daemon's own buffer per subscriber is as large). Beyond it the browser is dropped: its
    /// connection is closed, and its EventSource reconnects.
    static let relayBound = 512
    /// SO_SNDBUF of each connection (the kernel doubles it): ample for the page and a face image
    /// over loopback.
    static let sendBuffer = 64 * 1024

    init(client: DaemonClient, token: String, pageServed: @escaping @Sendable () -> Void = {}) {
        self.client = client
        self.token = token
        self.pageServed = pageServed
    }

    func run(port: Int, onListening: @escaping @Sendable (String) -> Void) async throws {
        var logger = Logger(label: "mrtdctl.console")
        logger.logLevel = .error  // no request logging: paths carry the token
        let admission = ConsoleAdmission()
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        decoder.maxHeaderFieldSize = 8 * 1024
        decoder.maxHeaderListSize = 32 * 1024
        decoder.maxHeaderFieldCount = 100
        let http1 = HTTP1Channel.Configuration(idleTimeout: Self.idleTimeout, httpDecoderConfiguration: decoder)
        let app = Application(
            responder: CallbackResponder<ConsoleRequestContext> { request, context in
                await self.respond(to: request, channel: context.channel)
            },
            server: HTTPServerBuilder { responder in
                ConsoleChannel(http: HTTP1Channel(responder: responder, configuration: http1), admission: admission)
            },
            configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? port
                self.boundPort.withValue { $0 = port }
                onListening("http://127.0.0.1:\(port)/\(self.token)/")
            },
            logger: logger)
        // Stateless: Ctrl-C or SIGTERM ends it at once (a graceful shutdown would wait for the
        // browsers' open event streams).
        try await app.runService(gracefulShutdownSignals: [])
    }

    // MARK: Gate

    func respond(to request: Request, channel: (any Channel)?) async -> Response {
        let port = boundPort.current
        guard Self.allowedHost(request.head.authority, port: port) else {
            return Self.text(.misdirectedRequest, "this console answers only to 127.0.0.1:\(port) or localhost:\(port)\n")
        }
        var segments = request.uri.path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        guard let first = segments.first, ConsoleToken.matches(first, token) else {
            return Self.text(.forbidden, "forbidden: the console's URL (with its token) is printed by mrtdctl console\n")
        }
        segments = segments.dropFirst()
        if request.method != .get && request.method != .head,
           let origin = request.headers[.origin], !Self.allowedOrigins(port: port).contains(origin.lowercased()) {
            return Self.text(.forbidden, "forbidden: cross-origin request\n")
        }
        do {
            return try await route(request, Array(segments), channel: channel)
        } catch let error as DaemonClientError {
            return Self.json(.badGateway, #"{"error":"daemonUnavailable","message":"\#(Self.escaped(error.description))"}"#)
        } catch {
            return Self.json(.internalServerError, #"{"error":"internal","message":"\#(Self.escaped("\(error)"))"}"#)
        }
    }

    static func allowedHost(_ authority: String?, port: Int) -> Bool {
        guard let authority = authority?.lowercased() else { return false }
        return authority == "127.0.0.1:\(port)" || authority == "localhost:\(port)"
    }

    static func allowedOrigins(port: Int) -> Set<String> {
        ["http://127.0.0.1:\(port)", "http://localhost:\(port)"]
    }

    // MARK: Routes

    private func route(_ request: Request, _ path: [Substring], channel: (any Channel)?) async throws -> Response {
        let method = request.method
        switch path {
        case [""], []:
            guard !path.isEmpty else {
                // /TOKEN → /TOKEN/ so that the page's relative URLs resolve under the token.
                return Response(status: .seeOther, headers: Self.securityHeaders([.location: "/\(token)/"]))
            }
            guard method == .get else { return Self.notAllowed("GET") }
            pageServed()
            return Self.asset(ConsoleAssets.html, "text/html; charset=utf-8")
        case ["console.js"]:
            guard method == .get else { return Self.notAllowed("GET") }
            return Self.asset(ConsoleAssets.script, "text/javascript; charset=utf-8")
        case ["console.css"]:
            guard method == .get else { return Self.notAllowed("GET") }
            return Self.asset(ConsoleAssets.style, "text/css; charset=utf-8")
        case ["api", "readers"]:
            guard method == .get else { return Self.notAllowed("GET") }
            return Self.relay(try await client.send(.get, "/v1/readers"))
        case ["api", "events"]:
            guard method == .get else { return Self.notAllowed("GET") }
            return events(closing: channel)
        case ["api", "reads"]:
            guard method == .post else { return Self.notAllowed("POST") }
            return try await createRead(request)
        case let p where p.count == 3 && p[0] == "api" && p[1] == "reads":
            guard let id = Self.jobID(p[2]) else { return Self.json(.notFound, #"{"error":"\#(ErrorCode.notFound.rawValue)","message":"no such job"}"#) }
            switch method {
            case .get: return Self.relay(try await client.send(.get, "/v1/reads/\(id)"))
            case .delete: return Self.relay(try await client.send(.delete, "/v1/reads/\(id)"))
            default: return Self.notAllowed("GET, DELETE")
            }
        case let p where p.count == 4 && p[0] == "api" && p[1] == "reads" && p[3] == "face":
            guard let id = Self.jobID(p[2]) else { return Self.json(.notFound, #"{"error":"\#(ErrorCode.notFound.rawValue)","message":"no such job"}"#) }
            guard method == .get else { return Self.notAllowed("GET") }
            // Browsers do not show JPEG 2000: the daemon converts it to PNG (JPEG is served as stored).
            let stored = try await client.send(.get, "/v1/reads/\(id)/face")
            guard stored.status == 200, ["image/jp2", "image/j2k"].contains(stored.header("content-type") ?? "") else {
                return Self.relay(stored)
            }
            return Self.relay(try await client.send(.get, "/v1/reads/\(id)/face?format=png"))
        default:
            return Self.text(.notFound, "not found\n")
        }
    }

    /// Job ids are the daemon's: letters, digits, '-' and '_' only (nothing that could alter the proxied path).
    static func jobID(_ segment: Substring) -> Substring? {
        let ok = !segment.isEmpty && segment.count <= 64
            && segment.unicodeScalars.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" || $0 == "_" }
        return ok ? segment : nil
    }

    private func createRead(_ request: Request) async throws -> Response {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            return Self.json(.unsupportedMediaType, #"{"error":"\#(ErrorCode.unsupportedMediaType.rawValue)","message":"send application/json"}"#)
        }
        var body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: Self.maxRequestBody)
        } catch {
            return Self.json(.contentTooLarge, #"{"error":"\#(ErrorCode.bodyTooLarge.rawValue)","message":"the request body is too large"}"#)
        }
        // The body carries the MRZ key or CAN: wiped once forwarded.
        var bytes = body.readBytes(length: body.readableBytes) ?? []
        defer { secureWipe(&bytes) }
        return Self.relay(try await client.send(.post, "/v1/reads", json: bytes))
    }

    /// `GET /v1/events` re-sent as Server-Sent Events (with the daemon's ids). A comment every 15 s
    /// finds a closed browser tab, which ends the forwarding and the daemon subscription with it.
    /// At most `relayBound` chunks wait for a browser that stopped reading: one more closes its
    /// `connection` (a stalled writer would never see the stream end) instead of buffering without end.
    private func events(closing connection: (any Channel)?) -> Response {
        let (chunks, continuation) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingOldest(Self.relayBound))
        let send: @Sendable (String) -> Void = { text in
            if case .dropped = continuation.yield(ByteBuffer(string: text)) {
                continuation.finish()
                connection?.close(promise: nil)
            }
        }
        let client = self.client
        let forward = Task {
            do {
                for try await event in client.events() {
                    var text = event.id.map { "id: \($0)\n" } ?? ""
                    text += "event: \(event.type)\n"
                    for line in event.data.split(separator: "\n", omittingEmptySubsequences: false) { text += "data: \(line)\n" }
                    send(text + "\n")
                }
            } catch {}
            continuation.finish()  // the daemon went away: the browser's EventSource reconnects
        }
        let heartbeat = Task {
            while !Task.isCancelled {
                try? await Task.sleep(for: Self.keepalive)
                send(": keepalive\n\n")
            }
        }
        continuation.onTermination = { _ in
            forward.cancel()
            heartbeat.cancel()
        }
        let body = ResponseBody { writer in
            try await writer.write(ByteBuffer(string: ": mrtdctl console\n\n"))
            for await chunk in chunks { try await writer.write(chunk) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: Self.securityHeaders([.contentType: "text/event-stream"]), body: body)
    }

    // MARK: Responses

    static func securityHeaders(_ extra: HTTPFields = [:]) -> HTTPFields {
        var headers = extra
        headers[.cacheControl] = "no-store"
        headers[.xContentTypeOptions] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        headers[HTTPField.Name("X-Frame-Options")!] = "DENY"
        headers[.contentSecurityPolicy] =
            "default-src 'self'; img-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        return headers
    }

    static func relay(_ answer: DaemonClient.Answer) -> Response {
        var headers = securityHeaders()
        headers[.contentType] = answer.header("content-type") ?? "application/octet-stream"
        return Response(
            status: .init(code: answer.status), headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    static func asset(_ text: String, _ type: String) -> Response {
        Response(status: .ok, headers: securityHeaders([.contentType: type]), body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func text(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: securityHeaders([.contentType: "text/plain; charset=utf-8"]), body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
        Response(status: status, headers: securityHeaders([.contentType: "application/json"]), body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func notAllowed(_ allow: String) -> Response {
        var response = text(.methodNotAllowed, "method not allowed\n")
        response.headers[.allow] = allow
        return response
    }

    static func escaped(_ text: String) -> String {
        let data = (try? JSONEncoder().encode(text)).map { String(decoding: $0, as: UTF8.self) } ?? "\"\""
        return String(data.dropFirst().dropLast())
    }
}

/// Hummingbird's core context plus the connection (the event relay closes it when its browser
/// falls behind).
struct ConsoleRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: (any Channel)?

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
