import Foundation
import MRTDTesting
import Testing
@testable import MRTDDaemon
import HTTPTypes
#if canImport(Glibc)
import Glibc
#endif
import MRTDClient

/// mrtdd as a process under the attacks of issue 14 that need one: file-descriptor exhaustion
/// under a low `RLIMIT_NOFILE`, a second daemon on the same socket path, a client flag that used
/// to crash the daemon.
@Suite(.serialized) struct SecurityProcessTests {
    typealias Process_ = DaemonProcessTests
    /// The open-file limit mrtdd runs under, and the idle connections thrown at it (few enough not
    /// to disturb the descriptor counts of tests running alongside in this process).
    static let nofile = 128
    static let idleConnections = 150

    struct Running {
        let process: Process
        let socket: String
        let log: URL
        let client: DaemonClient
        var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
    }

    /// Starts `mrtdd --simulate` on `socket`, optionally under `prlimit --nofile=N:N`.
    static func start(
        socket: String, in directory: URL, name: String = "mrtdd", nofile: Int? = nil, waitUntilListening: Bool = true
    ) async throws -> Running {
        let config = directory.appendingPathComponent("\(name).conf")
        try "log-level = debug\nsocket-group = \n".write(to: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("\(name).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        let daemon = [try Process_.executable("mrtdd"), "--config", config.path, "--simulate", "--socket", socket]
        if let nofile {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(nofile):\(nofile)"] + daemon
        } else {
            process.executableURL = URL(fileURLWithPath: daemon[0])
            process.arguments = Array(daemon.dropFirst())
        }
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let running = Running(process: process, socket: socket, log: log, client: DaemonClient(socketPath: socket))
        if waitUntilListening { try await Process_.waitForSocket(socket, client: running.client) }
        return running
    }

    /// CPU seconds (user + system) the process has used so far, from /proc/PID/stat.
    static func cpuSeconds(_ pid: Int32) throws -> Double {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        let fields = stat[stat.index(after: try #require(stat.lastIndex(of: ")")))...].split(separator: " ")
        // Fields 14 and 15 (utime, stime), counted from after the command name (field 3 is first here).
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        return (Double(fields[11]) ?? 0) / ticks + (Double(fields[12]) ?? 0) / ticks
    }

    /// With 128 open files allowed, 150 idle connections: the daemon admits fewer than its limit
    /// allows (keeping descriptors in reserve), answers the rest 429 at once and closes them, keeps
    /// answering new clients within a second, does not spin, and serves normally once the idle
    /// connections go. Before: refused connections held their descriptors, accept hit EMFILE, a
    /// core ran at 100% and the daemon stopped answering.
    @Test func idleConnectionsBeyondTheFileLimitAreRefusedAtOnceAndTheDaemonKeepsAnswering() async throws {
        let directory = try Process_.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try await Self.start(socket: directory.appendingPathComponent("s.sock").path, in: directory, nofile: Self.nofile)
        defer { if daemon.process.isRunning { daemon.process.interrupt() } }
        #expect(daemon.logText.contains("maxConnections=\(APIServer.connectionLimit(configured: 256, descriptors: Self.nofile))"))

        let limit = APIServer.connectionLimit(configured: 256, descriptors: Self.nofile)
        let pid = daemon.process.processIdentifier
        let descriptorsBefore = DaemonRobustnessSoakTests.openDescriptors(of: pid)
        var idle: [RawSocket] = []
        for _ in 0..<Self.idleConnections { idle.append(try RawSocket(path: daemon.socket, receiveTimeout: 5)) }
        // The daemon has accepted the connections it admits (each holds a descriptor of its own).
        try await waitUntil("\(limit) idle connections admitted") {
            DaemonRobustnessSoakTests.openDescriptors(of: pid) >= descriptorsBefore + limit
        }
        let cpuBefore = try Self.cpuSeconds(daemon.process.processIdentifier)
        let clock = ContinuousClock()
        for attempt in 0..<5 {
            let start = clock.now
            let probe = try RawSocket(path: daemon.socket, receiveTimeout: 5)
            probe.send("GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = try await offPool { probe.receiveAnswer() }
            let elapsed = clock.now - start
            #expect(answer?.status == 429 && answer?.body.contains("tooManyClients") == true, "attempt \(attempt): \(String(describing: answer))")
            #expect(elapsed < .seconds(2), "attempt \(attempt): answered after \(elapsed)")
            try await Task.sleep(for: .milliseconds(300))
        }
        let cpu = try Self.cpuSeconds(daemon.process.processIdentifier) - cpuBefore
        #expect(cpu < 1.0, "the daemon used \(cpu) s of CPU in about 2.5 s with idle connections open")
        // The refused ones were closed (answered at once when descriptors ran short, else after a
        // second without a request); the admitted ones are still open.
        var refused = 0
        for socket in idle {
            var byte: UInt8 = 0
            if recv(socket.fd, &byte, 1, Int32(MSG_DONTWAIT)) >= 0 { refused += 1 }
        }
        #expect(refused >= Self.idleConnections - APIServer.connectionLimit(configured: 256, descriptors: Self.nofile), "\(refused) of \(Self.idleConnections) idle connections were refused")
        idle.removeAll()
        try await waitUntil("the daemon serving again once the idle connections are gone", within: .seconds(10)) {
            (try? await daemon.client.health().status) == "ok"
        }
        daemon.process.terminate()
        #expect(try await Process_.waitForExit(daemon.process) == 0)
        print("FIGURES fd exhaustion: \(refused) of \(Self.idleConnections) idle connections refused at once under nofile=\(Self.nofile); CPU \(cpu) s over 2.5 s")
    }

    @Test func theConnectionLimitStaysBelowTheFileLimit() {
        #expect(APIServer.connectionLimit(configured: 256, descriptors: 1024) == 256)
        #expect(APIServer.connectionLimit(configured: 256, descriptors: 256) == 256 - APIServer.reservedDescriptors - 16)
        #expect(APIServer.connectionLimit(configured: 5000, descriptors: 1024) == 1024 - APIServer.reservedDescriptors - 16)
        #expect(APIServer.connectionLimit(configured: 10, descriptors: 20) == 1)
    }

    /// A second daemon on a live socket refuses to start and leaves the first one serving; a daemon
    /// removes only the socket it created (not a later daemon's on the same path); a stale socket
    /// (no one answering) is replaced. Before: the second silently took the socket over, and the
    /// first's SIGTERM then removed the second's live socket.
    @Test func aSecondDaemonOnALiveSocketRefusesToStartAndNoDaemonRemovesAnothersSocket() async throws {
        let directory = try Process_.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("shared.sock").path
        let first = try await Self.start(socket: socket, in: directory, name: "first")
        defer { if first.process.isRunning { first.process.interrupt() } }

        let second = try await Self.start(socket: socket, in: directory, name: "second", waitUntilListening: false)
        let status = try await Process_.waitForExit(second.process, timeout: .seconds(15))
        #expect(status != 0, "the second daemon must not start")
        #expect(second.logText.contains("already listening on \(socket)"), "\(second.logText.suffix(400))")
        #expect(try await first.client.health().status == "ok", "the first daemon still serves")

        // Its socket file removed by someone, the first daemon is replaced on the path by a third.
        unlink(socket)
        let third = try await Self.start(socket: socket, in: directory, name: "third")
        defer { if third.process.isRunning { third.process.interrupt() } }
        first.process.terminate()
        #expect(try await Process_.waitForExit(first.process) == 0)
        #expect(FileManager.default.fileExists(atPath: socket), "the first daemon removed the third's socket")
        #expect(try await third.client.health().status == "ok")
        third.process.terminate()
        #expect(try await Process_.waitForExit(third.process) == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "a daemon removes its own socket")

        // A stale socket (its daemon killed) does not stop a new one.
        let stale = try Self.staleSocket(at: socket)
        #expect(stale)
        let fourth = try await Self.start(socket: socket, in: directory, name: "fourth")
        #expect(try await fourth.client.health().status == "ok")
        #expect(fourth.logText.contains("removing a stale socket"))
        fourth.process.terminate()
        #expect(try await Process_.waitForExit(fourth.process) == 0)

        // Something that is not a socket at the path is never replaced.
        FileManager.default.createFile(atPath: socket, contents: Data("keep".utf8))
        let fifth = try await Self.start(socket: socket, in: directory, name: "fifth", waitUntilListening: false)
        #expect(try await Process_.waitForExit(fifth.process, timeout: .seconds(15)) != 0)
        #expect(try String(contentsOfFile: socket, encoding: .utf8) == "keep")
    }

    /// A socket file with no listener behind it, as a killed daemon leaves.
    static func staleSocket(at path: String) throws -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = try #require(APIServer.unixAddress(path))
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        return bound == 0 && FileManager.default.fileExists(atPath: path)
    }

    /// `mrtdctl read --timeout 1e300` is refused by the client with a clear message; the daemon,
    /// sent the same number directly, caps it; it keeps running either way. Before: it crashed.
    @Test func extremeTimeoutsFromTheClientNeverCrashTheDaemon() async throws {
        let directory = try Process_.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try await Self.start(socket: directory.appendingPathComponent("t.sock").path, in: directory)
        defer { if daemon.process.isRunning { daemon.process.interrupt() } }
        for timeout in ["1e300", "-1", "nan", "inf", "0"] {
            let ctl = Process()
            ctl.executableURL = URL(fileURLWithPath: try Process_.executable("mrtdctl"))
            ctl.arguments = ["read", "--socket", daemon.socket, "--can", "123456", "--timeout=\(timeout)"]
            let errors = Pipe()
            ctl.standardError = errors
            ctl.standardOutput = FileHandle.nullDevice
            try ctl.run()
            let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            ctl.waitUntilExit()
            #expect(ctl.terminationStatus != 0, "--timeout \(timeout)")
            #expect(message.contains("--timeout must be between 0 and 86400 seconds"), "--timeout \(timeout): \(message)")
        }
        let body = #"{"access":{"can":"123456"},"timeoutSeconds":1e300}"#
        let answer = try await daemon.client.send(.post, "/v1/reads", json: Array(body.utf8))
        #expect(answer.status == 202)
        #expect(daemon.process.isRunning)
        #expect(try await daemon.client.health().status == "ok")
        daemon.process.terminate()
        #expect(try await Process_.waitForExit(daemon.process) == 0)
    }
}
