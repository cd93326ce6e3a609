import FoundationEssentials
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOHTTP1
import MRTDCore
import MRTDCrypto
import MRTDClient
import MRTDScanners
import MRTDPlatform
import MRTDVerification

/// The routes of the API (docs/openapi.yaml). Handlers are thin: validation and state live in
/// `ReadScheduler`, error → status mapping in `APIError`, the wire views of its snapshots in `APIViews`.
struct APIRoutes: Sendable {
    let scheduler: ReadScheduler
    let events: EventBus
    let metrics: DaemonMetrics
    let engine: any ReadEngine
    let configuration: DaemonConfiguration
    let version: String
    let backends: [String]
    let started: ContinuousClock.Instant
    let pairing: MRZPairing
    let faceConverter: FaceConverter
    let connections: @Sendable () -> Int

    /// One route of the API (docs/openapi.yaml). The list below is the only one: the router is
    /// built from it, and so is the `Allow` of a 405 (``allowedMethods(_:)``).
    struct Route: Sendable {
        let method: HTTPRequest.Method
        /// `/`-separated; a segment `:name` is a parameter matching any one segment.
        let path: String
        let handler: @Sendable (APIRoutes, Request, DaemonRequestContext) async throws -> Response

        init(_ method: HTTPRequest.Method, _ path: String,
             _ handler: @escaping @Sendable (APIRoutes, Request, DaemonRequestContext) async throws -> Response) {
            self.method = method
            self.path = path
            self.handler = handler
        }

        func matches(_ segments: [Substring]) -> Bool {
            let pattern = path.split(separator: "/", omittingEmptySubsequences: true)
            return pattern.count == segments.count && zip(pattern, segments).allSatisfy { $0.hasPrefix(":") || $0 == $1 }
        }
    }

    /// Every route, by resource.
    static let routes: [Route] = [
        Route(.get, "/v1/health") { api, _, _ in try await api.health() },
        Route(.get, "/v1/readers") { api, _, _ in
            try json(ReadersView(readers: await api.scheduler.readers().map(ReaderView.init)))
        },
        Route(.post, "/v1/reads") { api, request, context in try await api.createRead(request, context) },
        Route(.get, "/v1/reads/:id") { api, _, context in
            try json(ReadJobView(try await api.scheduler.snapshot(id: try id(context), peer: context.peer)))
        },
        Route(.delete, "/v1/reads/:id") { api, _, context in
            if let job = try await api.scheduler.cancel(id: try id(context), peer: context.peer) {
                return try json(ReadJobView(job))
            }
            return Response(status: .noContent)
        },
        Route(.get, "/v1/reads/:id/face") { api, request, context in try await api.face(request, context) },
        Route(.get, "/v1/reads/:id/images/:name") { api, _, context in try await api.image(context) },
        Route(.get, "/v1/reads/:id/evidence") { api, request, context in try await api.evidence(request, context) },
        Route(.post, "/v1/mrz") { api, request, context in try await api.pushMRZ(request, context) },
        Route(.get, "/v1/events") { api, request, context in try api.eventStream(request, context) },
        Route(.get, "/metrics") { api, _, _ in await api.prometheus() },
    ]

