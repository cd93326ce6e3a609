import Foundation
#if canImport(Glibc)
import Glibc
#endif
import MRTDTesting
import Testing
@testable import MRTDDaemon
import MRTDClient

/// `mrtdctl console` against a second local user (issue 31, items 1, 3, 8 and 13): the token off
/// every command line with `--open`, idle connections that neither starve the owner nor spin the
/// console, a bounded event relay, and one Host with an origin-form target only. Each test runs
/// the built `mrtdctl` as a process (docs/console.md).
@Suite(.serialized) struct ConsoleSecurityTests {
    static let stranger = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    /// The CPU time `pid` has used so far (utime + stime of /proc/PID/stat), in seconds.
    static func cpuSeconds(of pid: Int32) -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let end = stat.lastIndex(of: ")") else { return nil }
        // After "pid (comm) ": state is field 3, utime field 14, stime field 15.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The state (hex, as in /proc/net/tcp: 01 established) of the console's end of the loopback
    /// connection from `clientPort` to `serverPort`; nil once the socket is gone.
    static func serverSideState(serverPort: Int, clientPort: Int) -> String? {
        // Read to the end with read(2): the file's size is 0 to stat, and it comes in pages.
        let fd = open("/proc/net/tcp", O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = [], buffer = [UInt8](repeating: 0, count: 65536)
        while case let n = buffer.withUnsafeMutableBytes({ read(fd, $0.baseAddress, $0.count) }), n > 0 { bytes += buffer[0..<n] }
        let table = String(decoding: bytes, as: UTF8.self)
        let local = String(format: "0100007F:%04X", serverPort), remote = String(format: "0100007F:%04X", clientPort)
        for line in table.split(separator: "\n") {
            let fields = line.split(separator: " ")
            if fields.count > 3, fields[1] == local, fields[2] == remote { return String(fields[3]) }
        }
        return nil
    }

    static func token(of url: String) -> String { String(url.split(separator: "/").last ?? "") }

    /// `mrtdctl console` with no daemon behind it (its socket absent): enough for the page and the gates.
    struct StandaloneConsole {
        let directory: URL
        let process: Process
        let url: String
        let port: Int

        static func start() async throws -> StandaloneConsole {
            let directory = try DaemonProcessTests.temporaryDirectory()
            let console = try await ConsoleTests.startConsole(socket: directory.appendingPathComponent("absent.sock").path, directory: directory)
            let port = URL(string: console.url)?.port ?? 0
            return StandaloneConsole(directory: directory, process: console.process, url: console.url, port: port)
        }

        func stop() {
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    // MARK: Item 1: --open

    /// `mrtdctl console --open` with a stand-in for the browser first on PATH: an `xdg-open` that
    /// records its pid and arguments, then stays running (as a browser would) so that its
    /// /proc/PID/cmdline can be read.
    struct OpenedConsole {
        let directory: URL
        let runtime: URL
        let process: Process
        let url: String
        /// What the stand-in recorded: its pid, then its arguments, a line each.
        let recorded: String
        let browser: Int32
        let arguments: [String]

        var token: String { ConsoleSecurityTests.token(of: url) }
        /// The launch page named by the one argument (empty without one).
        var page: String { String((arguments.first ?? "").dropFirst("file://".count)) }

        static func start() async throws -> OpenedConsole {
            let directory = try DaemonProcessTests.temporaryDirectory()
            let bin = directory.appendingPathComponent("bin"), runtime = directory.appendingPathComponent("runtime")
            try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true)
            chmod(runtime.path, 0o700)
            let record = directory.appendingPathComponent("xdg-open.args").path
            let fake = bin.appendingPathComponent("xdg-open").path
            try """
                #!/bin/sh
                printf '%s\\n' "$$" "$@" > "\(record).tmp" && mv "\(record).tmp" "\(record)"
                trap 'kill $! 2>/dev/null; exit 0' TERM
                sleep 120 & wait

                """.write(toFile: fake, atomically: true, encoding: .utf8)
            chmod(fake, 0o755)
            let path = bin.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
            let console = try await ConsoleTests.startConsole(
                socket: directory.appendingPathComponent("absent.sock").path, directory: directory, arguments: ["--open"],
                environment: ["PATH": path, "XDG_RUNTIME_DIR": runtime.path])
            do {
                let recorded = try await eventually("xdg-open to run") { try? String(contentsOfFile: record, encoding: .utf8) }
                let lines = recorded.split(separator: "\n").map(String.init)
                guard let browser = lines.first.flatMap({ Int32($0) }) else { throw TestFailure("xdg-open recorded \(recorded)") }
                return OpenedConsole(
                    directory: directory, runtime: runtime, process: console.process, url: console.url, recorded: recorded,
                    browser: browser, arguments: Array(lines.dropFirst()))
            } catch {
                console.process.terminate()
                throw error
            }
        }

        func stop() {
            if process.isRunning { process.terminate() }
            kill(browser, SIGTERM)
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func openHandsTheBrowserAPrivateLaunchPageAndNeverTheTokenOnACommandLine() async throws {
        let console = try await OpenedConsole.start()
        defer { console.stop() }
        let token = console.token, pid = console.browser, arguments = console.arguments, page = console.page
        #expect(token.count == 64, "\(console.url)")
        #expect(!console.recorded.contains(token), "the token is on xdg-open's command line: \(arguments)")
        #expect(arguments.count == 1 && arguments[0].hasPrefix("file://\(console.runtime.path)/mrtdctl-console-"), "\(arguments)")
        let pageDirectory = (page as NSString).deletingLastPathComponent

        if SecurityTests.canSwitchUsers() {
            // What every other local user can see of the browser's command line.
            let seen = try await ConsoleTests.run(Self.stranger[0], Array(Self.stranger.dropFirst()) + ["/bin/cat", "/proc/\(pid)/cmdline"], timeout: 30)
            #expect(seen.status == 0 && seen.output.contains("xdg-open") && seen.output.contains("file://"), "uid 65534 reads the command line: \(seen.output)")
            #expect(!seen.output.contains(token) && !seen.output.contains(token.prefix(16)), "uid 65534 read the token in /proc/\(pid)/cmdline")
            let read = try await ConsoleTests.run(Self.stranger[0], Array(Self.stranger.dropFirst()) + ["/bin/cat", page], timeout: 30)
            #expect(read.status != 0 && !read.output.contains(token), "uid 65534 read the launch page: \(read.output)")
        }

        // The launch page: mode 0600 in a mode 0700 directory, both the user's, under $XDG_RUNTIME_DIR.
        var info = stat()
        #expect(lstat(page, &info) == 0, "no launch page at \(page)")
        #expect((info.st_mode & S_IFMT) == S_IFREG && (info.st_mode & 0o7777) == 0o600 && info.st_uid == getuid(),
                "launch page mode \(String(info.st_mode, radix: 8)), owner \(info.st_uid)")
        #expect(lstat(pageDirectory, &info) == 0)
        #expect((info.st_mode & S_IFMT) == S_IFDIR && (info.st_mode & 0o7777) == 0o700 && info.st_uid == getuid(),
                "launch directory mode \(String(info.st_mode, radix: 8)), owner \(info.st_uid)")
        // It leads to the console: the URL in it serves the page.
        let html = try String(contentsOfFile: page, encoding: .utf8)
        let target = try #require(html.firstMatch(of: /url=(http:\/\/127\.0\.0\.1:[0-9]+\/[0-9a-f]{64}\/)/)?.1, "\(html)")
        #expect(String(target) == console.url)
        let answer = try await ConsoleTests.run("/usr/bin/curl", ["-sS", "-w", "\n%{http_code}", String(target)], timeout: 30)
        #expect(answer.output.hasSuffix("\n200") && answer.output.contains("mrtdd operator console"), "\(answer.output.suffix(200))")
        // Once the console has served its page, the launch page and its directory are gone.
        try await waitUntil("the launch page's removal") { !FileManager.default.fileExists(atPath: pageDirectory) }
        #expect(!FileManager.default.fileExists(atPath: page))
    }

    @Test func theLaunchPageIsRemovedWhenTheConsoleStopsUnused() async throws {
        let console = try await OpenedConsole.start()
        defer { console.stop() }
        let page = console.page, pageDirectory = (console.page as NSString).deletingLastPathComponent
        #expect(FileManager.default.fileExists(atPath: page), "no launch page at \(page)")
        // Nothing fetched the page; SIGTERM (as Ctrl-C) removes it and its directory.
        console.process.terminate()
        #expect(try await DaemonProcessTests.waitForExit(console.process) == 0)
        #expect(!FileManager.default.fileExists(atPath: pageDirectory), "the launch page outlived the console: \(pageDirectory)")
    }

    // MARK: Item 3: idle connections, timeouts, the connection cap

    @Test func threeHundredIdleConnectionsFromAnotherUserNeitherStarveTheOwnerNorSpinTheConsole() async throws {
        guard SecurityTests.canSwitchUsers(), ConsoleTests.require("/usr/bin/prlimit", for: "the console under a low descriptor limit")
        else { return }
        let daemon = try await ConsoleTests.SimulatedDaemon.start()
        defer { daemon.kill() }
        // The owner's console with `ulimit -n 256` (prlimit execs it: same pid).
        let console = try await ConsoleTests.startConsole(
            socket: daemon.socket, directory: daemon.directory, launcher: ["/usr/bin/prlimit", "--nofile=256:256", "--"])
        defer { if console.process.isRunning { console.process.terminate() } }
        let pid = console.process.processIdentifier
        let port = try #require(URL(string: console.url)?.port)

        // Another user opens 300 connections to the console's port and leaves them idle.
        let script = """
            import socket, sys, time
            held = []
            for _ in range(300):
                s = socket.socket()
                s.settimeout(5)
                try:
                    s.connect(("127.0.0.1", int(sys.argv[1])))
                    held.append(s)
                except OSError as error:
                    print("connect failed:", error, flush=True)
            print("open", len(held), flush=True)
            time.sleep(40)
            """
        let strangerOutput = daemon.directory.appendingPathComponent("stranger.out")
        _ = FileManager.default.createFile(atPath: strangerOutput.path, contents: nil)
        let stranger = Process()
        stranger.executableURL = URL(fileURLWithPath: Self.stranger[0])
        stranger.arguments = Array(Self.stranger.dropFirst()) + ["/usr/bin/python3", "-c", script, "\(port)"]
        stranger.standardOutput = try FileHandle(forWritingTo: strangerOutput)
        stranger.standardError = stranger.standardOutput
        try stranger.run()
        defer { if stranger.isRunning { kill(stranger.processIdentifier, SIGKILL) } }
        let opened = try await eventually("the stranger's 300 connections", within: .seconds(60)) {
            (try? String(contentsOf: strangerOutput, encoding: .utf8))?.firstMatch(of: /open ([0-9]+)/).flatMap { Int($0.1) }
        }
        #expect(opened == 300, "the stranger connected \(opened) times")

        // The owner's requests still answer, and the console does not spin, while they are held.
        let clock = ContinuousClock()
        let cpuBefore = try #require(Self.cpuSeconds(of: pid))
        let start = clock.now
        var slowest = Duration.zero
        for _ in 0..<5 {
            let sent = clock.now
            let answer = try await ConsoleTests.run(
                "/usr/bin/curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", "--max-time", "5", console.url + "api/readers"], timeout: 30)
            slowest = max(slowest, clock.now - sent)
            #expect(answer.output == "200", "the owner's request: \(answer.output)")
            try await Task.sleep(for: .seconds(1))  // the window over which CPU time is measured
        }
        let window = clock.now - start
        let cpu = try #require(Self.cpuSeconds(of: pid)) - cpuBefore
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? -1
        #expect(stranger.isRunning, "the stranger held its connections through the window")
        #expect(slowest < .seconds(3), "the owner's slowest answer took \(slowest)")
        #expect(cpu < 1.0, "the console used \(cpu) s of CPU in \(window) with 300 idle connections from another uid")
        print("FIGURES console with ulimit -n 256 and 300 idle connections from uid 65534: CPU \(String(format: "%.2f", cpu)) s in \(window), slowest owner answer \(slowest), \(descriptors) descriptors open")
    }

    @Test func aHalfSentRequestHeadAndASilentConnectionAreClosedWithinTheIdleTimeout() async throws {
        let console = try await StandaloneConsole.start()
        defer { console.stop() }
        let port = console.port
        let clock = ContinuousClock()
        let start = clock.now
        let silent = try RawSocket(tcpPort: port, receiveTimeout: 30)
        let halfSent = try RawSocket(tcpPort: port, receiveTimeout: 30)
        halfSent.send("GET /\(Self.token(of: console.url))/ HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Slow: ")
        let half = halfSent.receiveUntilEnd()
        let halfClosedAfter = clock.now - start
        let quiet = silent.receiveUntilEnd()
        let silentClosedAfter = clock.now - start
        #expect(half.closed && half.text.isEmpty, "a half-sent head was still open after \(halfClosedAfter): \(half.text)")
        #expect(halfClosedAfter < .seconds(15), "closed after \(halfClosedAfter) (idle timeout 10 s)")
        #expect(quiet.closed && silentClosedAfter < .seconds(15), "a silent connection was still open after \(silentClosedAfter)")
        print("FIGURES console: half-sent request head closed after \(halfClosedAfter), silent connection after \(silentClosedAfter)")
    }

    // MARK: Item 8: the event relay's bound

    @Test func aSubscriberThatStopsReadingIsDroppedInsteadOfBufferedWithoutEnd() async throws {
        let daemon = try await ConsoleTests.SimulatedDaemon.start(readers: 2)
        defer { daemon.kill() }
        let console = try await ConsoleTests.startConsole(socket: daemon.socket, directory: daemon.directory)
        defer { if console.process.isRunning { console.process.terminate() } }
        let pid = console.process.processIdentifier
        let port = try #require(URL(string: console.url)?.port)
        // A subscriber with a small window that never reads.
        let stalled = try RawSocket(tcpPort: port, receiveTimeout: 5, receiveBuffer: 4096)
        stalled.send("GET /\(Self.token(of: console.url))/api/events HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n\r\n")
        _ = try await eventually("the subscription") { Self.serverSideState(serverPort: port, clientPort: stalled.localPort) }
        let rssBefore = ProcStatus.kiB("VmRSS", of: pid) ?? 0

        // Events flow: both virtual readers read, DG1 only, until the console drops the subscriber.
        let client = DaemonClient(socketPath: daemon.socket)
        let requests: [ReadJobRequest] = [
            .init(reader: "Virtual Reader 0", access: Specimens.access, dataGroups: [1]),
            .init(reader: "Virtual Reader 1", access: .init(can: "123456"), dataGroups: [1]),
        ]
        let clock = ContinuousClock()
        let start = clock.now
        var reads = 0
        while Self.serverSideState(serverPort: port, clientPort: stalled.localPort) == "01", clock.now - start < .seconds(120) {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for request in requests { group.addTask { _ = try await client.createRead(request, wait: true) } }
                try await group.waitForAll()
            }
            reads += requests.count
        }
        let elapsed = clock.now - start
        let rssAfter = ProcStatus.kiB("VmRSS", of: pid) ?? 0
        let state = Self.serverSideState(serverPort: port, clientPort: stalled.localPort)
        #expect(state != "01", "the console still holds the stalled subscriber after \(reads) reads in \(elapsed)")
        // What reaches the subscriber once it reads again: what was buffered, then the end.
        let drained = stalled.receiveUntilEnd()
        let closed = drained.closed, held = drained.text.utf8.count, head = String(drained.text.prefix(1000))
        #expect(closed, "the stalled subscriber's connection was not closed")
        #expect(head.hasPrefix("HTTP/1.1 200") && head.contains("event: "), "\(head)")
        // The kernel's send buffer (64 KiB, doubled) was all that still reached it: not the relay's 512 events.
        #expect(held < 1_000_000, "\(held) bytes were held for a subscriber that did not read")
        print("""
            FIGURES console relay: stalled subscriber dropped after \(reads) reads in \(elapsed); \
            \(held) bytes were buffered for it; console VmRSS \(rssBefore) KiB before, \(rssAfter) KiB after
            """)
    }

