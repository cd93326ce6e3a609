import Foundation
import MRTDCore
import Testing
@testable import MRTDClient
@testable import MRTDDaemon
import HTTPTypes
import MRTDTesting
import MRTDPlatform
import MRTDClient
import MRTDSimulation

/// The subset of docs/openapi.yaml the conformance test checks: per path and method, the documented
/// statuses and the schema each JSON answer references; per schema, its required fields. (The file
/// is ours and keeps a regular layout, so indentation is enough to read it.)
struct OpenAPIDocument {
    struct Operation: Hashable { var path: String; var method: String }
    var responses: [Operation: [Int: String?]] = [:]
    var required: [String: [String]] = [:]
    /// The `enum` of the `ErrorCode` schema, in document order.
    var errorCodes: [String] = []

    init(text: String) {
        var section = ""
        var path = ""
        var method = ""
        var status: Int?
        var schema = ""
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(raw)
            let indent = line.prefix(while: { $0 == " " }).count
            let content = line.trimmingCharacters(in: .whitespaces)
            if content.isEmpty { continue }
            if indent == 0 { section = content; continue }
            if section == "paths:" {
                if indent == 2 { path = String(content.dropLast()); method = ""; status = nil }
                if indent == 4, ["get:", "post:", "delete:", "put:"].contains(content) { method = String(content.dropLast()); status = nil }
                if indent == 8, !method.isEmpty, content.hasPrefix("'"), let code = Int(content.dropFirst().prefix(3)) {
                    status = code
                    responses[Operation(path: path, method: method), default: [:]][code] = .some(nil)
                }
                if let status, indent > 8, content.hasPrefix("$ref: '#/components/schemas/") {
                    let name = content.dropFirst("$ref: '#/components/schemas/".count).dropLast()
                    responses[Operation(path: path, method: method)]?[status] = String(name)
                }
            } else if section == "components:" {
                if indent == 4 { schema = String(content.dropLast()) }
                if schema == "ErrorCode", indent == 8, content.hasPrefix("- ") { errorCodes.append(String(content.dropFirst(2))) }
                if indent == 6, content.hasPrefix("required: [") {
                    required[schema] = content.dropFirst("required: [".count).dropLast().split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                }
            }
        }
    }
}

@Suite(.serialized) struct OpenAPIConformanceTests {
    static func document() throws -> OpenAPIDocument {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/openapi.yaml")
        return OpenAPIDocument(text: try String(contentsOf: url, encoding: .utf8))
    }

    /// Answers documented but not reproducible against a healthy in-process daemon here, with where
    /// they are tested instead.
    static let exempt: Set<String> = [
        "post /v1/reads 503",  // shuttingDown: only during shutdown
        "post /v1/mrz 503",  // shuttingDown: only during shutdown
        "post /v1/mrz 415",  // the same header check as post /v1/reads 415 (APIRequestDecoding.checkBodyHeaders)
        "get /v1/reads/{id}/face 422",  // faceUndecodable: DaemonFlowTests (hostile JPEG 2000)
        "get /v1/reads/{id}/face 200",  // image bytes: DaemonFlowTests (JPEG and PNG)
    ]

