import Foundation
import Logging
import MRTDClient
import MRTDCore
import MRTDCrypto
import MRTDPlatform
import MRTDSimulation
import MRTDTesting
import MRTDVerification
import Testing
@testable import MRTDDaemon

/// Round four of the attacker's view (docs/trust-update.md, docs/security.md): trust updates that
/// cannot be forged, a scanner that floods, and the small leaks of the new surfaces. Each test acts
/// as the attacker does: a real HTTP server on loopback as the "publisher", a pty as the scanner,
/// a real mrtdctl process whose argv another reader of /proc could see.
@Suite(.serialized) struct SecurityRoundFourTests {
    typealias Update = TrustUpdateTests

    /// The attacker's CSCA named as Germany's (C=DE, CN=csca-germany), and the list it signs: the
    /// forged CSCA and one more the attacker holds, signed by a master list signer under the forged CSCA.
    static func forgedList(signingTime: Date = Date(timeIntervalSinceNow: -86_400)) throws -> (list: [UInt8], csca: [UInt8], extra: [UInt8]) {
        let forger = try FixturePKI.make(.ecP256, country: "DE", cscaCommonName: "csca-germany", keySet: 7)
        let attacker = try FixturePKI.make(.ecP256, country: "UT", cscaCommonName: "Attacker CSCA", keySet: 8)
        let list = try forger.masterList(containing: [forger.csca, attacker.csca]) { $0.signingTime = signingTime }
        return (list, forger.csca, attacker.csca)
    }

    static func pin(_ certificate: [UInt8]) -> String {
        "sha256:" + DigestAlgorithm.sha256.hash(certificate).hex.lowercased()
    }

    static func anchors(_ trust: URL) -> [[UInt8]] {
        TrustStore.load(paths: [trust.path]).anchors.map(\.certificate.derBytes)
    }

