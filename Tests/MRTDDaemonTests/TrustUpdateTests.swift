import Foundation
import Logging
import MRTDCore
import MRTDCrypto
import MRTDPlatform
import MRTDSimulation
import MRTDClient
import MRTDTesting
import MRTDVerification
import Testing
@testable import MRTDDaemon
import HTTPTypes

/// `mrtdctl trust update` (docs/trust-update.md) against a real HTTP server started by the test
/// (python3 -m http.server on 127.0.0.1), serving real ZIPs (python's zipfile) and LDIF built from
/// the TEST-ONLY fixture PKI: a newer list is installed and the daemon reloads without dropping a
/// read in flight; an older list, a bad signature, a truncated ZIP and a non-list are refused with
/// the trust directory byte for byte unchanged; an ICAO LDIF in either attribute spelling is
/// accepted; without the network nothing changes (exit 75).
@Suite(.serialized) struct TrustUpdateTests {
    /// The fixture master list signer (country UW); its CSCA travels in every list, as in the BSI's.
    static func listPKI() throws -> FixturePKI { sharedListPKI }

    /// One PKI per test process: its CSCA certificate (ECDSA-signed, so different each time it is
    /// made) is the same in every list and in the pin the tests give.
    private static let sharedListPKI = try! FixturePKI.make(.ecP256, country: "UW", cscaCommonName: "Update CSCA", keySet: 3)

    static func list(daysAgo: Double, containing extra: [[UInt8]], corrupt: Bool = false) throws -> [UInt8] {
        let pki = try listPKI()
        return try pki.masterList(containing: [pki.csca] + extra) {
            $0.signingTime = Date(timeIntervalSinceNow: -daysAgo * 86_400)
            if corrupt { $0.signature = .corrupted }
        }
    }

