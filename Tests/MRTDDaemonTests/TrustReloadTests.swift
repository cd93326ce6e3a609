import Foundation
import Logging
import MRTDCore
import MRTDTesting
import MRTDVerification
import Testing
@testable import MRTDDaemon
import HTTPTypes
import MRTDCrypto
import MRTDSimulation
import MRTDClient

/// Reloading the trust store (SIGHUP / `Daemon.reload()`): a good store replaces the running one
/// without disturbing a read in flight; a broken one is refused and the old store stays; both are
/// visible in `GET /v1/health` and `/metrics`.
@Suite struct TrustReloadTests {
    /// A trust directory holding the TEST-ONLY CSCA that signs the specimen documents.
    static func trustDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-trust-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Data(try TestPKI.csca().derBytes).write(to: directory.appendingPathComponent("specimen-csca.der"))
        return directory
    }

    /// Another CSCA (country UU), which signs none of the specimens.
    static func otherCSCA() throws -> [UInt8] {
        try FixturePKI.make(.ecP256, country: "UU", cscaCommonName: "Other CSCA", keySet: 1).csca
    }

    /// A master list whose signature is broken: a reload must refuse the store holding it.
    static func brokenMasterList() throws -> [UInt8] {
        let pki = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Listed CSCA", keySet: 2)
        return try pki.masterList(containing: [pki.csca]) { $0.signature = .corrupted }
    }

    /// A reloadable trust store over `trust` alone (no default lists), logging into a capture.
    static func manager(_ trust: URL) -> (TrustManager, LogCapture) {
        var configuration = DaemonConfiguration()
        configuration.trustStorePaths = [trust.path]
        configuration.defaultTrust = false
        let logs = LogCapture()
        let manager = TrustManager(configuration: configuration, logger: Logger(label: "trust") { label in
            JournalLogHandler(label: label, level: .debug) { logs.append($0) }
        })
        return (manager, logs)
    }

    static func metrics(_ client: DaemonClient) async throws -> String {
        String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
    }

    @Test func goodStoreReplacesTheOldOneWithoutDisturbingAReadInFlight() async throws {
        let trust = try Self.trustDirectory()
        defer { try? FileManager.default.removeItem(at: trust) }
        let (manager, trustLogs) = Self.manager(trust)
        let backend = VirtualReaderBackend(readers: [])
        backend.addReader("Slow", latency: .milliseconds(30))
        backend.insert(try Specimens.passport(), into: "Slow")
        let daemon = try await TestDaemon.start(backends: [backend], engine: StandardReadEngine(trust: manager)) {
            $0.trustStorePaths = [trust.path]
            $0.defaultTrust = false
        }
        let before = try await daemon.client.health().trustStore
        #expect(before.certificates == 1)
        #expect(before.lastReload == nil)

        // A read starts with the specimen's CSCA trusted…
        let job = try await daemon.client.createRead(.init(reader: "Slow", access: Specimens.access))
        var state = try await daemon.client.job(job.id).state
        let deadline = ContinuousClock.now + .seconds(20)
        while state == .waiting, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
            state = try await daemon.client.job(job.id).state
        }
        #expect(state == .reading, "the reload must happen while the read is in flight")
        // …then the store is replaced by one without it (another CSCA only: a good store).
        try FileManager.default.removeItem(at: trust.appendingPathComponent("specimen-csca.der"))
        try Data(try Self.otherCSCA()).write(to: trust.appendingPathComponent("other-csca.der"))
        let status = try #require(await daemon.daemon.reload())
        #expect(status.succeeded, "\(status.error ?? "")")
        #expect(try await daemon.client.job(job.id).state == .reading, "the reload ends before the read does")

        // The read in flight finishes with the store it started with.
        let finished = try await daemon.waitFinished(job.id, timeout: .seconds(60))
        #expect(finished.state == .done)
        #expect(finished.result?.status == .valid)
        // The next read uses the new store, which does not trust the specimen.
        let next = try await daemon.client.createRead(.init(reader: "Slow", access: Specimens.access), wait: true)
        #expect(next.result?.status == .invalid)
        #expect(next.result?.checks.passiveAuthentication.reason == "cscaNotFound")

        let after = try await daemon.client.health().trustStore
        #expect(after.certificates == 1)
        #expect(after.countries == ["UU"])
        #expect(after.lastReload?.succeeded == true)
        let metrics = try await Self.metrics(daemon.client)
        #expect(metrics.contains("mrtdd_trust_cscas 1\n"))
        #expect(metrics.contains("mrtdd_trust_last_reload_success 1\n"))
        #expect(metrics.contains("mrtdd_trust_reloads_total{outcome=\"succeeded\"} 1\n"))
        #expect(trustLogs.text.contains("trust store reloaded"))
        try await daemon.stop()
    }

    @Test func brokenStoreIsRefusedAndTheOldOneStays() async throws {
        let trust = try Self.trustDirectory()
        defer { try? FileManager.default.removeItem(at: trust) }
        let (manager, trustLogs) = Self.manager(trust)
        let daemon = try await TestDaemon.start(readers: ["R1"], engine: StandardReadEngine(trust: manager)) {
            $0.trustStorePaths = [trust.path]
            $0.defaultTrust = false
        }
        daemon.backend.insert(try Specimens.passport(), into: "R1")

        // A new CSCA and a master list whose signature is broken: the whole store is refused.
        try Data(try Self.otherCSCA()).write(to: trust.appendingPathComponent("other-csca.der"))
        try Data(try Self.brokenMasterList()).write(to: trust.appendingPathComponent("broken.ml"))
        let refused = try #require(await daemon.daemon.reload())
        #expect(!refused.succeeded)
        #expect(refused.error?.contains("broken.ml") == true)
        #expect(refused.error?.contains("master list not verified") == true)

        let health = try await daemon.client.health().trustStore
        #expect(health.certificates == 1, "the old store (the specimen CSCA alone) stays")
        #expect(health.lastReload?.succeeded == false)
        #expect(health.lastReload?.error == refused.error)
        let metrics = try await Self.metrics(daemon.client)
        #expect(metrics.contains("mrtdd_trust_cscas 1\n"))
        #expect(metrics.contains("mrtdd_trust_last_reload_success 0\n"))
        #expect(metrics.contains("mrtdd_trust_reloads_total{outcome=\"failed\"} 1\n"))
        #expect(trustLogs.text.contains("trust store reload refused, the running store stays"))
        // Reads still verify against the old store.
        let read = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        #expect(read.result?.status == .valid)

        // A path that disappeared is refused too; fixing the store makes the next reload succeed.
        try FileManager.default.removeItem(at: trust.appendingPathComponent("broken.ml"))
        let fixed = try #require(await daemon.daemon.reload())
        #expect(fixed.succeeded, "\(fixed.error ?? "")")
        #expect(try await daemon.client.health().trustStore.certificates == 2)
        try FileManager.default.removeItem(at: trust)
        let gone = try #require(await daemon.daemon.reload())
        #expect(!gone.succeeded)
        #expect(gone.error?.contains("no such file or directory") == true)
        #expect(try await daemon.client.health().trustStore.certificates == 2)
        try await daemon.stop()
    }

    @Test func aFixedStoreIsNotReloaded() async throws {
        let daemon = try await TestDaemon.start()
        let status = try #require(await daemon.daemon.reload())
        #expect(!status.succeeded)
        #expect(try await daemon.client.health().trustStore.lastReload?.succeeded == false)
        try await daemon.stop()
    }

    @Test func trustGaugesDescribeCRLsAndExpiry() throws {
        var summary = TrustStoreSummary(paths: ["x"], certificates: 3, crls: 2)
        summary.expiringCSCAs = 1
        summary.rejectedCRLs = 1
        summary.crlsPastNextUpdate = 0
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        summary.nextCRLUpdate = ISOTime.string(now.addingTimeInterval(3600))
        let text = DaemonMetrics.renderTrust(summary, reloads: ["failed": 2], now: now)
        #expect(text.contains("mrtdd_trust_cscas 3\n"))
        #expect(text.contains("mrtdd_trust_cscas_expiring 1\n"))
        #expect(text.contains("mrtdd_trust_crls_rejected 1\n"))
        #expect(text.contains("mrtdd_trust_crl_next_update_seconds 3600.0\n"))
        #expect(text.contains("mrtdd_trust_reloads_total{outcome=\"failed\"} 2\n"))
        #expect(!text.contains("mrtdd_trust_last_reload_success"), "no reload yet: no outcome gauge")
    }

    @Test func defaultTrustSettings() throws {
        var configuration = DaemonConfiguration()
        try configuration.apply(file: "default-trust = no\ntrust-store = /tmp/a\n")
        #expect(!configuration.defaultTrust)
        #expect(configuration.effectiveTrustPaths() == ["/tmp/a"])
        try configuration.apply(file: "default-trust = yes\ndefault-trust-path = /opt/lists\n")
        #expect(configuration.effectiveTrustPaths().first == "/opt/lists")
        #expect(throws: ConfigurationError.invalidValue("default-trust", "maybe")) { try configuration.set("default-trust", "maybe") }
        // The shipped configuration file keeps the default trust on.
        let shipped = URL(fileURLWithPath: DefaultTrustPath.repository).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("systemd/mrtdd.conf")
        var installed = DaemonConfiguration()
        try installed.apply(file: try String(contentsOf: shipped, encoding: .utf8))
        #expect(installed.defaultTrust)
        #expect(installed.trustStorePaths == ["/etc/mrtdd/trust"])
    }
}
