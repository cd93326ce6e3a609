import Foundation
import Testing
import HTTPTypes
@testable import MRTDDaemon
import MRTDCore
import MRTDTesting
#if canImport(Glibc)
import Glibc
#endif
import MRTDPlatform
import MRTDClient
import MRTDSimulation

/// The daemon as a hostile local user attacks it (issue 14): other uids' jobs, path variants,
/// numeric extremes, broken bodies, slot hogging, event snooping. Tests across real uids run curl
/// under `setpriv` as `nobody` (65534) and 65533, against a socket made reachable for the test only.
@Suite(.serialized) struct SecurityTests {
    static let owner: UInt32 = 65534
    static let stranger: UInt32 = 65533

    /// Whether this process can switch uids (root); in CI it must be able to.
    static func canSwitchUsers() -> Bool {
        if getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")
            && FileManager.default.isExecutableFile(atPath: "/usr/bin/curl") {
            return true
        }
        #expect(Prerequisite.skip("the two-uid tests need root, setpriv and curl"))
        return false
    }

    /// A daemon whose socket any uid can reach (mode 0666 in a world-traversable directory).
    static func reachableDaemon(configure: @escaping (inout DaemonConfiguration) -> Void = { _ in }) async throws -> TestDaemon {
        let daemon = try await TestDaemon.start { configuration in
            configuration.socketMode = 0o666
            configure(&configuration)
        }
        chmod((daemon.socketPath as NSString).deletingLastPathComponent, 0o755)
        return daemon
    }

    struct CurlAnswer {
        var status: Int
        var body: String
    }

    /// One request as `uid` (curl under setpriv, path sent exactly as given).
    static func request(
        as uid: UInt32, _ method: String, _ path: String, body: String? = nil, socket: String, maxTime: Double = 10
    ) async throws -> CurlAnswer {
        // Waiting for curl blocks: off the cooperative pool, which the in-process daemon needs.
        try await offPool { try blockingRequest(as: uid, method, path, body: body, socket: socket, maxTime: maxTime) }
    }

    static func blockingRequest(
        as uid: UInt32, _ method: String, _ path: String, body: String?, socket: String, maxTime: Double
    ) throws -> CurlAnswer {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        var arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/curl", "-s", "--path-as-is",
                         "--max-time", "\(maxTime)", "--unix-socket", socket, "-X", method, "-w", "\n%{http_code}"]
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
        process.arguments = arguments + ["http://mrtdd" + path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return CurlAnswer(status: Int(lines.last ?? "") ?? 0, body: lines.dropLast().joined(separator: "\n"))
    }

