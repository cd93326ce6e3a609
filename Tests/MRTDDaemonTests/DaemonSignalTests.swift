import Foundation
import MRTDTesting
import Testing
@testable import MRTDDaemon
import HTTPTypes
import MRTDClient

/// Signals to an `mrtdd` process (issue 14 item 4): SIGUSR1 logs the state, SIGHUP reloads
/// configuration and trust store, neither ends the daemon; SIGTERM ends it cleanly. The daemon runs
/// without `--trust` or `--simulate`: the shipped master lists are its default trust.
@Suite(.serialized) struct DaemonSignalTests {
    static func health(_ client: DaemonClient) async throws -> TrustStoreSummary {
        try await client.health().trustStore
    }

    /// Polls until a reload newer than `previous` (its timestamp) is recorded.
    static func waitForReload(_ client: DaemonClient, after previous: String?) async throws -> TrustReloadStatus {
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            if let last = try await health(client).lastReload, previous == nil || last.at != previous { return last }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestFailure("no reload recorded within 30 s")
    }

    @Test func sigusr1LogsStateSighupReloadsAndOnlySigtermEndsTheDaemon() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let trust = directory.appendingPathComponent("trust")
        try FileManager.default.createDirectory(at: trust, withIntermediateDirectories: true)
        try Data(try TrustReloadTests.otherCSCA()).write(to: trust.appendingPathComponent("other-csca.der"))
        let config = directory.appendingPathComponent("mrtdd.conf")
        // No reader library: a job created now waits for a card, in flight across the signals.
        try "backends =\nsocket-group =\nread-timeout = 10m\ntrust-store = \(trust.path)\n"
            .write(to: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("mrtdd.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcessTests.executable("mrtdd"))
        process.arguments = ["--config", config.path, "--socket", socket]
        // The shipped lists of this checkout, wherever the test bundle was built.
        var environment = ProcessInfo.processInfo.environment
        environment["MRTD_DEFAULT_TRUST"] = DefaultTrustPath.repository
        process.environment = environment
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let client = DaemonClient(socketPath: socket)
        try await DaemonProcessTests.waitForSocket(socket, client: client)

        // Default trust: the DE and NL lists, verified, plus the configured store.
        let initial = try await Self.health(client)
        #expect(initial.defaultTrust == DefaultTrustPath.repository)
        #expect(Set(initial.masterLists?.map { $0.country ?? "" } ?? []) == ["DE", "NL"])
        #expect(initial.masterLists?.allSatisfy { $0.signature == "verified" } == true)
        #expect(initial.countries?.contains("DE") == true && initial.countries?.contains("UU") == true)
        let cscas = try #require(initial.certificates)
        #expect(cscas > 500)
        let job = try await client.createRead(.init(access: Specimens.access))
        #expect(job.state == .waiting)

        // SIGUSR1: a state line, no personal data, still running.
        kill(process.processIdentifier, SIGUSR1)
        try await waitUntil("the state line in the log") {
            (try? String(contentsOf: log, encoding: .utf8))?.contains("<5>state activeJobs=1") == true
        }
        #expect(process.isRunning)
        #expect(try await client.health().status == "degraded")

        // SIGHUP with a good new store (one CSCA more): taken.
        let fixture = try FixturePKI.make(.ecP256, country: "UX", cscaCommonName: "Added CSCA", keySet: 4)
        try Data(fixture.csca).write(to: trust.appendingPathComponent("added-csca.der"))
        kill(process.processIdentifier, SIGHUP)
        let good = try await Self.waitForReload(client, after: nil)
        #expect(good.succeeded, "\(good.error ?? "")")
        #expect(try await Self.health(client).certificates == cscas + 1)
        #expect(process.isRunning)

        // SIGHUP with a broken store: refused, the store stays, and says why.
        try Data(try TrustReloadTests.brokenMasterList()).write(to: trust.appendingPathComponent("broken.ml"))
        // Reload timestamps have one-second resolution: the next one must differ from the last.
        try await Task.sleep(for: .milliseconds(1100))
        kill(process.processIdentifier, SIGHUP)
        let bad = try await Self.waitForReload(client, after: good.at)
        #expect(!bad.succeeded)
        #expect(bad.error?.contains("broken.ml") == true)
        #expect(try await Self.health(client).certificates == cscas + 1)
        let metrics = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("mrtdd_trust_cscas \(cscas + 1)\n"))
        #expect(metrics.contains("mrtdd_trust_last_reload_success 0\n"))
        #expect(metrics.contains("mrtdd_trust_reloads_total{outcome=\"succeeded\"} 1\n"))
        #expect(metrics.contains("mrtdd_trust_reloads_total{outcome=\"failed\"} 1\n"))

        // The job survived every signal.
        #expect(try await client.job(job.id).state == .waiting)
        #expect(process.isRunning)

        process.terminate()  // SIGTERM
        #expect(try await DaemonProcessTests.waitForExit(process) == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed on shutdown")
        let logs = try String(contentsOf: log, encoding: .utf8)
        #expect(logs.contains("<5>state activeJobs=1"))
        #expect(logs.contains("SIGHUP: reloading configuration and trust store"))
        #expect(logs.contains("trust store reload refused, the running store stays"))
        for secret in ["L898902C", "740812", "120415"] { #expect(!logs.contains(secret)) }
    }
}

/// `certs/masterlists` of the checkout these tests were compiled from.
enum DefaultTrustPath {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("certs/masterlists").path
}