    // MARK: Item 13: one Host, origin-form targets

    @Test func twoHostFieldsOrAnAbsoluteFormTargetAreAnswered400() async throws {
        let console = try await StandaloneConsole.start()
        defer { console.stop() }
        let port = console.port
        let token = Self.token(of: console.url), host = "127.0.0.1:\(port)"
        func answer(_ request: String) throws -> (status: Int, body: String)? {
            let socket = try RawSocket(tcpPort: port, receiveTimeout: 10)
            socket.send(request)
            return socket.receiveAnswer()
        }
        let control = try answer("GET /\(token)/ HTTP/1.1\r\nHost: \(host)\r\n\r\n")
        #expect(control?.status == 200 && control?.body.contains("mrtdd operator console") == true, "one Host and a path: \(String(describing: control?.status))")
        for request in [
            "GET /\(token)/ HTTP/1.1\r\nHost: \(host)\r\nHost: evil.example\r\n\r\n",
            "GET /\(token)/ HTTP/1.1\r\nHost: evil.example\r\nHost: \(host)\r\n\r\n",
            "GET /\(token)/ HTTP/1.1\r\nHost: \(host)\r\nHost: \(host)\r\n\r\n",
            "GET http://evil.example/\(token)/ HTTP/1.1\r\nHost: \(host)\r\n\r\n",
            "GET http://\(host)/\(token)/ HTTP/1.1\r\nHost: \(host)\r\n\r\n",
            "GET http://\(host)/\(token)/api/readers HTTP/1.1\r\nHost: \(host)\r\n\r\n",
        ] {
            let refused = try answer(request)
            #expect(refused?.status == 400, "\(request.split(separator: "\r\n").prefix(3)): \(String(describing: refused))")
            #expect(refused?.body.contains("operator console") != true)
        }
    }
}