    /// High: a master list that carries its own anchor is refused from a file, inside a ZIP and over
    /// plain http (with or without a pin of another CSCA), the trust directory byte for byte as it
    /// was and the attacker's CSCA nowhere in the trust. Before: installed as masterlists/DE.ml, and
    /// a document signed under the attacker's CSCA went from `cscaNotFound` to `valid`.
    @Test func aMasterListAnchoredOnlyInItselfIsNeverInstalled() async throws {
        guard Update.python3Available() else { #expect(Prerequisite.skip("python3 missing: trust update over HTTP not tested")); return }
        let (trust, served) = try Update.trustAndServedDirectories()
        defer { try? FileManager.default.removeItem(at: trust); try? FileManager.default.removeItem(at: served) }
        let (list, forgedCSCA, attackerCSCA) = try Self.forgedList()
        let file = served.appendingPathComponent("DE_ML.ml")
        try Data(list).write(to: file)
        try Update.zip([("DE_ML_2026.ml", list)], to: served.appendingPathComponent("de.zip"))
        let server = try await Update.HTTPServer(serving: served)
        defer { server.stop() }
        let before = try Update.snapshot(trust)
        let uwPin = Self.pin(try Update.listPKI().csca)

        for (sources, extra, code) in [
            ([file.path], [String](), "trustUpdateNotAnchored"),
            ([served.appendingPathComponent("de.zip").path], [], "trustUpdateNotAnchored"),
            ([server.url("DE_ML.ml")], [], "trustUpdateInsecureSource"),
            ([server.url("de.zip")], ["--pin", uwPin], "trustUpdateNotAnchored"),
        ] {
            let (status, output) = try Update.update(trust, sources, extra, pinFixture: false)
            #expect(status == 1, "\(sources): \(output)")
            #expect(output.contains(code), "\(sources): \(output)")
            #expect(try Update.snapshot(trust) == before, "\(sources): nothing installed")
        }
        #expect(!Self.anchors(trust).contains(attackerCSCA), "the attacker's CSCA is not trusted")
        #expect(!Self.anchors(trust).contains(forgedCSCA))

        // The operator names the list's anchor explicitly: then, and only then, it installs.
        let (status, output) = try Update.update(trust, [file.path], ["--pin", Self.pin(forgedCSCA)])
        #expect(status == 0, "\(output)")
        #expect(output.contains("installed masterlists/DE.ml"), "\(output)")
        #expect(Self.anchors(trust).contains(attackerCSCA))
    }

    /// The lists as published (the shipped BSI and RDW lists): with the shipped trust in place they
    /// are current ("already installed", anchored in the trust in use); against an empty trust they
    /// anchor only in themselves and are refused, unless their CSCA is pinned.
    @Test func thePublishedListsInstallOnlyWhenAnchoredOutsideThemselves() throws {
        let shipped = try #require(DefaultTrust.locate(), "the shipped certs/masterlists directory")
        let lists = try FileManager.default.contentsOfDirectory(atPath: shipped).filter { $0.hasSuffix(".ml") }.sorted()
        #expect(lists.count >= 2, "\(lists)")
        for name in lists {
            let path = shipped + "/" + name
            let trust = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-pub-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: trust, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: trust) }
            // With the shipped trust counted: the same list is current.
            let current = try Update.mrtdctl(["trust", "update", "--trust-dir", trust.path, "--no-reload", "--from", path])
            #expect(current.status == 0, "\(name): \(current.output)")
            #expect(current.output.contains("already installed"), "\(name): \(current.output)")
            // Against nothing: anchored only in itself.
            let (refused, output) = try Update.update(trust, [path], pinFixture: false)
            #expect(refused == 1, "\(name): \(output)")
            #expect(output.contains("trustUpdateNotAnchored"), "\(name): \(output)")
            // Pinned by the fingerprint the refusal names: installed.
            let fingerprint = try #require(output.firstRange(of: "sha256:").map { String(output[$0.lowerBound...].prefix(7 + 64)) })
            let (pinned, pinnedOutput) = try Update.update(trust, [path], ["--pin", fingerprint])
            #expect(pinned == 0, "\(name): \(pinnedOutput)")
            #expect(pinnedOutput.contains("installed masterlists/"), "\(name): \(pinnedOutput)")
        }
    }

    /// Medium: a list dated 2049 is refused (it would have replaced its country's list and then
    /// outranked every genuine one); an installed list dated in the future is reported at load.
    @Test func aListDatedInTheFutureIsRefusedAndReportedWhenInstalled() throws {
        let trust = try Update.trustDirectory()
        defer { try? FileManager.default.removeItem(at: trust) }
        let future = try Update.listPKI().masterList(containing: [try Update.listPKI().csca]) {
            $0.signingTime = Date(timeIntervalSince1970: 2_493_072_000)  // 2049-01-01
        }
        let file = trust.deletingLastPathComponent().appendingPathComponent("uw-2049-\(UUID().uuidString.prefix(6)).ml")
        try Data(future).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let before = try Update.snapshot(trust)
        let (status, output) = try Update.update(trust, [file.path], pinFixture: false)
        #expect(status == 1, "\(output)")
        #expect(output.contains("trustUpdateNotYetValid"), "\(output)")
        #expect(try Update.snapshot(trust) == before)
        // Placed by hand: loaded, and reported.
        try Data(future).write(to: trust.appendingPathComponent("masterlists/UW.ml"))
        let report = TrustStore.load(paths: [trust.path]).report
        #expect(report.warnings.contains { $0.hasPrefix("masterListIssuedInTheFuture") }, "\(report.warnings)")
    }

    /// A redirect to plain http is not followed (the first URL pinned, so the scheme alone decides),
    /// and a source's query string (an access token) reaches neither the output nor the state file
    /// that `GET /v1/health` and `/metrics` show.
    @Test func aRedirectToHTTPIsRefusedAndAQueryStringNeverShows() async throws {
        guard Update.python3Available() else { #expect(Prerequisite.skip("python3 missing: trust update over HTTP not tested")); return }
        let (trust, served) = try Update.trustAndServedDirectories()
        defer { try? FileManager.default.removeItem(at: trust); try? FileManager.default.removeItem(at: served) }
        try Update.zip([("UW_ML.ml", try Update.list(daysAgo: 1, containing: []))], to: served.appendingPathComponent("uw.zip"))
        let server = try await Update.HTTPServer(serving: served)
        defer { server.stop() }
        let redirector = try await Self.redirector(to: server.url("uw.zip"))
        defer { redirector.stop() }
        let pin = Self.pin(try Update.listPKI().csca)
        let before = try Update.snapshot(trust)
        let (redirected, redirectedOutput) = try Update.update(trust, [redirector.url("DE_ML.zip")], ["--pin", pin])
        #expect(redirected == 75, "\(redirectedOutput)")
        #expect(redirectedOutput.contains("trustUpdateFetchFailed"), "\(redirectedOutput)")
        #expect(try Update.snapshot(trust) == before, "nothing fetched through the http redirect")

        let secret = "X-Amz-Signature=feedface0123"
        let (status, output) = try Update.update(trust, [server.url("uw.zip") + "?" + secret + "#fragment"], ["--pin", pin])
        #expect(status == 0, "\(output)")
        #expect(!output.contains("feedface0123"), "\(output)")
        let state = try Update.state(trust)
        #expect(state.sources.map(\.source).contains(server.url("uw.zip")), "\(state.sources.map(\.source))")
        #expect(!state.sources.contains { $0.source.contains("feedface0123") || $0.source.contains("fragment") })
    }

    /// An http server on loopback answering every request with a 302 to `target`.
    static func redirector(to target: String) async throws -> Update.HTTPServer {
        try await Update.HTTPServer(python: ["-u", "-c", """
            import http.server, sys
            class Handler(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    self.send_response(302)
                    self.send_header('Location', sys.argv[1])
                    self.end_headers()
            server = http.server.HTTPServer(('127.0.0.1', 0), Handler)
            print('Redirecting on 127.0.0.1 port', server.server_address[1], flush=True)
            server.serve_forever()
            """, target])
    }

    /// Low: a client's `reader` value and any message with a line feed cannot forge a journal
    /// record: one record is one line, control characters escaped; an unknown reader name is
    /// never echoed.
    @Test func noLogRecordCanBeForgedByAMessageOrMetadataValue() async throws {
        let lines = LogCapture()
        let handler = JournalLogHandler(label: "t", level: .debug) { lines.append($0) }
        var logger = Logger(label: "t", factory: { _ in handler })
        logger.logLevel = .debug
        logger.notice("MRZ captured\n<2>mrtdd: forged critical", metadata: ["reader": "R1\n<0>forged emergency\u{1B}[2J"])
        let text = lines.text
        #expect(text.split(separator: "\n").count == 1, "\(text)")
        #expect(!text.contains("\n<2>") && !text.contains("\n<0>") && !text.contains("\u{1B}"), "\(text)")
        #expect(text.contains("\\u{A}<2>mrtdd: forged critical"))

        let daemon = try await TestDaemon.start(readers: ["R1"], logLevel: .debug)
        let forged = "R1\n<2>mrtdd: forged"
        _ = try? await daemon.client.pushMRZ(.init(mrz: SpecimenDocument.erikssonMRZ, reader: forged))
        #expect(!daemon.logs.text.contains("<2>mrtdd: forged"), "\(daemon.logs.text)")
        #expect(!daemon.logs.text.contains("\n<2>"))
        try await daemon.stop()
    }

    /// Medium: `<STX>` as fast as the line takes it, for 3 s, into a DESKO serial source: the line
    /// errors are reported at most once a second per source (with the count of the rest), the
    /// source is backed off (the line fills up), and the daemon keeps answering. Before: one log
    /// line and one `mrz.rejected` per byte, and the memory they took stayed.
    @Test func aScannerThatFloodsJunkIsCoalescedAndBackedOff() async throws {
        let directory = try MRZSourceTests.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await MRZSourceTests.daemon(source: "serial:\(pty.link),framing=desko,reader=R1")
        let chunk = [UInt8](repeating: 0x02, count: 4096)
        var written = 0
        let started = ContinuousClock.now
        while ContinuousClock.now - started < .seconds(3) {
            written += pty.writeWithoutBlocking(chunk)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(written >= 4096, "\(written) bytes of junk")
        let reported = daemon.logs.text.components(separatedBy: "MRZ source: line error").count - 1
        #expect(reported >= 1 && reported <= 4, "\(reported) line errors logged in 3 s")
        #expect(daemon.logs.text.contains("more line errors not reported one by one"), "the rest are counted")
        _ = try await daemon.client.health()  // still answering
        try await daemon.stop()
        pty.unplug()
    }

    /// Low: `--evidence` (and `--face`) into another user's world-writable directory, or through a
    /// link on the way, is refused; into a directory of one's own it is written 0600.
    @Test func anOutputFileIsWrittenOnlyIntoADirectoryOfOnesOwnReachedWithoutLinks() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-out-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: base) }
        let shared = base.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        chmod(shared.path, 0o1777)
        let own = base.appendingPathComponent("own")
        try FileManager.default.createDirectory(at: own, withIntermediateDirectories: true)
        chmod(own.path, 0o700)
        let linked = base.appendingPathComponent("linked")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: own)
        let read = ["read", "--simulate", "--sim-chip", "bac", "--no-default-trust", "--access-file"]
        let access = base.appendingPathComponent("access")
        try Data("mrz-key=L898902C3,740812,120415\n".utf8).write(to: access)
        chmod(access.path, 0o600)
        for (path, refused) in [(shared.appendingPathComponent("bundle.json").path, true),
                                (linked.appendingPathComponent("bundle.json").path, true),
                                (own.appendingPathComponent("bundle.json").path, false)] {
            let (status, output) = try TrustUpdateTests.mrtdctl(read + [access.path, "--evidence", path])
            if refused {
                #expect(status != 0, "\(path): \(output)")
                #expect(output.contains("refusing to write"), "\(path): \(output)")
                #expect(!FileManager.default.fileExists(atPath: path))
            } else {
                #expect(status == 0, "\(path): \(output)")
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                #expect(mode == 0o600)
            }
        }
    }

    /// Low: `mrtdctl verify-evidence` of a tampered bundle that verifies `invalid` cannot paint a
    /// green "Status valid" with escape sequences in a string of the bundle: every printed value
    /// from input is escaped; an unknown value of an enumerated field is refused.
    @Test func aTamperedBundlePrintsNoControlSequences() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-ev-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        chmod(base.path, 0o700)
        defer { try? FileManager.default.removeItem(at: base) }
        let access = base.appendingPathComponent("access")
        try Data("mrz-key=L898902C3,740812,120415\n".utf8).write(to: access)
        chmod(access.path, 0o600)
        let bundle = base.appendingPathComponent("bundle.json")
        let made = try TrustUpdateTests.mrtdctl(["read", "--simulate", "--sim-chip", "bac", "--access-file", access.path, "--trust-test",
                                                 "--evidence", bundle.path])
        #expect(made.status == 0, "\(made.output)")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: bundle)) as? [String: Any])
        json["chipAuthentication"] = ["result": "failed",
                                      "reason": "x)\u{1B}[1A\u{1B}[2K\rStatus       \u{1B}[32mvalid\u{1B}[0m\n"]
        var files = try #require(json["files"] as? [String: String])
        let dg1Text = try #require(files["DG1"])
        var dg1 = try #require(Data(base64Encoded: dg1Text))
        dg1[dg1.count - 1] ^= 0x01
        files["DG1"] = dg1.base64EncodedString()
        json["files"] = files
        let tampered = base.appendingPathComponent("tampered.json")
        try JSONSerialization.data(withJSONObject: json).write(to: tampered)
        let (status, output) = try TrustUpdateTests.mrtdctl(["verify-evidence", tampered.path, "--trust-test"])
        #expect(status == 4, "invalid: \(output)")
        #expect(!output.contains("\u{1B}"), "no escape byte reaches the terminal: \(output)")
        #expect(output.contains("\\u{1B}[32mvalid"), "\(output)")
        // An enumerated field with a value of its own is refused at decoding.
        json["activeAuthentication"] = ["challenge": "0011223344556677", "challengeSource": "\u{1B}[32mcaller", "signature": "00"]
        try JSONSerialization.data(withJSONObject: json).write(to: tampered)
        let refused = try TrustUpdateTests.mrtdctl(["verify-evidence", tampered.path, "--trust-test"])
        #expect(refused.status == 1 && refused.output.contains("challengeSource must be caller or reader"), "\(refused.output)")
    }

    /// Low: a key given on the command line is overwritten in the process's own argv at start, so
    /// another local user reading /proc/PID/cmdline while the read runs sees no key; a one-line
    /// warning says so.
    @Test func aKeyOnTheCommandLineIsGoneFromProcWhileTheReadRuns() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcessTests.executable("mrtdctl"))
        // slow-read-1500ms keeps the read going long enough to look.
        process.arguments = ["read", "--simulate", "--sim-chip", "bac", "--sim-quirk", "slow-read-1500ms", "--data-groups", "1",
                             "--mrz-key", "L898902C3,740812,120415", "--can=123456"]
        let pipe = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = pipe
        try process.run()
        let pid = process.processIdentifier
        try await Task.sleep(for: .seconds(2))
        let cmdline = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
        let shown = String(decoding: cmdline.map { $0 == 0 ? 0x20 : $0 }, as: UTF8.self)
        #expect(!shown.contains("L898902C3") && !shown.contains("740812") && !shown.contains("123456"), "\(shown)")
        #expect(shown.contains("--mrz-key xxxxxxxxxxxxxxxxxxxxxxx"), "\(shown)")
        process.terminate()
        process.waitUntilExit()
        let stderr = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("warning: --can, --mrz-key on the command line"), "\(stderr)")
    }
}

/// ``TerminalText``: what input may hold that must not reach a terminal or a log raw.
@Suite struct TerminalTextTests {
    @Test func controlsC1AndBidiOverridesAreEscapedAndTheRestPasses() {
        #expect(TerminalText.escaped("Status \u{1B}[32mvalid\u{1B}[0m") == "Status \\u{1B}[32mvalid\\u{1B}[0m")
        #expect(TerminalText.escaped("a\r\nb\tc\u{0}") == "a\\u{D}\\u{A}b\\u{9}c\\u{0}")
        #expect(TerminalText.escaped("\u{9B}31m") == "\\u{9B}31m", "C1 CSI")
        #expect(TerminalText.escaped("abc\u{202E}fdp.exe") == "abc\\u{202E}fdp.exe", "right-to-left override")
        #expect(TerminalText.escaped("\u{2066}x\u{2069}\u{061C}") == "\\u{2066}x\\u{2069}\\u{61C}")
        #expect(TerminalText.escaped("ERIKSSON ÅSA 李 <<") == "ERIKSSON ÅSA 李 <<", "letters of every script pass")
    }
}
