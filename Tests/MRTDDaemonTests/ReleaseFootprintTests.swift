import Foundation
import MRTDClient
import MRTDCore
import Testing

/// Issue 14, "small footprint", on the release binaries `scripts/package` builds (`.build-release`,
/// or `MRTD_RELEASE_BIN`): statically linked as shipped, they carry no ICU and no full Foundation
/// (product code imports FoundationEssentials only; scripts/check-deps guards the sources), the
/// stripped `mrtdd` and `mrtdctl` stay under 50 MB, they export no symbols, `.text` follows the link
/// order, and an idle `mrtdd` (`--simulate`, and with the shipped master lists) stays under the
/// resident-memory bounds below. Without a release build the suite says so and checks nothing;
/// scripts/test runs it again after scripts/package with MRTD_REQUIRE_RELEASE_BIN=1, where a missing
/// binary fails.
@Suite(.serialized) struct ReleaseFootprintTests {
    /// Strings only a binary with Foundation's ICU layer has (checked against a static
    /// `import Foundation` program: 19 and 7 occurrences after strip).
    static let icuMarkers = ["FoundationInternationalization", "icudt"]
    static let strippedLimit = 50_000_000
    /// Idle VmRSS bound, the issue's target (20 MB; issue 14 measured 36-38 MB before, 21-23 MB before
    /// the read-only mappings were released, 12-15 MB now; docs/performance.md), and the daemon's own
    /// memory.
    static let idleRSSLimitKiB = 20 * 1000 * 1000 / 1024
    static let idleRssAnonLimitKiB = 8 * 1024