    /// A long-running curl as `uid` (an event stream), its output collected in a file.
    static func follow(as uid: UInt32, _ path: String, socket: String, output: URL, seconds: Int, headers: [String] = []) throws -> Process {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        chmod(output.path, 0o666)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
        process.arguments = ["--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", "/usr/bin/curl", "-s", "-N", "--path-as-is",
                             "--max-time", "\(seconds)", "--unix-socket", socket, "-o", output.path, "-w", "\n%{http_code}"]
            + headers.flatMap { ["-H", $0] } + ["http://mrtdd" + path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    static let createBody = #"{"access":{"mrzKey":{"documentNumber":"L898902C3","dateOfBirth":"740812","dateOfExpiry":"120415"}}}"#

    /// The same job path written every way a router might fold onto the canonical one.
    static func variants(of path: String) -> [String] {
        let tail = String(path.dropFirst())  // v1/reads/ID...
        return [
            "//" + tail, "///" + tail, "/" + tail.replacingOccurrences(of: "v1/", with: "v1//"),
            "/" + tail.replacingOccurrences(of: "reads/", with: "reads//"), "/./" + tail, "/v1/../" + tail,
            "/" + tail + "/", "/v1%2F" + tail.dropFirst(3), "/%2e/" + tail, "/v1/./" + tail.dropFirst(3),
        ]
    }

    // MARK: Item 1: isolation

    /// uid 65534 creates a job; uid 65533 gets no answer but "no such job" or "non-canonical path"
    /// on every spelling of its paths, GET, face, evidence and DELETE; the owner and root see it; a POST to a
    /// non-canonical path creates nothing.
    @Test func anotherUIDCannotReachAJobByAnySpellingOfItsPath() async throws {
        guard Self.canSwitchUsers() else { return }
        let daemon = try await Self.reachableDaemon()
        let socket = daemon.socketPath
        let created = try await Self.request(as: Self.owner, "POST", "/v1/reads", body: Self.createBody, socket: socket)
        #expect(created.status == 202, "\(created)")
        let id = try #require(try JSONDecoder().decode(ReadJobView.self, from: Data(created.body.utf8)).id)
        let job = "/v1/reads/\(id)"

        #expect(try await Self.request(as: Self.owner, "GET", job, socket: socket).status == 200)
        #expect(try await daemon.client.job(id).id == id, "root sees every job")
        for path in [job] + Self.variants(of: job) + Self.variants(of: job + "/face") + [job + "/face"]
            + Self.variants(of: job + "/evidence") + [job + "/evidence"] {
            for method in ["GET", "DELETE"] {
                let answer = try await Self.request(as: Self.stranger, method, path, socket: socket)
                #expect([400, 404, 405].contains(answer.status), "\(method) \(path) as another uid: \(answer.status) \(answer.body)")
                #expect(!answer.body.contains("\"state\""), "\(method) \(path) leaked the job: \(answer.body)")
            }
        }
        for path in Self.variants(of: job) {
            let answer = try await Self.request(as: Self.owner, "GET", path, socket: socket)
            #expect(answer.status == 400 && answer.body.contains("nonCanonicalPath"), "\(path): \(answer.status) \(answer.body)")
        }
        #expect(try await daemon.client.job(id).state == .waiting, "the job survived every DELETE by another uid")
        // A POST on a non-canonical path creates nothing (before: a job with no owner, readable by all).
        let before = await daemon.daemon.scheduler.jobIDs().count
        for path in ["//v1/reads", "/v1//reads", "///v1/reads", "/v1/reads/"] {
            let answer = try await Self.request(as: Self.stranger, "POST", path, body: Self.createBody, socket: socket)
            #expect(answer.status == 400 || answer.status == 404 || answer.status == 405, "POST \(path): \(answer.status) \(answer.body)")
        }
        #expect(await daemon.daemon.scheduler.jobIDs().count == before)
        try await daemon.stop()
    }

    /// The scheduler itself refuses callers whose credentials are unknown: no job without an owner,
    /// no lookup without a caller.
    @Test func callersWithoutCredentialsAreRefusedNotAllowed() async throws {
        let daemon = try await TestDaemon.start()
        let job = try await daemon.client.createRead(.init(access: Specimens.access))
        await #expect(throws: SchedulerError.jobNotFound) { try await daemon.daemon.scheduler.snapshot(id: job.id, peer: nil) }
        await #expect(throws: SchedulerError.jobNotFound) { try await daemon.daemon.scheduler.cancel(id: job.id, peer: nil) }
        await #expect(throws: SchedulerError.peerUnknown) {
            try await daemon.daemon.scheduler.create(try Specimens.order(), peer: nil)
        }
        try await daemon.stop()
    }

    @Test(arguments: [
        ("/v1/health", true), ("/", true), ("/v1/reads/abc/face", true), ("//v1/health", false), ("/v1//health", false),
        ("/v1/health/", false), ("/v1/./health", false), ("/v1/../v1/health", false), ("/v1/%2e%2e/health", false),
        ("/v1%2Fhealth", false), ("v1/health", false), ("", false), ("/v1\\health", false),
    ])
    func canonicalPaths(path: String, canonical: Bool) {
        #expect(APIRequestDecoding.isCanonicalPath(path) == canonical, "\(path)")
    }

    // MARK: Item 2: numeric extremes

    /// Every extreme `timeoutSeconds` is answered (202 within the cap, 400 when not a positive
    /// number), and the daemon lives on. Before: 1e300 trapped converting to Int64.
    @Test func numericExtremesInARequestAreAnsweredNeverTrap() async throws {
        let daemon = try await TestDaemon.start { $0.maxActiveJobs = 100 }
        let extremes: [(String, Int)] = [
            ("1e300", 202), ("1.7976931348623157e308", 202), ("9.3e15", 202), ("9223372036854775807", 202),
            ("18446744073709551616", 202), ("1e-300", 202), ("5e-324", 202), ("0.0001", 202), ("60", 202),
            ("0", 400), ("-0", 400), ("-1", 400), ("-1e300", 400), ("1e309", 400), ("\"10\"", 400), ("null", 202),
        ]
        for (value, status) in extremes {
            let body = #"{"access":{"can":"123456"},"timeoutSeconds":\#(value)}"#
            let answer = try await daemon.client.send(.post, "/v1/reads", json: Array(body.utf8))
            #expect(answer.status == status, "timeoutSeconds \(value): \(answer.status) \(String(decoding: answer.body, as: UTF8.self))")
        }
        for groups in ["[1e300]", "[-9223372036854775809]", "[9223372036854775807]", "[1.5]", "[" + String(repeating: "1,", count: 20) + "1]"] {
            let body = #"{"access":{"can":"123456"},"dataGroups":\#(groups)}"#
            let answer = try await daemon.client.send(.post, "/v1/reads", json: Array(body.utf8))
            #expect(answer.status == 400, "dataGroups \(groups): \(answer.status)")
        }
        #expect(try await daemon.client.health().status == "ok")
        try await daemon.stop()
    }

    @Test func timeoutsAreCappedAndRangeChecked() throws {
        let cap = Duration.seconds(60)
        #expect(try ReadScheduler.timeout(1e300, cap: cap) == cap)
        #expect(try ReadScheduler.timeout(.greatestFiniteMagnitude, cap: cap) == cap)
        #expect(try ReadScheduler.timeout(1.5, cap: cap) == .milliseconds(1500))
        #expect(try ReadScheduler.timeout(nil, cap: cap) == cap)
        for bad in [0, -1, -.infinity, .infinity, .nan, -1e300] {
            #expect(throws: SchedulerError.self) { try ReadScheduler.timeout(bad, cap: cap) }
        }
    }

    @Test func configurationNumbersAreRangeChecked() throws {
        var configuration = DaemonConfiguration()
        for (key, value) in [
            ("read-timeout", "1e300"), ("read-timeout", "1e300s"), ("idle-timeout", "inf"), ("result-retention", "nan"),
            ("read-timeout", "0.0001ms"), ("max-clients", "99999999999999999999"), ("max-clients", "9223372036854775807"),
            ("max-request-body", "9223372036854775807"), ("max-jobs", "-1"), ("max-jobs-per-user", "0"),
            ("max-event-streams-per-user", "1e3"), ("socket-mode", "77777"),
        ] {
            #expect(throws: ConfigurationError.invalidValue(key, value)) { try configuration.set(key, value) }
        }
        try configuration.apply(file: "max-clients-per-user = 5\nmax-jobs-per-user = 2\nmax-event-streams-per-user = 3\n")
        #expect(configuration.maxClientsPerUser == 5 && configuration.maxActiveJobsPerUser == 2 && configuration.maxEventSubscribersPerUser == 3)
    }

    // MARK: Item 6: broken bodies

    /// Bad chunk sizes, a chunk longer than announced, a body cut short, an unknown transfer
    /// encoding: each is a 400 (with `malformedBody` when a request was under way), never a 500,
    /// and nothing is logged at error level.
    @Test func brokenChunkedBodiesAre400NotInternalErrors() async throws {
        let daemon = try await TestDaemon.start()
        let head = "POST /v1/reads HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
        let cases: [(String, String)] = [
            ("bad chunk size", head + "Transfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"),
            ("negative chunk size", head + "Transfer-Encoding: chunked\r\n\r\n-5\r\n{}\r\n0\r\n\r\n"),
            ("huge chunk size", head + "Transfer-Encoding: chunked\r\n\r\nffffffffffffffffffff\r\n{}\r\n0\r\n\r\n"),
            ("chunk longer than announced", head + "Transfer-Encoding: chunked\r\n\r\n2\r\n{\"access\":{}}\r\n0\r\n\r\n"),
            ("unknown transfer encoding", head + "Transfer-Encoding: xchunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
            ("chunked then length", head + "Transfer-Encoding: chunked\r\nContent-Length: 4\r\n\r\n2\r\n{}\r\n0\r\n\r\n"),
        ]
        for (name, request) in cases {
            let socket = try RawSocket(path: daemon.socketPath, receiveTimeout: 10)
            socket.send(request)
            let answer = try await offPool { socket.receiveAll() }
            #expect(answer.hasPrefix("HTTP/1.1 400"), "\(name): \(answer.prefix(200))")
            // Once the head is parsed the route answers with the code; a broken head gets the codec's bare 400.
            if name != "chunked then length" { #expect(answer.contains(#""error":"malformedBody""#), "\(name): \(answer)") }
        }
        // A body cut short: the client stops sending and half-closes.
        let short = try RawSocket(path: daemon.socketPath, receiveTimeout: 10)
        short.send(head + "Content-Length: 100\r\n\r\n{\"access\"")
        shutdown(short.fd, Int32(SHUT_WR))
        let answer = try await offPool { short.receiveAll() }
        #expect(answer.isEmpty || answer.hasPrefix("HTTP/1.1 400"), "short body: \(answer.prefix(200))")
        let chunkedShort = try RawSocket(path: daemon.socketPath, receiveTimeout: 10)
        chunkedShort.send(head + "Transfer-Encoding: chunked\r\n\r\n40\r\n{\"access\"")
        shutdown(chunkedShort.fd, Int32(SHUT_WR))
        let second = try await offPool { chunkedShort.receiveAll() }
        #expect(second.isEmpty || second.hasPrefix("HTTP/1.1 400"), "short chunk: \(second.prefix(200))")
        #expect(try await daemon.client.health().status == "ok")
        let metrics = String(decoding: try await daemon.client.send(.get, "/metrics").body, as: UTF8.self)
        #expect(!metrics.contains("internalError"), "a broken body counted as an internal error")
        #expect(!daemon.logs.text.contains("<3>"), "a client's broken body logged at error level: \(daemon.logs.text.suffix(500))")
        try await daemon.stop()
    }

    // MARK: Item 7: quotas and stalled subscribers

    /// One uid's jobs stop at its quota; another uid and root still create theirs.
    @Test func jobsAreLimitedPerUID() async throws {
        let daemon = try await TestDaemon.start { $0.maxActiveJobsPerUser = 3 }
        let scheduler = daemon.daemon.scheduler
        let greedy = PeerCredentials(pid: 1, uid: 4242, gid: 4242)
        for _ in 0..<3 { _ = try await scheduler.create(try Specimens.order(), peer: greedy) }
        await #expect(throws: SchedulerError.tooManyJobsForUser) { try await scheduler.create(try Specimens.order(), peer: greedy) }
        _ = try await scheduler.create(try Specimens.order(), peer: PeerCredentials(pid: 2, uid: 4343, gid: 4343))
        for _ in 0..<4 { _ = try await daemon.client.createRead(.init(access: Specimens.access)) }  // root: global limit only
        try await daemon.stop()
    }

    /// Event streams per uid: the quota refuses the next one of that uid only.
    @Test func eventStreamsAreLimitedPerUID() throws {
        let bus = EventBus(maxSubscribers: 10, maxSubscribersPerUser: 2)
        let user = PeerCredentials(pid: 1, uid: 4242, gid: 4242)
        let streams = try (0..<2).map { _ in try bus.subscribe(peer: user) }
        #expect(throws: SchedulerError.tooManySubscribersForUser) { try bus.subscribe(peer: user) }
        let other = try bus.subscribe(peer: PeerCredentials(pid: 2, uid: 4343, gid: 4343))
        #expect(bus.subscriberCount == 3)
        withExtendedLifetime((streams, other)) {}
    }

    /// A uid holding its connection quota (two open event streams) gets 429 `tooManyClientsForUser`
    /// on its next connection, while root is served. Before: one uid could hold every slot.
    @Test func connectionsAreLimitedPerUID() async throws {
        guard Self.canSwitchUsers() else { return }
        let daemon = try await Self.reachableDaemon { $0.maxClientsPerUser = 2 }
        let directory = (daemon.socketPath as NSString).deletingLastPathComponent
        let followers = try (0..<2).map { index in
            try Self.follow(as: Self.owner, "/v1/events", socket: daemon.socketPath,
                            output: URL(fileURLWithPath: directory).appendingPathComponent("events-\(index)"), seconds: 20)
        }
        defer { for follower in followers where follower.isRunning { follower.terminate() } }
        try await waitUntil("two event subscribers") { daemon.daemon.events.subscriberCount >= 2 }
        #expect(daemon.daemon.events.subscriberCount == 2)
        let third = try await Self.request(as: Self.owner, "GET", "/v1/health", socket: daemon.socketPath)
        #expect(third.status == 429 && third.body.contains("tooManyClientsForUser"), "\(third)")
        let other = try await Self.request(as: Self.stranger, "GET", "/v1/health", socket: daemon.socketPath)
        #expect(other.status == 200, "another uid is served: \(other)")
        #expect(try await daemon.client.health().status == "ok", "root is served")
        for follower in followers { follower.terminate() }
        try await daemon.stop()
    }

    /// An event subscriber that never reads is dropped once it falls its buffer behind, and its
    /// connection closed; the others keep receiving. Before: it stayed subscribed forever.
    @Test func aStalledEventSubscriberIsDropped() async throws {
        let daemon = try await TestDaemon.start()
        let stalled = try RawSocket(path: daemon.socketPath, receiveTimeout: 20)
        var small: Int32 = 4096
        setsockopt(stalled.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        stalled.send("GET /v1/events HTTP/1.1\r\nHost: x\r\n\r\n")
        try await waitUntil("the stalled subscriber registered") { daemon.daemon.events.subscriberCount >= 1 }
        #expect(daemon.daemon.events.subscriberCount == 1)
        let payload = String(repeating: "x", count: 2048)
        for round in 0..<200 {
            for _ in 0..<100 { daemon.daemon.events.publish(.make(.readerRemoved, EventPayload.Reader(reader: payload))) }
            if daemon.daemon.events.droppedSubscribers > 0 { break }
            if round % 10 == 9 { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(daemon.daemon.events.droppedSubscribers == 1)
        #expect(daemon.daemon.events.subscriberCount == 0)
        // Its connection ends: reading what was sent reaches the end of the stream.
        let received = try await offPool { stalled.receiveAll() }
        #expect(received.hasPrefix("HTTP/1.1 200"))
        #expect(try await daemon.client.health().status == "ok")
        try await daemon.stop()
    }

    // MARK: Item 8: event visibility

    /// uid 65534's job events reach uid 65534 and root, never uid 65533; reader and card events
    /// reach everyone.
    @Test func jobEventsReachTheirOwnerAndRootOnly() async throws {
        guard Self.canSwitchUsers() else { return }
        let daemon = try await Self.reachableDaemon()
        let directory = URL(fileURLWithPath: (daemon.socketPath as NSString).deletingLastPathComponent)
        let ownerLog = directory.appendingPathComponent("owner.events")
        let strangerLog = directory.appendingPathComponent("stranger.events")
        let ownerStream = try Self.follow(as: Self.owner, "/v1/events", socket: daemon.socketPath, output: ownerLog, seconds: 30)
        let strangerStream = try Self.follow(as: Self.stranger, "/v1/events", socket: daemon.socketPath, output: strangerLog, seconds: 30)
        defer { for p in [ownerStream, strangerStream] where p.isRunning { p.terminate() } }
        let rootEvents = Locked<[String]>([])
        let rootOpened = Locked(false)
        let rootStream = daemon.client.events { rootOpened.withValue { $0 = true } }
        let rootFollower = Task { for try await event in rootStream { rootEvents.withValue { $0.append(event.type + " " + event.data) } } }
        try await waitUntil("three event subscribers") { daemon.daemon.events.subscriberCount >= 3 }
        #expect(daemon.daemon.events.subscriberCount == 3)

        let created = try await Self.request(as: Self.owner, "POST", "/v1/reads", body: Self.createBody, socket: daemon.socketPath)
        let id = try JSONDecoder().decode(ReadJobView.self, from: Data(created.body.utf8)).id
        daemon.backend.insert(try Specimens.passport(), into: "R1")  // card.inserted (public), then the read
        try await waitUntil("read.finished in the owner's stream") {
            (try? String(contentsOf: ownerLog, encoding: .utf8))?.contains("read.finished") == true
        }
        // A public event after the read: once the stranger has it, every event published before it
        // has been delivered to (or withheld from) the stranger, so what it lacks it was not sent.
        daemon.daemon.events.publish(.make(.readerRemoved, EventPayload.Reader(reader: "test-marker")))
        try await waitUntil("the marker in the stranger's stream") {
            (try? String(contentsOf: strangerLog, encoding: .utf8))?.contains("test-marker") == true
        }
        try await waitUntil("read.finished in root's stream") { rootEvents.current.contains { $0.hasPrefix("read.finished") } }
        ownerStream.terminate()
        strangerStream.terminate()
        rootFollower.cancel()
        let ownerText = try String(contentsOf: ownerLog, encoding: .utf8)
        let strangerText = try String(contentsOf: strangerLog, encoding: .utf8)
        #expect(ownerText.contains("read.progress") && ownerText.contains("read.finished") && ownerText.contains(id))
        #expect(ownerText.contains("card.inserted"))
        #expect(strangerText.contains("card.inserted"), "reader and card events are public: \(strangerText)")
        #expect(!strangerText.contains(id), "another uid saw the job: \(strangerText)")
        #expect(!strangerText.contains("read.progress") && !strangerText.contains("read.finished"))
        #expect(rootEvents.current.contains { $0.hasPrefix("read.finished") && $0.contains(id) }, "root sees every job's events")
        try await daemon.stop()
    }
}

/// Runs a blocking call (a socket read, a child process) on its own thread, not on the cooperative
/// pool, which an in-process daemon (and tests in parallel) need to make progress.
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}

/// Every route, every method, every spelling of its path and numeric extremes in its query and
/// body, through the running daemon: no answer is a 5xx, a non-canonical path is always 400
/// `nonCanonicalPath`, and the daemon keeps serving (docs/reliability.md, daemon robustness suite).
@Suite(.serialized) struct RouteSweepTests {
    @Test func pathVariantsAndNumericExtremesThroughEveryRoute() async throws {
        let daemon = try await TestDaemon.start { $0.maxActiveJobs = 1000; $0.maxActiveJobsPerUser = 1000 }
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        let routes = ["/v1/health", "/v1/readers", "/v1/reads", "/v1/reads/\(done.id)", "/v1/reads/\(done.id)/face", "/metrics"]
        let numbers = ["0", "-1", "1e300", "-1e300", "1e-300", "9223372036854775807", "9223372036854775808", "-9223372036854775809",
                       "18446744073709551616", "NaN", "Infinity", "0x10", "1.7976931348623157e308"]
        var answered = 0
        for route in routes {
            var paths = [route] + SecurityTests.variants(of: route)
            paths += numbers.map { route + "?wait=\($0)&format=\($0)&timeoutSeconds=\($0)" }
            for path in paths {
                for method in [HTTPRequest.Method.get, .post, .delete, .put] {
                    let body = method == .post ? Array(#"{"access":{"can":"123456"},"timeoutSeconds":1e300,"dataGroups":[14]}"#.utf8) : nil
                    let answer = try await daemon.client.send(method, path, json: body)
                    answered += 1
                    #expect(answer.status < 500, "\(method) \(path): \(answer.status) \(String(decoding: answer.body, as: UTF8.self).prefix(120))")
                    if !APIRequestDecoding.isCanonicalPath(String(path.prefix { $0 != "?" })) {
                        #expect(answer.status == 400 && DaemonClientError.from(answer).code == .nonCanonicalPath, "\(method) \(path)")
                    }
                }
            }
        }
        for value in numbers + ["1e309", "-0", "5e-324", "[]", "{}", "true", "\"1\""] {
            for field in ["timeoutSeconds", "dataGroups"] {
                let body = #"{"access":{"can":"123456"},"\#(field)":\#(field == "dataGroups" ? "[\(value)]" : value)}"#
                let answer = try await daemon.client.send(.post, "/v1/reads", json: Array(body.utf8))
                answered += 1
                #expect([202, 400].contains(answer.status), "\(field) \(value): \(answer.status)")
            }
        }
        #expect(try await daemon.client.health().status == "ok")
        print("FIGURES route sweep: \(answered) requests (path variants × methods, numeric extremes), no 5xx")
        try await daemon.stop()
    }
}