    /// The daemon's one route list (`APIRoutes.routes`, which the router and every 405's `Allow`
    /// come from) and the operations docs/openapi.yaml documents are the same, both ways.
    @Test func theRoutesAreTheDocumentedOperations() throws {
        let documented = Set(try Self.document().responses.keys.map { "\($0.method.uppercased()) \($0.path)" })
        let routed = Set(APIRoutes.routes.map { route in
            let path = route.path.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }.joined(separator: "/")
            return "\(route.method.rawValue) /\(path)"
        })
        #expect(routed == documented, "routed only: \(routed.subtracting(documented).sorted()); documented only: \(documented.subtracting(routed).sorted())")
        #expect(APIRoutes.allowedMethods("/v1/reads/abc") == "GET, DELETE")
        #expect(APIRoutes.allowedMethods("/v1/reads/abc/images") == nil)
    }

    /// The event types (`EventType`) and the table of docs/events.md name the same events, both ways.
    @Test func theEventTypesAreTheDocumentedOnes() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("docs/events.md")
        let rows = try String(contentsOf: url, encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("| `") }
        let documented = Set(rows.flatMap { row in
            row.split(separator: "|")[0].split(separator: "`").map(String.init).filter { $0.contains(".") && !$0.contains(" ") }
        })
        #expect(documented == Set(EventType.allCases.map(\.rawValue)))
    }

    @Test func theDocumentIsReadable() throws {
        let doc = try Self.document()
        #expect(doc.responses.count == 11)
        #expect(doc.required["Error"] == ["error", "message"])
        #expect(doc.required["Problem"] == ["error", "message", "type", "title", "status", "detail"])
        #expect(doc.responses[.init(path: "/v1/reads", method: "post")]?[202] == .some("Job"))
    }

    /// The registry and the document agree in full: every code the daemon can return is documented,
    /// every documented code exists, none twice.
    @Test func everyRegistryCodeIsDocumentedAndEveryDocumentedCodeExists() throws {
        let documented = try Self.document().errorCodes
        let registry = Set(ErrorCode.allCases.map(\.rawValue))
        #expect(documented.count == Set(documented).count, "a code is listed twice")
        #expect(registry.subtracting(documented).sorted() == [], "codes missing from docs/openapi.yaml ErrorCode")
        #expect(Set(documented).subtracting(registry).sorted() == [], "documented codes that do not exist")
        #expect(registry.count == ErrorCode.allCases.count)
        // The request layer's refusals are registry codes too.
        #expect(APIRequestDecoding.errorCodes.isSubset(of: registry))
    }

    @Test func everyDocumentedAnswerIsWhatTheRunningDaemonSends() async throws {
        let doc = try Self.document()
        let daemon = try await TestDaemon.start(readers: ["R1", "EMPTY"]) {
            $0.maxActiveJobs = 2
            $0.maxEventSubscribers = 1
            $0.faceDecoder = "/nonexistent/opj_decompress"
            $0.maxRequestBody = 2048
        }
        let client = daemon.client
        let key = #"{"access":{"mrzKey":{"documentNumber":"L898902C3","dateOfBirth":"740812","dateOfExpiry":"120415"}}}"#
        daemon.backend.insert(try Specimens.passport(face: .jpeg2000), into: "R1")
        let done = try await client.createRead(.init(reader: "R1", access: Specimens.access, keepEvidence: true), wait: true)
        let jpegReader = "JPEG"
        daemon.backend.addReader(jpegReader)
        daemon.backend.insert(try Specimens.passport(), into: jpegReader)
        let jpeg = try await client.createRead(.init(reader: jpegReader, access: Specimens.access), wait: true)
        daemon.backend.addReader("FULL")
        daemon.backend.insert(try Specimens.fullPassport(), into: "FULL")
        let full = try await client.createRead(.init(reader: "FULL", access: Specimens.access, dataGroups: [5]), wait: true)
        let waiting = try await client.createRead(.init(reader: "EMPTY", access: Specimens.access))

        typealias Scenario = (method: String, template: String, status: Int, run: () async throws -> DaemonClient.Answer)
        func post(_ body: String, query: String = "") -> () async throws -> DaemonClient.Answer {
            { try await client.send(.post, "/v1/reads" + query, json: Array(body.utf8)) }
        }
        var scenarios: [Scenario] = [
            ("get", "/v1/health", 200, { try await client.send(.get, "/v1/health") }),
            ("get", "/v1/readers", 200, { try await client.send(.get, "/v1/readers") }),
            ("post", "/v1/reads", 200, post(key.dropLast() + #","reader":"R1"}"#, query: "?wait=true")),
            ("post", "/v1/reads", 400, post("{")),
            ("post", "/v1/reads", 404, post(key.dropLast() + #","reader":"nope"}"#)),
            ("post", "/v1/reads", 413, post(key.dropLast() + #","reader":""# + String(repeating: "x", count: 4000) + #""}"#)),
            ("get", "/v1/reads/{id}", 200, { try await client.send(.get, "/v1/reads/\(done.id)") }),
            ("get", "/v1/reads/{id}", 404, { try await client.send(.get, "/v1/reads/unknown") }),
            ("get", "/v1/reads/{id}/face", 400, { try await client.send(.get, "/v1/reads/\(done.id)/face?format=gif") }),
            ("get", "/v1/reads/{id}/face", 404, { try await client.send(.get, "/v1/reads/unknown/face") }),
            ("get", "/v1/reads/{id}/face", 409, { try await client.send(.get, "/v1/reads/\(waiting.id)/face") }),
            ("get", "/v1/reads/{id}/face", 415, { try await client.send(.get, "/v1/reads/\(jpeg.id)/face?format=png") }),
            ("get", "/v1/reads/{id}/face", 501, { try await client.send(.get, "/v1/reads/\(done.id)/face?format=png") }),
            ("get", "/v1/reads/{id}/images/{name}", 200, { try await client.send(.get, "/v1/reads/\(full.id)/images/portrait-1") }),
            ("get", "/v1/reads/{id}/images/{name}", 404, { try await client.send(.get, "/v1/reads/\(done.id)/images/portrait-1") }),
            ("get", "/v1/reads/{id}/images/{name}", 409, { try await client.send(.get, "/v1/reads/\(waiting.id)/images/portrait-1") }),
            ("get", "/v1/reads/{id}/evidence", 200, { try await client.send(.get, "/v1/reads/\(done.id)/evidence") }),
            ("get", "/v1/reads/{id}/evidence", 400, { try await client.send(.get, "/v1/reads/\(done.id)/evidence?disclose=0") }),
            ("get", "/v1/reads/{id}/evidence", 404, { try await client.send(.get, "/v1/reads/unknown/evidence") }),
            ("get", "/v1/reads/{id}/evidence", 409, { try await client.send(.get, "/v1/reads/\(waiting.id)/evidence") }),
            ("post", "/v1/reads", 400, post(key.dropLast() + #","aaChallenge":"00"}"#)),
            ("get", "/metrics", 200, { try await client.send(.get, "/metrics") }),
            // An id or name with an encoded '/' or '\\' is no path segment: nonCanonicalPath.
            ("get", "/v1/reads/{id}", 400, { try await client.send(.get, "/v1/reads/a%2Fb") }),
            ("get", "/v1/reads/{id}/images/{name}", 400, { try await client.send(.get, "/v1/reads/\(done.id)/images/a%5Cb") }),
            ("post", "/v1/reads", 400, post(#"{"access":{"can":"123456"},"accessPolicy":"bac"}"#)),
        ]
        // 415 needs a content type the client does not send: a raw request.
        let form = try RawSocket(path: daemon.socketPath)
        form.send(RobustnessTests.post(key, contentType: "text/plain"))
        let formAnswer = try #require(form.receiveAnswer())
        scenarios.append(("post", "/v1/reads", 415, { .init(status: formAnswer.status, headers: [("content-type", "application/json")], body: Array(formAnswer.body.utf8)) }))
        // 400 on the event stream: a Last-Event-ID that is no event id (docs/events.md).
        let resume = try RawSocket(path: daemon.socketPath)
        resume.send("GET /v1/events HTTP/1.1\r\nHost: mrtdd\r\nLast-Event-ID: yesterday\r\n\r\n")
        let resumeAnswer = try #require(try await offPool { resume.receiveAnswer() })
        scenarios.append(("get", "/v1/events", 400, { .init(status: resumeAnswer.status, headers: [("content-type", "application/json")], body: Array(resumeAnswer.body.utf8)) }))
        // 202, then 429 once two jobs wait (the limit is 2), then DELETE 200 and 204, then 404.
        scenarios.append(("post", "/v1/reads", 202, post(key.dropLast() + #","reader":"EMPTY"}"#)))
        scenarios.append(("post", "/v1/reads", 429, post(key)))
        scenarios.append(("delete", "/v1/reads/{id}", 200, { try await client.send(.delete, "/v1/reads/\(waiting.id)") }))
        scenarios.append(("delete", "/v1/reads/{id}", 204, { try await client.send(.delete, "/v1/reads/\(waiting.id)") }))
        scenarios.append(("delete", "/v1/reads/{id}", 404, { try await client.send(.delete, "/v1/reads/\(waiting.id)") }))
        scenarios.append(("delete", "/v1/reads/{id}", 400, { try await client.send(.delete, "/v1/reads/%2e%2e") }))
        // POST /v1/mrz (issue 28): one waiting /v1/reads job is left, so the pushed MRZ's job makes two.
        func push(_ body: String) -> () async throws -> DaemonClient.Answer {
            { try await client.send(.post, "/v1/mrz", json: Array(body.utf8)) }
        }
        let mrz = SpecimenDocument.erikssonMRZ.replacingOccurrences(of: "\n", with: "\\n")
        let badCheckDigit = mrz.replacingOccurrences(of: "7408122", with: "7408127")
        scenarios.append(("post", "/v1/mrz", 400, push("{")))
        scenarios.append(("post", "/v1/mrz", 400, push(#"{"mrz":"\#(mrz)","extra":1}"#)))
        scenarios.append(("post", "/v1/mrz", 413, push(#"{"mrz":""# + String(repeating: "x", count: 4000) + #""}"#)))
        scenarios.append(("post", "/v1/mrz", 404, push(#"{"mrz":"\#(mrz)","reader":"nope"}"#)))
        scenarios.append(("post", "/v1/mrz", 422, push(#"{"mrz":"\#(badCheckDigit)"}"#)))
        scenarios.append(("post", "/v1/mrz", 202, push(#"{"mrz":"\#(mrz)","reader":"EMPTY"}"#)))
        scenarios.append(("post", "/v1/mrz", 429, push(#"{"mrz":"\#(mrz)","reader":"R1"}"#)))

        // Answers read off a raw socket (their headers are not kept).
        let rawAnswers: Set<String> = ["post /v1/reads 415", "get /v1/events 400"]
        for scenario in scenarios {
            let answer = try await scenario.run()
            let operation = OpenAPIDocument.Operation(path: scenario.template, method: scenario.method)
            let label = "\(scenario.method) \(scenario.template) \(scenario.status)"
            #expect(answer.status == scenario.status, "\(label): got \(answer.status) \(String(decoding: answer.body, as: UTF8.self).prefix(200))")
            let documented = try #require(doc.responses[operation], "\(label): path not documented")
            #expect(documented.keys.contains(answer.status), "\(label): status \(answer.status) not documented")
            if let schema = documented[answer.status] ?? nil {
                let object = try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any]
                for field in doc.required[schema] ?? [] {
                    #expect(object?[field] != nil, "\(label): \(schema) lacks required '\(field)'")
                }
            }
            if answer.status >= 400 {
                // RFC 9457: the problem document, consistent with the answer it came in.
                if !rawAnswers.contains(label) {
                    #expect(answer.header("content-type") == "application/problem+json", "\(label)")
                }
                let problem = try JSONDecoder().decode(APIError.Problem.self, from: Data(answer.body))
                #expect(doc.errorCodes.contains(problem.error.rawValue), "\(label): \(problem.error.rawValue) is not documented")
                #expect(problem.type == "https://mrtdd.invalid/problems/\(problem.error.rawValue)", "\(label)")
                #expect(problem.status == answer.status, "\(label)")
                let code = problem.error  // decoding refused any code not in the registry
                #expect(APIError.status(for: code).code == answer.status, "\(label): the status table disagrees")
                #expect(problem.title == APIError.status(for: code).reasonPhrase && !problem.title.isEmpty, "\(label)")
                #expect(problem.detail == problem.message && !problem.message.isEmpty, "\(label)")
                if !rawAnswers.contains(label) {
                    // The request path (no query), on the path the scenario asked for.
                    let prefix = String(scenario.template.prefix { $0 != "{" })
                    if problem.error == .nonCanonicalPath {
                        // A path refused as non-canonical is not echoed back (README, problem details).
                        #expect(problem.instance == nil, "\(label): instance \(problem.instance ?? "nil")")
                    } else {
                        #expect(problem.instance.map { $0.hasPrefix(prefix) && !$0.contains("?") } == true, "\(label): instance \(problem.instance ?? "nil")")
                    }
                }
            }
        }

        // Event stream: 200 with text/event-stream for the first subscriber, 429 for the second (limit 1).
        let opened = Locked(false)
        let stream = client.events { opened.withValue { $0 = true } }
        let follower = Task { for try await _ in stream {} }
        try await waitUntil("the event stream open") { opened.current }
        let second = try await client.send(.get, "/v1/events")
        #expect(second.status == 429)
        #expect(DaemonClientError.from(second).code == .tooManySubscribers)
        var covered = Set(scenarios.map { "\($0.method) \($0.template) \($0.status)" })
        covered.formUnion(["get /v1/events 200", "get /v1/events 429"])
        follower.cancel()

        // Every documented answer was produced (or is exempt with a reason).
        for (operation, statuses) in doc.responses {
            for status in statuses.keys {
                let key = "\(operation.method) \(operation.path) \(status)"
                #expect(covered.contains(key) || Self.exempt.contains(key), "documented but untested: \(key)")
            }
        }
        try await daemon.stop()
    }
}

/// What schemathesis' unsupported_method check asks (scripts/test-api): a method a path does not
/// list is 405 with `Allow` naming the methods docs/openapi.yaml lists for it (RFC 9110 §15.5.6).
@Suite(.serialized) struct UnlistedMethodTests {
    @Test(arguments: [
        ("PUT", "/v1/health", "GET"), ("POST", "/v1/readers", "GET"), ("GET", "/v1/reads", "POST"),
        ("OPTIONS", "/v1/reads", "POST"), ("PATCH", "/v1/reads/abc", "GET, DELETE"), ("POST", "/v1/reads/abc/face", "GET"),
        ("DELETE", "/v1/reads/abc/images/portrait-1", "GET"), ("POST", "/v1/events", "GET"), ("DELETE", "/metrics", "GET"),
        ("GET", "/v1/mrz", "POST"), ("TRACE", "/v1/mrz", "POST"),
    ])
    func anUnlistedMethodIs405WithAllow(method: String, path: String, allowed: String) async throws {
        let daemon = try await TestDaemon.start()
        let socket = try RawSocket(path: daemon.socketPath, receiveTimeout: 10)
        socket.send("\(method) \(path) HTTP/1.1\r\nHost: mrtdd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        // Blocking reads off the cooperative pool, which the in-process daemon needs.
        let text = try await offPool { socket.receiveAll() }
        #expect(text.hasPrefix("HTTP/1.1 405"), "\(method) \(path): \(text.prefix(80))")
        let allow = text.split(separator: "\r\n").first { $0.lowercased().hasPrefix("allow:") }
        #expect(allow.map { $0.dropFirst("allow:".count).trimmingCharacters(in: .whitespaces) } == allowed)
        #expect(text.contains(#""error":"methodNotAllowed""#))
        try await daemon.stop()
    }

    @Test func anUnknownPathIs404WithoutAllow() async throws {
        let daemon = try await TestDaemon.start()
        let socket = try RawSocket(path: daemon.socketPath, receiveTimeout: 10)
        socket.send("PUT /v2/nothing HTTP/1.1\r\nHost: mrtdd\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        let text = try await offPool { socket.receiveAll() }
        #expect(text.hasPrefix("HTTP/1.1 404") && !text.lowercased().contains("\r\nallow:"))
        try await daemon.stop()
    }
}