    /// A trust directory with `masterlists/UW.ml` issued ten days ago, trusting the specimen's CSCA.
    static func trustDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-update-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("masterlists"), withIntermediateDirectories: true)
        try Data(try list(daysAgo: 10, containing: [try TestPKI.csca().derBytes]))
            .write(to: directory.appendingPathComponent("masterlists/UW.ml"))
        return directory
    }

    /// ``trustDirectory()`` and, beside it, an empty directory for the HTTP server to serve.
    static func trustAndServedDirectories() throws -> (trust: URL, served: URL) {
        let trust = try trustDirectory()
        let served = trust.deletingLastPathComponent().appendingPathComponent("served-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        return (trust, served)
    }

    /// Every file under `directory` but the update's state file, by relative path.
    static func snapshot(_ directory: URL) throws -> [String: Data] {
        var out: [String: Data] = [:]
        let base = directory.resolvingSymlinksInPath().path
        let enumerator = try #require(FileManager.default.enumerator(atPath: base))
        while let relative = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            let full = base + "/" + relative
            guard FileManager.default.fileExists(atPath: full, isDirectory: &isDirectory), !isDirectory.boolValue,
                  relative != TrustUpdateState.fileName else { continue }
            out[relative] = try Data(contentsOf: URL(fileURLWithPath: full))
        }
        return out
    }

    /// `python3 -m http.server` on 127.0.0.1 and a free port, serving `directory`.
    final class HTTPServer: @unchecked Sendable {  // set once in init, then read-only
        let process: Process
        let port: Int

        /// `tls`: (certificate, key) PEM files; the server then speaks https.
        convenience init(serving directory: URL, tls: (certificate: String, key: String)? = nil) async throws {
            let arguments: [String]
            if let tls {
                arguments = ["-u", "-c", """
                    import functools, http.server, ssl, sys
                    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
                    server = http.server.HTTPServer(('127.0.0.1', 0), handler)
                    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                    context.load_cert_chain(sys.argv[2], sys.argv[3])
                    server.socket = context.wrap_socket(server.socket, server_side=True)
                    print('Serving HTTPS on 127.0.0.1 port', server.server_address[1], flush=True)
                    server.serve_forever()
                    """, directory.path, tls.certificate, tls.key]
            } else {
                arguments = ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", directory.path]
            }
            try await self.init(python: arguments)
        }

        /// A python3 server on 127.0.0.1 that announces its port as `... port N` on its first line.
        init(python arguments: [String]) async throws {
            let log = FileManager.default.temporaryDirectory.appendingPathComponent("http-\(UUID().uuidString.prefix(8)).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3"] + arguments
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
            self.process = process
            port = try await eventually("http.server announces its port", within: .seconds(20)) {
                let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
                guard let range = text.range(of: " port ") else { return nil }
                return Int(text[range.upperBound...].prefix { $0.isNumber })
            }
            try? FileManager.default.removeItem(at: log)
        }

        func url(_ name: String) -> String { "http://127.0.0.1:\(port)/\(name)" }
        func httpsURL(_ name: String) -> String { "https://127.0.0.1:\(port)/\(name)" }

        /// SIGKILL: the test process blocks SIGTERM in its threads (the daemons' signal handling)
        /// and children started by Process inherit that mask, so a SIGTERM would stay pending.
        func stop() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    static func python3Available() -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "--version"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    /// A real ZIP (deflated) of `files`, made by python's zipfile.
    static func zip(_ files: [(name: String, bytes: [UInt8])], to path: URL) throws {
        let staging = path.deletingLastPathComponent().appendingPathComponent(".zip-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: staging) }
        for file in files { try Data(file.bytes).write(to: staging.appendingPathComponent(file.name)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sys, zipfile, os
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                z.writestr('README.txt', 'master lists\\n')
                for name in sys.argv[3:]:
                    z.write(os.path.join(sys.argv[2], name), arcname=name)
            """, path.path, staging.path] + files.map(\.name)
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    /// An ICAO PKD style LDIF holding `list` under `attribute`, base64 folded at 76 columns (RFC 2849).
    static func ldif(_ list: [UInt8], attribute: String) -> String {
        let base64 = Data(list).base64EncodedString()
        var lines = ["version: 1", "", "dn: cn=UW ML,o=ml,c=UW,dc=data,dc=download,dc=pkd,dc=icao,dc=int",
                     "objectClass: top", "objectClass: CscaMasterList", "cn: UW ML"]
        var first = "\(attribute):: "
        var rest = Substring(base64)
        let head = rest.prefix(76 - first.count)
        first += head
        rest = rest.dropFirst(head.count)
        lines.append(first)
        while !rest.isEmpty {
            lines.append(" " + rest.prefix(75))
            rest = rest.dropFirst(75)
        }
        return lines.joined(separator: "\n") + "\n\n"
    }

    static func mrtdctl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcessTests.executable("mrtdctl"))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `mrtdctl trust update` of `sources` into `trust`; unless `extra` pins CSCAs itself, the
    /// fixture list's CSCA is pinned (the sources are served over plain http on loopback, which a
    /// pin makes acceptable: docs/trust-update.md).
    static func update(_ trust: URL, _ sources: [String], _ extra: [String] = [], pinFixture: Bool = true) throws -> (status: Int32, output: String) {
        let pins = extra.contains("--pin") || !pinFixture ? [] : ["--pin", "sha256:" + DigestAlgorithm.sha256.hash(try listPKI().csca).hex]
        return try mrtdctl(["trust", "update", "--trust-dir", trust.path, "--no-default-trust", "--no-reload", "--timeout", "20"]
                           + pins + extra + sources.flatMap { ["--from", $0] })
    }

    static func state(_ trust: URL) throws -> TrustUpdateState {
        try JSONDecoder().decode(TrustUpdateState.self, from: Data(contentsOf: trust.appendingPathComponent(TrustUpdateState.fileName)))
    }

    @Test func newerListFromAZipIsInstalledAndTheDaemonReloadsWithoutDroppingAReadInFlight() async throws {
        guard Self.python3Available() else { #expect(Prerequisite.skip("python3 missing: trust update over HTTP not tested")); return }
        let (trust, served) = try Self.trustAndServedDirectories()
        defer { try? FileManager.default.removeItem(at: trust); try? FileManager.default.removeItem(at: served) }
        // The newer list (a day old) no longer holds the specimen's CSCA, but another one.
        try Self.zip([("UW_ML_2026.ml", try Self.list(daysAgo: 1, containing: [try TrustReloadTests.otherCSCA()]))],
                     to: served.appendingPathComponent("uw.zip"))
        let server = try await HTTPServer(serving: served)
        defer { server.stop() }

        let (manager, _) = TrustReloadTests.manager(trust)
        let backend = VirtualReaderBackend(readers: [])
        backend.addReader("Slow", latency: .milliseconds(80))
        backend.insert(try Specimens.passport(), into: "Slow")
        let daemon = try await TestDaemon.start(backends: [backend], engine: StandardReadEngine(trust: manager)) {
            $0.trustStorePaths = [trust.path]
            $0.defaultTrust = false
        }
        #expect(try await daemon.client.health().trustStore.updateSources == nil)
        let job = try await daemon.client.createRead(.init(reader: "Slow", access: Specimens.access))
        try await waitUntil("the read is in flight", within: .seconds(20)) { try await daemon.client.job(job.id).state == .reading }

        let (status, output) = try Self.update(trust, [server.url("uw.zip")])
        #expect(status == 0, "\(output)")
        #expect(output.contains("installed masterlists/UW.ml"), "\(output)")
        let installed = trust.appendingPathComponent("masterlists/UW.ml")
        let attributes = try FileManager.default.attributesOfItem(atPath: installed.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o644)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: trust.appendingPathComponent("masterlists").path)
        #expect(leftovers == ["UW.ml"], "no temporary file stays behind")

        let reload = try #require(await daemon.daemon.reload())
        #expect(reload.succeeded, "\(reload.error ?? "")")
        #expect(try await daemon.client.job(job.id).state == .reading, "the reload ends before the read does")
        let finished = try await daemon.waitFinished(job.id, timeout: .seconds(60))
        #expect(finished.state == .done)
        #expect(finished.result?.status == .valid, "the read in flight keeps the store it started with")
        let next = try await daemon.client.createRead(.init(reader: "Slow", access: Specimens.access), wait: true)
        #expect(next.result?.checks.passiveAuthentication.reason == "cscaNotFound", "the new list is the one in use")

        let health = try await daemon.client.health().trustStore
        let source = try #require(health.updateSources?.first)
        #expect(source.source == server.url("uw.zip"))
        #expect(source.outcome == .installed)
        #expect(source.ageDays == 1)
        #expect(source.error == nil)
        let metrics = try await TrustReloadTests.metrics(daemon.client)
        #expect(metrics.contains("mrtdd_trust_source_last_success{source=\"\(server.url("uw.zip"))\",outcome=\"installed\"} 1\n"))
        #expect(metrics.contains("mrtdd_trust_source_age_seconds{source=\"\(server.url("uw.zip"))\"}"))

        // The same source again: already current, nothing written.
        let before = try Self.snapshot(trust)
        let (again, againOutput) = try Self.update(trust, [server.url("uw.zip")])
        #expect(again == 0, "\(againOutput)")
        #expect(againOutput.contains("already installed masterlists/UW.ml"))
        #expect(try Self.snapshot(trust) == before)
        #expect(try Self.state(trust).sources.first?.outcome == .unchanged)
        try await daemon.stop()
    }

    /// Each bad source is refused with its own code, and nothing of it reaches the trust directory.
    @Test func badSourcesAreRefusedAndNothingIsInstalled() async throws {
        guard Self.python3Available() else { #expect(Prerequisite.skip("python3 missing: trust update over HTTP not tested")); return }
        let (trust, served) = try Self.trustAndServedDirectories()
        defer { try? FileManager.default.removeItem(at: trust); try? FileManager.default.removeItem(at: served) }
        let other = try TrustReloadTests.otherCSCA()
        try Data(try Self.list(daysAgo: 20, containing: [other])).write(to: served.appendingPathComponent("older.ml"))
        try Data(try Self.list(daysAgo: 1, containing: [other], corrupt: true)).write(to: served.appendingPathComponent("badsig.ml"))
        try Self.zip([("UW.ml", try Self.list(daysAgo: 1, containing: [other]))], to: served.appendingPathComponent("good.zip"))
        let zip = try Data(contentsOf: served.appendingPathComponent("good.zip"))
        try zip.prefix(zip.count / 2).write(to: served.appendingPathComponent("truncated.zip"))
        try Data("<html>maintenance</html>\n".utf8).write(to: served.appendingPathComponent("page.html"))
        let server = try await HTTPServer(serving: served)
        defer { server.stop() }
        let before = try Self.snapshot(trust)

        let cases: [(name: String, code: ErrorCode, detail: String)] = [
            ("older.ml", .trustUpdateOlderThanInstalled, "older than the installed one"),
            ("badsig.ml", .trustUpdateNotVerified, "sodSignatureInvalid"),
            ("truncated.zip", .trustUpdateArchiveInvalid, "truncated ZIP"),
            ("page.html", .trustUpdateUnrecognized, "not a ZIP, LDIF, master list"),
            ("missing.zip", .trustUpdateFetchFailed, "HTTP 404"),
        ]
        for test in cases {
            let (status, output) = try Self.update(trust, [server.url(test.name)])
            #expect(status == (test.code == .trustUpdateFetchFailed ? 75 : 1), "\(test.name): \(output)")
            #expect(output.contains("\(test.code.rawValue):"), "\(test.name): \(output)")
            #expect(output.contains(test.detail), "\(test.name): \(output)")
            #expect(output.contains("nothing installed from it"), "\(test.name): \(output)")
            #expect(try Self.snapshot(trust) == before, "\(test.name): the trust directory is unchanged")
            let record = try #require(try Self.state(trust).sources.first { $0.source == server.url(test.name) })
            #expect(record.outcome == (test.code == .trustUpdateFetchFailed ? .unavailable : .refused))
            #expect(record.error?.hasPrefix(test.code.rawValue) == true)
        }
        // A good source beside a bad one: the good one is installed, the bad one is not, exit 1.
        let (status, output) = try Self.update(trust, [server.url("badsig.ml"), server.url("good.zip")])
        #expect(status == 1, "\(output)")
        #expect(output.contains("installed masterlists/UW.ml"))
        #expect(try Self.snapshot(trust)["masterlists/UW.ml"] != before["masterlists/UW.ml"])
    }

    @Test(arguments: ["pkdMasterListContent;binary", "CscaMasterListData;binary"])
    func icaoLDIFInEitherSpellingIsInstalled(attribute: String) async throws {
        guard Self.python3Available() else { #expect(Prerequisite.skip("python3 missing: trust update over HTTP not tested")); return }
        let (trust, served) = try Self.trustAndServedDirectories()
        defer { try? FileManager.default.removeItem(at: trust); try? FileManager.default.removeItem(at: served) }
        let newer = try Self.list(daysAgo: 2, containing: [try TrustReloadTests.otherCSCA()])
        try Data(Self.ldif(newer, attribute: attribute).utf8).write(to: served.appendingPathComponent("icaopkd-002-ml.ldif"))
        let server = try await HTTPServer(serving: served)
        defer { server.stop() }

        let (status, output) = try Self.update(trust, [server.url("icaopkd-002-ml.ldif")])
        #expect(status == 0, "\(output)")
        #expect(output.contains("installed masterlists/UW.ml"), "\(output)")
        #expect(try Data(contentsOf: trust.appendingPathComponent("masterlists/UW.ml")) == Data(newer))
        // What was installed loads as the daemon loads it.
        let store = TrustStore.load(paths: [trust.path])
        #expect(store.report.errors.isEmpty, "\(store.report.errors)")
        // The newer list's CSCA (country UU) is trusted; the specimen's, which it dropped, is not.
        #expect(store.anchors.contains { $0.certificate.subject.country == "UU" })
        #expect(try !store.anchors.contains { $0.certificate.derBytes == (try TestPKI.csca().derBytes) })
    }

    @Test func withoutTheNetworkNothingChanges() async throws {
        let trust = try Self.trustDirectory()
        defer { try? FileManager.default.removeItem(at: trust) }
        let before = try Self.snapshot(trust)
        // A port nothing listens on: bound, then closed.
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) } }
        let port = Int(UInt16(bigEndian: address.sin_port))
        close(socket)

        let (status, output) = try Self.update(trust, ["http://127.0.0.1:\(port)/DE_ML.zip"])
        #expect(status == 75, "\(output)")
        #expect(output.contains("could not be fetched"), "\(output)")
        #expect(output.contains("trustUpdateFetchFailed"), "\(output)")
        #expect(try Self.snapshot(trust) == before)
    }

    /// The real path end to end: an `mrtdd` process, `trust update --daemon-pid` (SIGHUP), the daemon
    /// reloads, and its health and metrics show the source (installed, then refused); a pid that is
    /// not mrtdd's is never signalled.
    @Test func daemonPIDReloadsARunningMrtddWhoseHealthShowsTheSources() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let trust = try Self.trustDirectory()
        defer { try? FileManager.default.removeItem(at: trust) }
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let config = directory.appendingPathComponent("mrtdd.conf")
        try "backends =\nsocket-group =\ndefault-trust = no\ntrust-store = \(trust.path)\n".write(to: config, atomically: true, encoding: .utf8)
        // posix_spawn with an empty signal mask (ChildProcess): a child of Process inherits this test
        // process's blocked SIGHUP and would never see the reload signal.
        let daemonPID = try ChildProcess.spawn(try DaemonProcessTests.executable("mrtdd"), arguments: ["--config", config.path, "--socket", socket],
                                               environment: ProcessInfo.processInfo.environment)
        defer {
            kill(daemonPID, SIGKILL)
            waitpid(daemonPID, nil, 0)
        }
        let client = DaemonClient(socketPath: socket)
        try await DaemonProcessTests.waitForSocket(socket, client: client)
        #expect(try await client.health().trustStore.updateSources == nil)

        let newer = directory.appendingPathComponent("UW_ML_new.ml")
        try Data(try Self.list(daysAgo: 3, containing: [try TrustReloadTests.otherCSCA()])).write(to: newer)
        let pid = String(daemonPID)
        let (status, output) = try Self.mrtdctl(["trust", "update", "--from", newer.path, "--trust-dir", trust.path, "--no-default-trust", "--daemon-pid", pid])
        #expect(status == 0, "\(output)")
        #expect(output.contains("mrtdd (pid \(pid)) asked to reload (SIGHUP)"), "\(output)")
        let installed = try await DaemonSignalTests.waitForReload(client, after: nil)
        #expect(installed.succeeded, "\(installed.error ?? "")")
        let health = try await client.health().trustStore
        let source = try #require(health.updateSources?.first)
        #expect(source.source == newer.path && source.outcome == .installed && source.ageDays == 3)
        #expect(health.countries?.contains("UU") == true)

        // A refused source changes no trust, and the reload after it shows the refusal.
        let older = directory.appendingPathComponent("UW_ML_old.ml")
        try Data(try Self.list(daysAgo: 30, containing: [])).write(to: older)
        let (refusedStatus, refusedOutput) = try Self.mrtdctl(["trust", "update", "--from", older.path, "--trust-dir", trust.path, "--no-default-trust", "--daemon-pid", pid])
        #expect(refusedStatus == 1, "\(refusedOutput)")
        // (Reload times have one-second resolution: wait for what the reload shows, not for a new time.)
        let after = try await eventually("the reload after the refused source") { () -> TrustStoreSummary? in
            let summary = try await client.health().trustStore
            return summary.updateSources?.contains { $0.source == older.path } == true ? summary : nil
        }
        #expect(after.lastReload?.succeeded == true)
        #expect(after.updateSources?.first { $0.source == older.path }?.outcome == .refused)
        #expect(after.updateSources?.first { $0.source == older.path }?.error?.hasPrefix("trustUpdateOlderThanInstalled") == true)
        #expect(after.countries?.contains("UU") == true, "the refused list changed nothing")
        let metrics = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
        #expect(metrics.contains("mrtdd_trust_source_last_success{source=\"\(older.path)\",outcome=\"refused\"} 0\n"), "\(metrics)")
        #expect(metrics.contains("mrtdd_trust_source_last_success{source=\"\(newer.path)\",outcome=\"installed\"} 1\n"))

        // Not mrtdd: this test process is never signalled.
        let (_, notMrtdd) = try Self.mrtdctl(["trust", "update", "--from", newer.path, "--trust-dir", trust.path, "--no-default-trust",
                                               "--daemon-pid", String(getpid())])
        #expect(notMrtdd.contains("is not mrtdd"), "\(notMrtdd)")
        #expect(kill(daemonPID, 0) == 0, "mrtdd still runs")
    }

    /// No link is followed: a `masterlists` that is a symbolic link (to a directory the attacker
    /// chose) refuses the install, and nothing lands behind the link.
    @Test func aLinkedSubdirectoryIsNotFollowed() throws {
        let trust = try Self.trustDirectory()
        let elsewhere = trust.deletingLastPathComponent().appendingPathComponent("elsewhere-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: trust); try? FileManager.default.removeItem(at: elsewhere) }
        try FileManager.default.removeItem(at: trust.appendingPathComponent("masterlists"))
        try FileManager.default.createSymbolicLink(at: trust.appendingPathComponent("masterlists"), withDestinationURL: elsewhere)
        let newer = elsewhere.deletingLastPathComponent().appendingPathComponent("UW-\(UUID().uuidString.prefix(6)).ml")
        defer { try? FileManager.default.removeItem(at: newer) }
        try Data(try Self.list(daysAgo: 1, containing: [])).write(to: newer)

        let (status, output) = try Self.update(trust, [newer.path])
        #expect(status == 1, "\(output)")
        #expect(output.contains("trustUpdateInstallFailed:"), "\(output)")
        #expect(output.contains("not a directory (or a symbolic link)"), "\(output)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty, "nothing written through the link")
    }

    /// The fetch's bounds: a body over --max-size is abandoned (trustUpdateTooLarge), a server that
    /// never answers is given up after --timeout, an https server whose certificate does not verify
    /// is refused (libcurl's verification stays on): nothing installed in each case.
    @Test func fetchesAreBoundedAndTLSIsVerified() async throws {
        guard Self.python3Available() else { #expect(Prerequisite.skip("python3 missing: trust update over HTTP not tested")); return }
        let (trust, served) = try Self.trustAndServedDirectories()
        defer { try? FileManager.default.removeItem(at: trust); try? FileManager.default.removeItem(at: served) }
        try Self.zip([("UW.ml", try Self.list(daysAgo: 1, containing: [try TrustReloadTests.otherCSCA()]))], to: served.appendingPathComponent("good.zip"))
        let before = try Self.snapshot(trust)

        let server = try await HTTPServer(serving: served)
        defer { server.stop() }
        let (large, largeOutput) = try Self.update(trust, [server.url("good.zip")], ["--max-size", "512"])
        #expect(large == 1, "\(largeOutput)")
        #expect(largeOutput.contains("trustUpdateTooLarge:"), "\(largeOutput)")

        // Listening, never accepting: the connection is made (the backlog) and no answer comes.
        let silent = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(silent) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(silent, $0, length) } }
        _ = listen(silent, 4)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(silent, $0, &length) } }
        let start = ContinuousClock.now
        let (slow, slowOutput) = try Self.update(trust, ["http://127.0.0.1:\(UInt16(bigEndian: address.sin_port))/DE_ML.zip"], ["--timeout", "2"])
        #expect(slow == 75, "\(slowOutput)")
        #expect(slowOutput.contains("trustUpdateFetchFailed:"), "\(slowOutput)")
        #expect(ContinuousClock.now - start < .seconds(15), "the timeout bounds the wait")

        // https with a certificate no CA signed.
        let key = served.deletingLastPathComponent().appendingPathComponent("tls-\(UUID().uuidString.prefix(6)).key").path
        let certificate = key.replacingOccurrences(of: ".key", with: ".pem")
        defer { try? FileManager.default.removeItem(atPath: key); try? FileManager.default.removeItem(atPath: certificate) }
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-days", "1",
                             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", certificate]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        try #require(openssl.terminationStatus == 0, "openssl req")
        let tlsServer = try await HTTPServer(serving: served, tls: (certificate, key))
        defer { tlsServer.stop() }
        let (untrusted, untrustedOutput) = try Self.update(trust, [tlsServer.httpsURL("good.zip")])
        #expect(untrusted == 75, "\(untrustedOutput)")
        #expect(untrustedOutput.contains("trustUpdateFetchFailed:"), "\(untrustedOutput)")
        #expect(untrustedOutput.lowercased().contains("certificate"), "\(untrustedOutput)")
        #expect(try Self.snapshot(trust) == before)
    }
}