    /// The repository this file is in.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    static func release(_ binary: String) -> String? {
        let directory = ProcessInfo.processInfo.environment["MRTD_RELEASE_BIN"]
            ?? repository.appendingPathComponent(".build-release/release").path
        let path = directory + "/" + binary
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        if ProcessInfo.processInfo.environment["MRTD_REQUIRE_RELEASE_BIN"] != nil {
            Issue.record("no release \(binary) at \(path): run scripts/package first (MRTD_REQUIRE_RELEASE_BIN is set)")
        } else {
            print("SKIPPED: no release \(binary) at \(path) (scripts/package builds it; scripts/test checks its footprint after the package step)")
        }
        return nil
    }

    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    @Test(arguments: ["mrtdd", "mrtdctl"])
    func releaseBinaryHasNoICUAndStripsUnder50MB(binary: String) throws {
        guard let path = Self.release(binary) else { return }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data.count > 1_000_000, "\(path) is not a real build")
        for marker in Self.icuMarkers {
            #expect(data.range(of: Data(marker.utf8)) == nil, "release \(binary) contains \(marker): full Foundation (ICU) is linked")
        }
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let stripped = directory.appendingPathComponent(binary).path
        // As scripts/package strips what it ships.
        #expect(try Self.run("/usr/bin/strip", ["--strip-unneeded", "--remove-section=.comment", "-o", stripped, path]) == 0)
        let size = try FileManager.default.attributesOfItem(atPath: stripped)[.size] as? Int ?? .max
        print("footprint: release \(binary) \(data.count) bytes as linked, \(size) stripped")
        #expect(size < Self.strippedLimit, "stripped release \(binary) is \(size) bytes")
    }

    /// scripts/env.sh's release flags took effect: lld packed the relative relocations (DT_RELR)
    /// instead of leaving ~1.7 MB of `.rela.dyn` for every start to apply.
    @Test(arguments: ["mrtdd", "mrtdctl"])
    func releaseBinaryPacksItsRelocations(binary: String) throws {
        guard let path = Self.release(binary) else { return }
        let text = try Self.output(of: "/usr/bin/readelf", ["--dynamic", "--wide", path])
        #expect(text.contains("(RELR)"), "release \(binary) has no DT_RELR: built without MRTD_RELEASE_FLAGS?")
        let relaSize = text.split(separator: "\n").first { $0.contains("(RELASZ)") }
            .flatMap { $0.split(separator: " ").dropLast().last }.flatMap { Int($0) } ?? 0
        #expect(relaSize < 256 * 1024, "release \(binary): \(relaSize) bytes of RELA relocations left")
    }

    /// The release link exported nothing (scripts/link/local-symbols.map): the toolchain's
    /// -export-dynamic had put 29,000 names in `.dynsym`, which every dynamic symbol lookup at start
    /// searched.
    @Test(arguments: ["mrtdd", "mrtdctl"])
    func releaseBinaryExportsNoSymbols(binary: String) throws {
        guard let path = Self.release(binary) else { return }
        let exported = try Self.output(of: "/usr/bin/readelf", ["--dyn-syms", "--wide", path]).split(separator: "\n")
            .filter { line in
                let fields = line.split(separator: " ")
                return fields.count >= 8 && fields[0].hasSuffix(":") && fields[6] != "UND"
            }
        print("footprint: release \(binary) exports \(exported.count) dynamic symbols")
        #expect(exported.count < 100, "release \(binary) exports \(exported.count) symbols: built without MRTD_RELEASE_FLAGS?")
    }

    /// What `executable` writes on standard output.
    static func output(of executable: String, _ arguments: [String]) throws -> String {
        let output = Pipe()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// The release link laid `.text` out by scripts/link/mrtdd.order (scripts/env.sh): most of the
    /// file's functions are still in mrtdd (below 80% it is stale: run scripts/link-order), and most
    /// of the first thousand of them, what an idle daemon runs, sit in the first fifth of `.text`
    /// instead of spread over all of it.
    @Test func releaseTextFollowsTheLinkOrder() throws {
        guard let path = Self.release("mrtdd") else { return }
        let order = try String(contentsOf: Self.repository.appendingPathComponent("scripts/link/mrtdd.order"), encoding: .utf8)
            .split(separator: "\n").map(String.init)
        var addresses: [String: UInt64] = [:]
        for line in try Self.output(of: "/usr/bin/nm", ["--defined-only", path]).split(separator: "\n") {
            let fields = line.split(separator: " ")
            guard fields.count == 3, "tTwW".contains(fields[1]), let address = UInt64(fields[0], radix: 16) else { continue }
            addresses[String(fields[2])] = address
        }
        let present = order.compactMap { addresses[$0] }
        print("footprint: \(present.count) of the \(order.count) functions of scripts/link/mrtdd.order are in mrtdd")
        #expect(order.count > 1000 && present.count * 5 >= order.count * 4, "scripts/link/mrtdd.order is stale: run scripts/link-order")
        let sections = try Self.output(of: "/usr/bin/readelf", ["--section-headers", "--wide", path]).split(separator: "\n")
        let text = try #require(sections.first { $0.contains("] .text ") }, "no .text in \(path)")
        let fields = text.split(separator: "]")[1].split(separator: " ")
        let start = try #require(UInt64(fields[2], radix: 16)), size = try #require(UInt64(fields[4], radix: 16))
        let idle = present.prefix(1000)
        let early = idle.filter { $0 >= start && $0 < start + size / 5 }.count
        print("footprint: \(early) of the first \(idle.count) ordered functions lie in the first fifth of .text")
        // Linked by the file: all 1,000 here; without it, 223. (Below 100% when a function lives
        // in one of the toolchain's unsplit sections, which sits wherever its first listed function
        // put it.)
        #expect(early * 10 >= idle.count * 7, "the release link did not follow scripts/link/mrtdd.order (MRTD_RELEASE_FLAGS)")
    }

    /// `VmRSS` and `RssAnon` of `pid` in KiB.
    static func memory(of pid: Int32) throws -> (rss: Int, anon: Int) {
        guard let rss = ProcStatus.kiB("VmRSS", of: pid), let anon = ProcStatus.kiB("RssAnon", of: pid) else {
            throw TestFailure("cannot read VmRSS and RssAnon of \(pid) from /proc")
        }
        return (rss, anon)
    }

    /// The two idle daemons measured: `--simulate` (what the bench's idle figure is), and the
    /// configuration a kiosk runs: PC/SC readers and the shipped DE and NL master lists trusted
    /// (about 630 CSCAs). That daemon idled at 41.6 MiB VmRSS with 16.9 MiB RssAnon; with fixed
    /// malloc thresholds, a trim after loading and certificates that keep no copies of their
    /// parts, 22.5 MiB with 5.4 MiB; with its read-only mappings released once start-up is over
    /// (release-code-pages, ReadOnlyMappings), 13-15 MiB: under the issue's 20 MB target.
    enum IdleConfiguration: String, CaseIterable, CustomTestStringConvertible {
        case simulate, shippedTrust
        var testDescription: String { rawValue }
        var rssAnonLimitKiB: Int { ReleaseFootprintTests.idleRssAnonLimitKiB }
        var rssLimitKiB: Int { ReleaseFootprintTests.idleRSSLimitKiB }
        var arguments: [String] {
            switch self {
            case .simulate: ["--simulate"]
            case .shippedTrust:
                ["--backends", "pcsc", "--set", "default-trust-path=" + ReleaseFootprintTests.repository.appendingPathComponent("certs/masterlists").path]
            }
        }
    }

    /// A release mrtdd started with `arguments`, answering on its socket after one request.
    final class IdleDaemon {
        let process = Process()
        let directory: URL
        let client: DaemonClient

        init(_ path: String, _ arguments: [String]) async throws {
            directory = try DaemonProcessTests.temporaryDirectory()
            let socket = directory.appendingPathComponent("mrtdd.sock").path
            let config = directory.appendingPathComponent("mrtdd.conf")
            try "log-level = notice\nsocket-group = \n".write(to: config, atomically: true, encoding: .utf8)
            process.executableURL = URL(fileURLWithPath: path)
            process.arguments = ["--config", config.path, "--socket", socket] + arguments
            process.standardError = FileHandle.nullDevice
            client = DaemonClient(socketPath: socket)
            try process.run()
            try await DaemonProcessTests.waitForSocket(socket, client: client)
            _ = try await client.readers()
        }

        func memory() throws -> (rss: Int, anon: Int) { try ReleaseFootprintTests.memory(of: process.processIdentifier) }

        deinit {
            if process.isRunning { process.terminate() }
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test(arguments: IdleConfiguration.allCases)
    func idleReleaseDaemonStaysUnderItsMemoryBounds(_ configuration: IdleConfiguration) async throws {
        guard let path = Self.release("mrtdd") else { return }
        let daemon = try await IdleDaemon(path, configuration.arguments)
        if configuration == .shippedTrust {
            // The measurement means something only with the master lists loaded.
            let trust = try await daemon.client.health().trustStore
            #expect((trust.certificates ?? 0) > 500, "CSCAs loaded: \(trust.certificates ?? -1)")
            #expect(trust.testOnly == false)
        }
        try await Task.sleep(for: .seconds(1))
        let memory = try daemon.memory()
        print("footprint: idle release mrtdd (\(configuration.rawValue)) VmRSS \(memory.rss) KiB, RssAnon \(memory.anon) KiB")
        #expect(memory.rss < configuration.rssLimitKiB, "idle VmRSS \(memory.rss) KiB")
        #expect(memory.anon < configuration.rssAnonLimitKiB, "idle RssAnon \(memory.anon) KiB")
    }

    /// What releasing the read-only mappings is worth, and that it costs nothing but page faults: the
    /// same idle daemon with `release-code-pages = no` keeps megabytes more mapped; with it, a read
    /// maps the code it runs again (and reads correctly), and the idle trim after it releases that
    /// code once more, twice in a row.
    @Test func releasedCodePagesComeBackForAReadAndGoAgainWhenIdle() async throws {
        guard let path = Self.release("mrtdd") else { return }
        let kept = try await IdleDaemon(path, ["--simulate", "--set", "release-code-pages=no"])
        let daemon = try await IdleDaemon(path, ["--simulate"])
        try await Task.sleep(for: .seconds(1))
        let withoutRelease = try kept.memory(), idle = try daemon.memory()
        print("footprint: idle --simulate VmRSS \(withoutRelease.rss) KiB with release-code-pages=no, \(idle.rss) KiB with it")
        #expect(withoutRelease.rss - idle.rss > 3 * 1024, "releasing gave back only \(withoutRelease.rss - idle.rss) KiB")
        for round in 1...2 {
            let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
            #expect(done.state == .done, "read \(round): \(done.state)")
            #expect(done.result?.dataGroupsRead.contains("DG2") == true)
            #expect(done.result?.status == .valid && done.result?.checks.chipAuthentication.result == "passed", "read \(round)")
            let afterRead = try daemon.memory()
            // The idle release comes at the next 10 s tick with no job running.
            var settled = afterRead
            let deadline = ContinuousClock.now + .seconds(30)
            while settled.rss >= Self.idleRSSLimitKiB || settled.rss > afterRead.rss - 2048, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(500))
                settled = try daemon.memory()
            }
            print("footprint: read \(round): VmRSS \(afterRead.rss) KiB after it, \(settled.rss) KiB once idle")
            #expect(settled.rss < Self.idleRSSLimitKiB, "read \(round): VmRSS \(settled.rss) KiB after the idle trim")
            #expect(settled.rss <= afterRead.rss - 2048, "read \(round): the idle trim released nothing (\(afterRead.rss) -> \(settled.rss) KiB)")
        }
    }
}
