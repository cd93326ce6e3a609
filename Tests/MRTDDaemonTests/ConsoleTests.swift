import Foundation
import MRTDTesting
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MRTDDaemon
import MRTDClient
import MRTDCore

/// `mrtdctl console` in headless Chromium, and the client examples in docs/examples, each against
/// `mrtdd --simulate` as a separate process (docs/console.md).
@Suite(.serialized) struct ConsoleTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// A running `mrtdd --simulate` on a temporary socket; stopped by `stop()`.
    struct SimulatedDaemon {
        let directory: URL
        let socket: String
        let process: Process
        let log: URL

        static func start(readers: Int = 1, latencyMs: Int = 0, extra: [String] = []) async throws -> SimulatedDaemon {
            let directory = try DaemonProcessTests.temporaryDirectory()
            let socket = directory.appendingPathComponent("mrtdd.sock").path
            let config = directory.appendingPathComponent("mrtdd.conf")
            try "socket-group = \n".write(to: config, atomically: true, encoding: .utf8)
            let log = directory.appendingPathComponent("mrtdd.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try DaemonProcessTests.executable("mrtdd"))
            process.arguments = ["--config", config.path, "--simulate", "--sim-readers", "\(readers)", "--sim-latency-ms", "\(latencyMs)", "--socket", socket] + extra
            process.standardError = try FileHandle(forWritingTo: log)
            process.standardOutput = FileHandle.nullDevice  // never the test runner's pipe
            try process.run()
            do {
                try await DaemonProcessTests.waitForSocket(socket, client: DaemonClient(socketPath: socket))
            } catch {
                process.terminate()
                throw error
            }
            return SimulatedDaemon(directory: directory, socket: socket, process: process, log: log)
        }

        /// On any path out of a test (the second call is harmless).
        func kill() {
            if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        }

        func stop() async throws -> String {
            process.terminate()
            defer { kill() }
            #expect(try await DaemonProcessTests.waitForExit(process) == 0)
            let logs = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            return logs
        }
    }

    /// Runs a program to its end off the cooperative pool, killing it after `timeout`.
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:], timeout: TimeInterval = 120) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let timer = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: timer)
        let output = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        timer.cancel()
        return (process.terminationStatus, output)
    }

    /// A tool the test needs: in CI its absence fails the test; elsewhere the test says it skipped.
    static func require(_ path: String, for what: String) -> Bool {
        if FileManager.default.isExecutableFile(atPath: path) { return true }
        #expect(Prerequisite.skip("\(path) is not installed (scripts/setup installs it); \(what) untested"))
        return false
    }

    /// Starts `mrtdctl console` (with `arguments` after its own, `environment` over the test's, and
    /// run through `launcher`, such as prlimit, when given) and waits for the URL it prints.
    static func startConsole(
        socket: String, directory: URL, arguments: [String] = [], environment: [String: String] = [:], launcher: [String] = []
    ) async throws -> (process: Process, url: String, output: URL) {
        let output = directory.appendingPathComponent("console.out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        let command = launcher + [try DaemonProcessTests.executable("mrtdctl"), "console", "--socket", socket] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        try process.run()
        for _ in 0..<600 {
            let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("mrtdctl console: ") }) {
                return (process, String(line.dropFirst("mrtdctl console: ".count)), output)
            }
            guard process.isRunning else { throw TestFailure("mrtdctl console exited: \(text)") }
            try await Task.sleep(for: .milliseconds(25))
        }
        process.terminate()
        throw TestFailure("mrtdctl console printed no URL")
    }

    @Test func theConsoleReadsTheSpecimenInHeadlessChromiumWithTheKeyboardOnly() async throws {
        guard Self.require("/usr/bin/chromium", for: "the operator console in a browser") else { return }
        // Reader 0: the specimen passport (BAC, MRZ); reader 1: the PACE-only ID card (CAN 123456).
        // 100 ms per APDU, so that the progress of a read can be seen (and screenshot).
        let daemon = try await SimulatedDaemon.start(readers: 2, latencyMs: 100)
        defer { daemon.kill() }
        let console = try await Self.startConsole(socket: daemon.socket, directory: daemon.directory)
        defer { if console.process.isRunning { console.process.terminate() } }
        #expect(console.url.wholeMatch(of: /http:\/\/127\.0\.0\.1:[0-9]{2,5}\/[0-9a-f]{64}\//) != nil, "URL: 127.0.0.1, a port, a 256-bit token")

        // Screenshots stay for a person to look at (docs/console.md).
        let screenshots = ProcessInfo.processInfo.environment["MRTDD_CONSOLE_SCREENSHOTS"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-console-screenshots").path
        try? FileManager.default.removeItem(atPath: screenshots)
        let script = Self.repository.appendingPathComponent("Tests/browser/console_e2e.py").path
        let run = try await Self.run("/usr/bin/python3", [script, console.url, screenshots, "/usr/bin/chromium"], timeout: 300)
        print(run.output)
        #expect(run.status == 0, "console_e2e.py failed:\n\(run.output)")
        #expect(run.output.contains("all console checks passed"))
        for name in ["01-ready", "02-entered", "02b-progress", "03-verdict", "04-raw-json", "05-failed", "06-can"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: "\(screenshots)/\(name).png")[.size] as? Int) ?? 0
            #expect(size > 10_000, "screenshot \(name).png (\(size) bytes)")
        }
        print("console screenshots: \(screenshots)")

        console.process.terminate()
        _ = try await DaemonProcessTests.waitForExit(console.process)
        let consoleOutput = try String(contentsOf: console.output, encoding: .utf8)
        let logs = try await daemon.stop()
        for secret in ["L898902C", "740812", "120415", "ERIKSSON", "ANNA"] {
            #expect(!consoleOutput.contains(secret), "mrtdctl console printed personal data")
            #expect(!logs.contains(secret), "mrtdd logged personal data")
        }
        let token = String(console.url.split(separator: "/").last ?? "")
        #expect(consoleOutput.components(separatedBy: token).count == 2, "the token is printed once (the URL), never logged per request")
        #expect(!logs.contains(token))
    }

    /// A live read through the daemon of a chip whose Active Authentication signature is wrong (a
    /// clone without the DG15 key): `invalid`, and the console paints it red and says why.
    @Test func aChipWithAWrongAASignatureIsShownInvalidInRed() async throws {
        guard Self.require("/usr/bin/chromium", for: "the operator console in a browser") else { return }
        let daemon = try await SimulatedDaemon.start(extra: ["--sim-auth-fault", "bad-aa-signature"])
        defer { daemon.kill() }
        let direct = try await DaemonClient(socketPath: daemon.socket).createRead(.init(access: Specimens.access), wait: true)
        #expect(direct.result?.status == .invalid, "\(String(describing: direct.result?.statusDetail))")
        #expect(direct.result?.checks.activeAuthentication.result == .failed)
        let console = try await Self.startConsole(socket: daemon.socket, directory: daemon.directory)
        defer { if console.process.isRunning { console.process.terminate() } }
        let screenshots = ProcessInfo.processInfo.environment["MRTDD_CONSOLE_SCREENSHOTS"]
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-console-screenshots-aa").path
        let script = Self.repository.appendingPathComponent("Tests/browser/console_invalid.py").path
        let run = try await Self.run("/usr/bin/python3", [script, console.url, screenshots, "/usr/bin/chromium"], timeout: 300)
        print(run.output)
        #expect(run.status == 0, "console_invalid.py failed:\n\(run.output)")
        #expect(run.output.contains("all console checks passed"))
        console.process.terminate()
        _ = try await DaemonProcessTests.waitForExit(console.process)
        _ = try await daemon.stop()
    }

    @Test func theConsoleSaysWhenTheDaemonIsNotThere() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let console = try await Self.startConsole(socket: directory.appendingPathComponent("absent.sock").path, directory: directory)
        defer { if console.process.isRunning { console.process.terminate() } }
        let port = URL(string: console.url)?.port ?? 0
        let answer = try await Self.run("/usr/bin/curl", ["-sS", "-w", "\n%{http_code}", console.url + "api/readers"], timeout: 30)
        #expect(answer.output.hasSuffix("\n502"), "\(answer.output)")
        #expect(answer.output.contains("daemonUnavailable") && answer.output.contains("cannot connect to mrtdd"))
        #expect(port > 0)
        let bad = try await Self.run(try DaemonProcessTests.executable("mrtdctl"), ["console", "--port", "70000"], timeout: 30)
        #expect(bad.status == 64 && bad.output.contains("--port: 70000"))
    }

    @Test func thePythonAndShellClientExamplesReadTheSpecimen() async throws {
        guard Self.require("/usr/bin/jq", for: "docs/examples/read.sh"),
              Self.require("/usr/bin/curl", for: "docs/examples/read.sh") else { return }
        let daemon = try await SimulatedDaemon.start()
        defer { daemon.kill() }
        let python = Self.repository.appendingPathComponent("docs/examples/read.py").path
        let shell = Self.repository.appendingPathComponent("docs/examples/read.sh").path
        let face = daemon.directory.appendingPathComponent("face.png").path

        let py = try await Self.run("/usr/bin/python3", [python, "--socket", daemon.socket, "--mrz-key", "L898902C3,740812,120415", "--face", face])
        #expect(py.status == 0, "\(py.output)")
        #expect(py.output.contains("status: valid (authentic: "), "\(py.output)")
        #expect(py.output.contains("; document expired)\nname: ERIKSSON, ANNA MARIA\ndocument: P L898902C3 (UTO)\n"), "\(py.output)")
        #expect(py.output.contains("passiveAuthentication: passed"))
        let image = (try? Data(contentsOf: URL(fileURLWithPath: face))) ?? Data()
        #expect(image.starts(with: [0xFF, 0xD8, 0xFF]) && image.count > 10_000, "the specimen's face, JPEG as stored (\(image.count) bytes)")
        #expect(py.output.contains("face: \(face) (image/jpeg, \(image.count) bytes)"))
        let pyWrong = try await Self.run("/usr/bin/python3", [python, "--socket", daemon.socket, "--mrz-key", "L898902C3,740812,120416"])
        #expect(pyWrong.status == 1 && pyWrong.output.contains("accessDenied"), "\(pyWrong.output)")
        let pyAbsent = try await Self.run("/usr/bin/python3", [python, "--socket", daemon.directory.appendingPathComponent("none").path, "--can", "123456"])
        #expect(pyAbsent.status == 1 && pyAbsent.output.contains("cannot reach mrtdd"), "\(pyAbsent.output)")

        let sh = try await Self.run("/bin/sh", [shell, "L898902C3", "740812", "120415"], environment: ["MRTDD_SOCKET": daemon.socket])
        #expect(sh.status == 0, "\(sh.output)")
        #expect(sh.output.contains("status: valid (authentic: "), "\(sh.output)")
        #expect(sh.output.contains("; document expired)\nname: ERIKSSON, ANNA MARIA\ndocument: P L898902C3 (UTO)\n"), "\(sh.output)")
        #expect(sh.output.contains("passiveAuthentication: passed"))
        let shWrong = try await Self.run("/bin/sh", [shell, "L898902C3", "740812", "120416"], environment: ["MRTDD_SOCKET": daemon.socket])
        #expect(shWrong.status == 1 && shWrong.output.contains("accessDenied"), "\(shWrong.output)")
        let usage = try await Self.run("/bin/sh", [shell, "only-one"])
        #expect(usage.status == 64)
        _ = try await daemon.stop()
    }
}
