import Foundation
import Testing
@testable import MRTDDaemon
@testable import MRTDSimulation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
#if canImport(Glibc)
import Glibc
#endif
import MRTDPlatform
import MRTDClient

/// Trust material another user can write, or too large to load (issue 31, items 4, 10 and 11):
/// trust files and directories, terminal keys, PKCS #11 modules, the simulation trust directory.
/// Each test failed on the code before the fix.
@Suite(.serialized) struct TrustFileSecurityTests {
    static let other: UInt32 = 65534
    static let victim: UInt32 = 65533

    /// Files owned by another uid need root (chown); in CI the tests must run.
    static func isRoot() -> Bool {
        if getuid() == 0 { return true }
        #expect(Prerequisite.skip("the trust-file provenance tests need root (chown to another uid)"))
        return false
    }

    static func directory(_ name: String, mode: mode_t = 0o755, owner: UInt32 = 0) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        chmod(url.path, mode)
        chown(url.path, owner, owner)
        return url
    }

    static func write(_ bytes: [UInt8], to url: URL, mode: mode_t = 0o644, owner: UInt32 = 0) throws {
        try Data(bytes).write(to: url)
        chmod(url.path, mode)
        chown(url.path, owner, owner)
    }

    static func vmHWMKiB(_ pid: Int32) -> Int? {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        return line?.split(whereSeparator: \.isWhitespace).dropFirst().first.flatMap { Int($0) }
    }

    // MARK: Item 4: size limits

    /// A 1 GB sparse file in the trust store and a SIGHUP: the reload is refused with the limit
    /// named, the daemon keeps its store and serving, and its peak RSS stays where it was. Before:
    /// the daemon read the whole file (2.1 GB RSS).
    @Test func aHugeTrustFileIsRefusedUnreadAndTheRunningStoreStays() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let trust = directory.appendingPathComponent("trust")
        try FileManager.default.createDirectory(at: trust, withIntermediateDirectories: true)
        try Self.write(try TrustReloadTests.otherCSCA(), to: trust.appendingPathComponent("other-csca.der"))
        let config = directory.appendingPathComponent("mrtdd.conf")
        try "backends =\nsocket-group =\ndefault-trust = no\ntrust-store = \(trust.path)\n".write(to: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcessTests.executable("mrtdd"))
        process.arguments = ["--config", config.path, "--socket", socket]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let client = DaemonClient(socketPath: socket)
        try await DaemonProcessTests.waitForSocket(socket, client: client)
        #expect(try await DaemonSignalTests.health(client).certificates == 1)
        let before = try #require(Self.vmHWMKiB(process.processIdentifier))

        let huge = trust.appendingPathComponent("huge.der")
        #expect(FileManager.default.createFile(atPath: huge.path, contents: nil))
        #expect(truncate(huge.path, 1 << 30) == 0)
        kill(process.processIdentifier, SIGHUP)
        let reload = try await DaemonSignalTests.waitForReload(client, after: nil)
        #expect(!reload.succeeded)
        #expect(reload.error?.contains("huge.der") == true && reload.error?.contains("larger than the limit") == true, "\(reload.error ?? "")")
        let after = try #require(Self.vmHWMKiB(process.processIdentifier))
        #expect(after - before < 32 * 1024, "peak RSS grew by \(after - before) KiB on a refused 1 GB file")
        #expect(try await DaemonSignalTests.health(client).certificates == 1, "the running store stays")
        #expect(try await client.health().status != "")
        process.terminate()
        #expect(try await DaemonProcessTests.waitForExit(process) == 0)
    }

    /// The limits themselves: a file over `fileBytes` and the file that takes the store over
    /// `totalBytes` are rejected by name; the settings parse.
    @Test func perFileAndPerStoreLimitsRejectByName() throws {
        let trust = try Self.directory("limits")
        defer { try? FileManager.default.removeItem(at: trust) }
        let csca = try TrustReloadTests.otherCSCA()
        try Self.write(csca, to: trust.appendingPathComponent("a.der"))
        try Self.write(csca + [UInt8](repeating: 0, count: 4096), to: trust.appendingPathComponent("b-large.der"))
        try Self.write(csca, to: trust.appendingPathComponent("c.der"))
        let perFile = TrustStore.load(paths: [trust.path], limits: .init(fileBytes: csca.count + 100, totalBytes: 1 << 20))
        #expect(perFile.report.rejected.map(\.path) == [trust.appendingPathComponent("b-large.der").path])
        #expect(perFile.report.rejected.first?.reason.contains("larger than the limit of \(csca.count + 100)") == true)
        let perStore = TrustStore.load(paths: [trust.path], limits: .init(fileBytes: 1 << 20, totalBytes: 2 * csca.count + 4096))
        let overTotal = perStore.report.rejected.filter { $0.reason.contains("larger than its limit of \(2 * csca.count + 4096)") }
        #expect(overTotal.map(\.path) == [trust.appendingPathComponent("c.der").path], "\(perStore.report.rejected)")
        var configuration = DaemonConfiguration()
        try configuration.apply(file: "trust-max-file-size = 1048576\ntrust-max-size = 2097152\nmax-results-per-user = 7\n")
        #expect(configuration.maxRetainedResultsPerUser == 7)
        #expect(configuration.trustLimits == .init(fileBytes: 1 << 20, totalBytes: 2 << 20))
    }

    // MARK: Item 10: trust material others can write

    /// In a root-owned store: a link to a 0666 file in a directory of uid 65534, a link to a root
    /// file in a 0777 directory, a dangling link, a link loop, a file of uid 65534 and a 0777
    /// subdirectory: each rejected with its reason, so a reload keeps the running store; the
    /// store's own CSCA still loads. Before: the planted CSCAs were trusted and the bad links
    /// skipped silently.
    @Test func trustMaterialAnotherUserCouldWriteIsRejectedWithItsReason() throws {
        guard Self.isRoot() else { return }
        let trust = try Self.directory("trust-store")
        let theirs = try Self.directory("theirs", owner: Self.other)
        let open = try Self.directory("open", mode: 0o777)
        defer { for url in [trust, theirs, open] { try? FileManager.default.removeItem(at: url) } }
        try Self.write(try TrustReloadTests.otherCSCA(), to: trust.appendingPathComponent("good.der"))
        let planted = try FixturePKI.make(.ecP256, country: "UZ", cscaCommonName: "Planted CSCA", keySet: 5).csca
        try Self.write(planted, to: theirs.appendingPathComponent("planted.der"), mode: 0o666, owner: Self.other)
        try Self.write(planted, to: open.appendingPathComponent("root-in-open.der"))
        let fm = FileManager.default
        try fm.createSymbolicLink(atPath: trust.appendingPathComponent("link-planted.der").path, withDestinationPath: theirs.appendingPathComponent("planted.der").path)
        try fm.createSymbolicLink(atPath: trust.appendingPathComponent("link-open-dir.der").path, withDestinationPath: open.appendingPathComponent("root-in-open.der").path)
        try fm.createSymbolicLink(atPath: trust.appendingPathComponent("dangling.der").path, withDestinationPath: "/nonexistent/csca.der")
        try fm.createSymbolicLink(atPath: trust.appendingPathComponent("loop-a.der").path, withDestinationPath: trust.appendingPathComponent("loop-b.der").path)
        try fm.createSymbolicLink(atPath: trust.appendingPathComponent("loop-b.der").path, withDestinationPath: trust.appendingPathComponent("loop-a.der").path)
        try Self.write(planted, to: trust.appendingPathComponent("foreign.der"), owner: Self.other)
        let sub = trust.appendingPathComponent("sub")
        try fm.createDirectory(at: sub, withIntermediateDirectories: false)
        chmod(sub.path, 0o777)
        try Self.write(planted, to: sub.appendingPathComponent("in-open-sub.der"))

        let store = TrustStore.load(paths: [trust.path])
        let reasons = Dictionary(store.report.rejected.map { (PathString.lastComponent($0.path), $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(store.anchors.count == 1, "only the store's own CSCA: \(store.report.rejected)")
        #expect(reasons["link-planted.der"]?.contains("owned by uid \(Self.other)") == true, "\(reasons["link-planted.der"] ?? "accepted")")
        #expect(reasons["link-open-dir.der"]?.contains("writable by every user") == true, "\(reasons["link-open-dir.der"] ?? "accepted")")
        #expect(reasons["dangling.der"]?.contains("symbolic link to nothing") == true, "\(reasons["dangling.der"] ?? "skipped silently")")
        #expect(reasons["loop-a.der"]?.contains("loop") == true && reasons["loop-b.der"]?.contains("loop") == true, "\(reasons)")
        #expect(reasons["foreign.der"]?.contains("owned by uid \(Self.other)") == true, "\(reasons["foreign.der"] ?? "accepted")")
        #expect(reasons["sub"]?.contains("writable by every user") == true, "\(reasons["sub"] ?? "accepted")")
        #expect(!store.report.errors.isEmpty, "a reload would keep the running store")
    }

    /// The trust-list updater's files: a trust directory owned by the updater's uid (as
    /// mrtdd-trust-update.service leaves /etc/mrtdd/trust) loads when that uid is the system's
    /// trust-list writer, and is refused whole for any other uid. The writer's rule goes no
    /// further: a directory it owns that others can write is still refused.
    @Test func theTrustListWritersDirectoryLoadsAndNoOtherUsersDoes() throws {
        guard Self.isRoot() else { return }
        let writer = Self.other
        let updated = try Self.directory("updated", owner: writer)
        let open = try Self.directory("updated-open", mode: 0o777, owner: writer)
        defer { for url in [updated, open] { try? FileManager.default.removeItem(at: url) } }
        let csca = try TrustReloadTests.otherCSCA()
        try Self.write(csca, to: updated.appendingPathComponent("csca.der"), owner: writer)
        try Self.write(csca, to: open.appendingPathComponent("csca.der"), owner: writer)

        let asWriter = TrustStore.load(paths: [updated.path], writer: writer)
        #expect(asWriter.anchors.count == 1 && asWriter.report.rejected.isEmpty, "\(asWriter.report.rejected)")
        let asAnother = TrustStore.load(paths: [updated.path], writer: Self.victim)
        #expect(asAnother.anchors.isEmpty)
        #expect(asAnother.report.rejected.first?.reason.contains("owned by uid \(writer)") == true, "\(asAnother.report.rejected)")
        let noWriter = TrustStore.load(paths: [updated.path], writer: nil)
        #expect(noWriter.anchors.isEmpty)
        let openToAll = TrustStore.load(paths: [open.path], writer: writer)
        #expect(openToAll.anchors.isEmpty)
        #expect(openToAll.report.rejected.first?.reason.contains("writable by every user") == true, "\(openToAll.report.rejected)")
        // The name is the package's, looked up: a system without the user trusts no one more.
        #expect(FileProvenance.trustListWriterName == "mrtdd-trust")
        #expect(FileProvenance.trustListWriter() == (getpwnam("mrtdd-trust").map { $0.pointee.pw_uid }))
    }

    /// Terminal credentials: a 0777 terminal directory is refused whole; a key owned by another
    /// uid is not used (named in the warnings). Before: both loaded.
    @Test func terminalDirectoriesAndKeysOthersCouldWriteAreRefused() throws {
        guard Self.isRoot() else { return }
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("certs/test-eac")
        let copy = try Self.directory("terminal")
        defer { try? FileManager.default.removeItem(at: copy) }
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) where !name.hasPrefix(".") {
            try Self.write(Array(try Data(contentsOf: source.appendingPathComponent(name))), to: copy.appendingPathComponent(name))
        }
        let good = try TerminalCredentials.load(directory: copy.path, pkcs11: nil)
        #expect(!good.terminals.isEmpty)
        chmod(copy.path, 0o777)
        #expect(throws: TerminalCredentialsError.untrusted(copy.path, "writable by every user (mode 0777)")) {
            try TerminalCredentials.load(directory: copy.path, pkcs11: nil)
        }
        chmod(copy.path, 0o755)
        for key in try FileManager.default.contentsOfDirectory(atPath: copy.path) where key.hasSuffix(".pkcs8") {
            chown(copy.appendingPathComponent(key).path, Self.other, Self.other)
        }
        #expect {
            try TerminalCredentials.load(directory: copy.path, pkcs11: nil)
        } throws: { error in
            guard case TerminalCredentialsError.noTerminal(_, let warnings) = error else { return false }
            return warnings.contains { $0.contains(".pkcs8") && $0.contains("owned by uid \(Self.other)") }
        }
    }

    /// A PKCS #11 module-path is dlopen'ed only when it and its directory are root's and writable
    /// by root alone: a copy of SoftHSM's module owned by another uid, or in a 0777 directory, or a
    /// relative path, is refused before it is loaded. Before: any path was dlopen'ed.
    @Test func aPKCS11ModuleIsLoadedFromRootsFilesOnly() async throws {
        guard Self.isRoot() else { return }
        guard FileManager.default.fileExists(atPath: SoftHSMToken.module) else {
            #expect(Prerequisite.skip("\(SoftHSMToken.module) is not installed (scripts/setup installs softhsm2)"))
            return
        }
        #expect(FileProvenance.problemLoadingCode(SoftHSMToken.module) == nil)
        #expect(FileProvenance.problemLoadingCode("libsofthsm2.so")?.contains("absolute") == true)
        let mine = try Self.directory("module")
        let open = try Self.directory("module-open", mode: 0o777)
        defer { for url in [mine, open] { try? FileManager.default.removeItem(at: url) } }
        let module = Array(try Data(contentsOf: URL(fileURLWithPath: SoftHSMToken.module)))
        let foreign = mine.appendingPathComponent("foreign.so")
        try Self.write(module, to: foreign, owner: Self.other)
        let inOpen = open.appendingPathComponent("in-open.so")
        try Self.write(module, to: inOpen)
        #expect(FileProvenance.problemLoadingCode(foreign.path)?.contains("uid \(Self.other)") == true)
        #expect(FileProvenance.problemLoadingCode(inOpen.path)?.contains("writable by others") == true)
        let key = try PKCS11Key(uri: "pkcs11:token=none;object=none;type=private?module-path=\(foreign.path)&pin-value=1234")
        await #expect {
            _ = try await key.sign(message: [1, 2, 3], scheme: .ecdsaPlain(.sha256))
        } throws: { error in
            "\(error)".contains("module-path") && "\(error)".contains("refused")
        }
    }

    // MARK: Item 11: the simulation trust directory

    /// The victim's own 0777 simulation trust directory, holding a CSCA another uid put there:
    /// `mrtdctl trust list --trust-test` as the victim trusts the built-in TEST-ONLY CSCA only and
    /// says on stderr that the directory was refused. Before: it trusted the planted CSCA, and a
    /// refused directory was never mentioned.
    @Test func aSimulationTrustDirectoryOthersCanWriteIsRefusedAloud() async throws {
        guard SecurityTests.canSwitchUsers() else { return }
        let shared = try Self.directory("simulation-trust", mode: 0o777, owner: Self.victim)
        defer { try? FileManager.default.removeItem(at: shared) }
        let planted = try FixturePKI.make(.ecP256, country: "UZ", cscaCommonName: "Planted CSCA", keySet: 6).csca
        try Self.write(planted, to: shared.appendingPathComponent("0123456789abcdef0123456789abcdef.der"), owner: Self.other)
        func trustList() async throws -> (status: Int32, output: String) {
            try await ConsoleTests.run("/usr/bin/setpriv", [
                "--reuid=\(Self.victim)", "--regid=\(Self.victim)", "--clear-groups", "/usr/bin/env",
                "MRTD_SIMULATION_TRUST=\(shared.path)", try DaemonProcessTests.executable("mrtdctl"),
                "trust", "list", "--trust-test", "--no-default-trust", "--json",
            ])
        }
        let refused = try await trustList()
        #expect(refused.output.contains("simulation trust directory \(shared.path) refused"), "\(refused.output)")
        #expect(refused.output.contains(#""cscaCount" : 1"#) || refused.output.contains(#""cscaCount":1"#), "\(refused.output)")
        // The same directory made the victim's alone (0700): its CSCA is trusted.
        chmod(shared.path, 0o700)
        chown(shared.appendingPathComponent("0123456789abcdef0123456789abcdef.der").path, Self.victim, Self.victim)
        let accepted = try await trustList()
        #expect(!accepted.output.contains("refused"), "\(accepted.output)")
        #expect(accepted.output.contains(#""cscaCount" : 2"#) || accepted.output.contains(#""cscaCount":2"#), "\(accepted.output)")
    }
}