    /// The methods of the routes at `path`, as a 405's `Allow` lists them (RFC 9110 §15.5.6); nil
    /// when no route has that path, so a 404 from routing means no such resource.
    static func allowedMethods(_ path: String) -> String? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: true)
        var methods: [String] = []
        for route in routes where route.matches(segments) && !methods.contains(route.method.rawValue) {
            methods.append(route.method.rawValue)
        }
        return methods.isEmpty ? nil : methods.joined(separator: ", ")
    }

    func router() -> Router<DaemonRequestContext> {
        let router = Router(context: DaemonRequestContext.self)
        router.add(middleware: ErrorMiddleware(metrics: metrics))
        for route in Self.routes {
            router.on(RouterPath(route.path), method: route.method) { request, context in try await route.handler(self, request, context) }
        }
        return router
    }

    /// The caller's credentials; a request without them is refused (never served as "anyone").
    static func peer(_ context: DaemonRequestContext) throws(APIError) -> PeerCredentials {
        guard let peer = context.peer else { throw .peerUnknown }
        return peer
    }

    static func id(_ context: DaemonRequestContext) throws(APIError) -> String {
        try APIRequestDecoding.jobID(context.parameters.get("id"))
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers extra: HTTPFields = [:]) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var headers = extra
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }

    func health() async throws -> Response {
        let stats = await scheduler.stats()
        let view = HealthView(
            status: stats.readers > 0 ? "ok" : "degraded", version: version,
            uptimeSeconds: (ContinuousClock.now - started).seconds.rounded(toPlaces: 3), readers: stats.readers,
            activeJobs: stats.activeJobs, backends: backends, trustStore: engine.trustStore)
        return try Self.json(view)
    }

    /// A JSON request body within `max-request-body`; the caller wipes it once decoded.
    func jsonBody(_ request: Request) async throws -> [UInt8] {
        // curl -d sends application/x-www-form-urlencoded; the body decides for that default.
        try APIRequestDecoding.checkBodyHeaders(
            contentType: request.headers[.contentType], contentLength: request.headers[.contentLength],
            maxBody: configuration.maxRequestBody)
        var body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: configuration.maxRequestBody)
        } catch is NIOTooManyBytesError {
            throw APIError.bodyTooLarge
        }
        return body.readBytes(length: body.readableBytes) ?? []
    }

    func createRead(_ request: Request, _ context: DaemonRequestContext) async throws -> Response {
        var bytes = try await jsonBody(request)
        defer { secureWipe(&bytes) }
        let order = try APIRequestDecoding.order(try Self.decode(bytes))
        let wait = try APIRequestDecoding.wait(request.uri)
        let created = try await scheduler.create(order, peer: context.peer)
        if wait {
            let finished = try await scheduler.waitUntilFinished(id: created.id, peer: context.peer)
            return try Self.json(ReadJobView(finished))
        }
        let view = ReadJobView(created)
        return try Self.json(view, status: .accepted, headers: [.location: view.location])
    }

    /// `POST /v1/mrz`: an MRZ from the client's own OCR, checked as a scanner's is (check digits, one
    /// look-alike correction), then a read job of the caller's waiting for the card.
    func pushMRZ(_ request: Request, _ context: DaemonRequestContext) async throws -> Response {
        let peer = try Self.peer(context)
        var bytes = try await jsonBody(request)
        defer { secureWipe(&bytes) }
        let push = try APIRequestDecoding.mrzPush(bytes)
        let lines = push.mrz.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        do {
            let submission = MRZSubmission(
                try await pairing.submit(ScannedMRZ(lines: lines), source: "api", reader: push.reader, peer: peer))
            return try Self.json(submission, status: .accepted, headers: [.location: submission.job.location])
        } catch let error as MRZCaptureError {
            throw APIError(error)
        }
    }

    /// Strict decoding: malformed JSON, unknown fields and wrong types each get their own code.
    static func decode(_ bytes: [UInt8]) throws(APIError) -> ReadJobRequest {
        let data = Data(bytes)
        let probe: MemberNames
        do {
            probe = try JSONDecoder().decode(MemberNames.self, from: data)
        } catch DecodingError.typeMismatch {
            throw .invalidRequest("the body must be a JSON object")
        } catch {
            throw .malformedJSON("cannot parse")
        }
        if let unknown = probe.top.sorted().first(where: { !ReadJobRequest.fields.contains($0) }) { throw .unknownField(unknown) }
        if let unknown = probe.access?.sorted().first(where: { !ReadJobRequest.Access.fields.contains($0) }) {
            throw .unknownField("access.\(unknown)")
        }
        if let unknown = probe.mrzKey?.sorted().first(where: { !ReadJobRequest.MRZKeyFields.fields.contains($0) }) {
            throw .unknownField("access.mrzKey.\(unknown)")
        }
        do {
            return try JSONDecoder().decode(ReadJobRequest.self, from: data)
        } catch let DecodingError.keyNotFound(key, context) {
            throw .invalidRequest("missing field '\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))'")
        } catch let DecodingError.typeMismatch(_, context), let DecodingError.valueNotFound(_, context) {
            throw .invalidRequest("wrong type for '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch let DecodingError.dataCorrupted(context) {
            throw .invalidRequest("invalid value for '\(context.codingPath.map(\.stringValue).joined(separator: "."))'")
        } catch {
            throw .invalidRequest("cannot decode the request")
        }
    }

    func face(_ request: Request, _ context: DaemonRequestContext) async throws -> Response {
        let png = try APIRequestDecoding.wantsPNG(request.uri)
        let face = try await scheduler.face(id: try Self.id(context), peer: context.peer)
        var headers: HTTPFields = [.cacheControl: "no-store"]
        if png {
            guard face.mimeType == "image/jp2" || face.mimeType == "image/j2k" else { throw APIError.faceConversionUnsupported }
            // The converter takes an array: this copy and the PNG are wiped once they are done with.
            var jpeg2000 = face.bytes.withUnsafeBytes { Array($0) }
            defer { secureWipe(&jpeg2000) }
            var png: [UInt8]
            do {
                png = try await faceConverter.png(fromJPEG2000: jpeg2000, mimeType: face.mimeType)
            } catch .unavailable {
                throw APIError.faceConverterUnavailable
            } catch {
                throw APIError.faceUndecodable
            }
            defer { secureWipe(&png) }
            headers[.contentType] = "image/png"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: png)))
        }
        headers[.contentType] = face.mimeType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: face.bytes.withUnsafeBytes { ByteBuffer(bytes: $0) }))
    }

    /// `GET /v1/reads/{id}/evidence`: the read's `mrtd-evidence/1` bundle (docs/evidence.md), with
    /// `?disclose=1,14` only those groups' bytes and the others' hashes. Same owner rule as the result.
    func evidence(_ request: Request, _ context: DaemonRequestContext) async throws -> Response {
        let id = try Self.id(context)
        let disclose = try APIRequestDecoding.disclose(request.uri)
        guard var held = try await scheduler.evidence(id: id, peer: context.peer) else { throw APIError.evidenceNotAvailable }
        defer { for key in held.files.keys { secureWipe(&held.files[key]!) } }
        var bytes: [UInt8]
        do {
            let bundle = try EvidenceBundle.make(
                files: held.files, result: held.result, disclose: disclose, trustStore: engine.trust?.store,
                software: .init(name: "mrtdd", version: version))
            bytes = try bundle.encoded()
        } catch EvidenceError.notAvailable {
            throw APIError.evidenceNotAvailable
        }
        defer { secureWipe(&bytes) }
        let headers: HTTPFields = [.cacheControl: "no-store", .contentType: "application/json"]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `GET /v1/reads/{id}/images/{name}`: an image besides the face, bytes as stored on the chip.
    func image(_ context: DaemonRequestContext) async throws -> Response {
        let id = try Self.id(context)
        guard let name = context.parameters.get("name"), name.count <= 64 else { throw APIError.noImage }
        let image = try await scheduler.image(id: id, name: name, peer: context.peer)
        let headers: HTTPFields = [.cacheControl: "no-store", .contentType: image.mimeType]
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: image.bytes.withUnsafeBytes { ByteBuffer(bytes: $0) }))
    }

    static let lastEventIDField = HTTPField.Name("Last-Event-ID")!

    /// `GET /v1/events`; with `Last-Event-ID`, the kept events after it first (`EventBus`).
    func eventStream(_ request: Request, _ context: DaemonRequestContext) throws -> Response {
        let peer = try Self.peer(context)
        let lastEventID = try APIRequestDecoding.lastEventID(request.headers[Self.lastEventIDField])
        let channel = context.channel
        let stream = try events.subscribe(peer: peer, lastEventID: lastEventID) { [logger = context.logger] in
            logger.notice("event subscriber dropped: it fell behind its buffer", metadata: ["uid": "\(peer.uid)"])
            channel?.close(promise: nil)
        }
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-store", .init("X-Accel-Buffering")!: "no"]
        return Response(status: .ok, headers: headers, body: .init { writer in
            try await writer.write(ByteBuffer(string: "retry: 2000\n: mrtdd event stream\n\n"))
            for await event in stream {
                try await writer.write(ByteBuffer(string: event.wireFormat))
            }
            try await writer.finish(nil)
        })
    }

    func prometheus() async -> Response {
        let stats = await scheduler.stats()
        let text = metrics.render(.init(
            readers: stats.readers, busyReaders: stats.busyReaders, activeJobs: stats.activeJobs,
            retainedResults: stats.retainedResults, connections: connections(),
            eventSubscribers: events.subscriberCount, uptimeSeconds: (ContinuousClock.now - started).seconds))
            + DaemonMetrics.renderTrust(engine.trustStore, reloads: engine.trust?.reloadCounts ?? [:])
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Turns every error into its problem document (`APIError`) with its status, and counts answers.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = DaemonRequestContext
    let metrics: DaemonMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let error: APIError
        do {
            let response = try await next(request, context)
            metrics.recordRequest(status: response.status.code, errorCode: nil)
            return response
        } catch let api as APIError {
            error = api
        } catch let domain as SchedulerError {
            error = APIError(domain)
        } catch is HTTPParserError {
            // A broken body (chunk sizes, short body, transfer encoding) is the client's error.
            error = .malformedBody
        } catch let http as HTTPError {
            error = http.status == .notFound && APIRoutes.allowedMethods(request.uri.path) != nil ? .methodNotAllowed : APIError.from(http)
        } catch let other {
            context.logger.error("request failed", metadata: ["error.type": "\(type(of: other))"])
            error = APIError.internalError
        }
        metrics.recordRequest(status: error.status.code, errorCode: error.code)
        if error == .malformedBody {
            context.logger.info("request refused", metadata: ["code": "\(error.code)"])
        } else if error.status.code >= 500 || error.status == .tooManyRequests {
            context.logger.notice("request refused", metadata: ["code": "\(error.code)", "path": "\(request.uri.path)"])
        }
        var response = error.response(instance: request.uri.path)
        // RFC 9110 §15.5.6: a 405 lists the methods the resource supports.
        if error.status == .methodNotAllowed, let allowed = APIRoutes.allowedMethods(request.uri.path) {
            response.headers[.allow] = allowed
        }
        return response
    }

}


/// The member names of a request body, its `access` object and `access.mrzKey`, whatever their values:
/// unknown fields are refused by name before the typed decoding. A body that is valid JSON but not an
/// object throws `typeMismatch`; anything else that fails is malformed JSON.
private struct MemberNames: Decodable {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    var top: [String]
    var access: [String]?
    var mrzKey: [String]?

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        top = container.allKeys.map(\.stringValue)
        let accessKey = Key(stringValue: "access")
        guard container.contains(accessKey),
              let access = try? container.nestedContainer(keyedBy: Key.self, forKey: accessKey) else { return }
        self.access = access.allKeys.map(\.stringValue)
        let mrzKey = Key(stringValue: "mrzKey")
        guard access.contains(mrzKey),
              let key = try? access.nestedContainer(keyedBy: Key.self, forKey: mrzKey) else { return }
        self.mrzKey = key.allKeys.map(\.stringValue)
    }
}
