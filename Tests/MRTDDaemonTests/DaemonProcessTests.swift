import Foundation
import Testing
import MRTDTesting
@testable import MRTDDaemon
import MRTDCore
import MRTDSimulation
import MRTDClient

/// mrtdd as a separate process, as systemd runs it.
@Suite(.serialized) struct DaemonProcessTests {
    /// The built executables sit next to the test bundle.
    static func executable(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name).path
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TestFailure("\(name) not built next to the tests (\(path)); run swift build --build-tests")
        }
        return path
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-proc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    static func waitForSocket(_ path: String, client: DaemonClient) async throws {
        try await waitUntil("mrtdd listening on \(path)") {
            guard FileManager.default.fileExists(atPath: path) else { return false }
            return (try? await client.health()) != nil
        }
    }

    static func waitForExit(_ process: Process, timeout: Duration = .seconds(10)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while process.isRunning {
            guard ContinuousClock.now < deadline else {
                process.interrupt()
                throw TestFailure("mrtdd did not exit within \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return process.terminationStatus
    }

    @Test func theDaemonProcessReadsThroughItsSocketAndStopsCleanlyOnSIGTERM() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let config = directory.appendingPathComponent("mrtdd.conf")
        try "# test\nresult-retention = 1m\nlog-level = debug\nsocket-group = \n".write(to: config, atomically: true, encoding: .utf8)
        let log = directory.appendingPathComponent("mrtdd.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable("mrtdd"))
        process.arguments = ["--config", config.path, "--simulate", "--sim-readers", "2", "--socket", socket]
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        let client = DaemonClient(socketPath: socket)
        try await Self.waitForSocket(socket, client: client)

        let attributes = try FileManager.default.attributesOfItem(atPath: socket)
        #expect((attributes[.posixPermissions] as? Int) == 0o660)
        #expect(try await client.readers().map(\.name) == ["Virtual Reader 0", "Virtual Reader 1"])
        async let a = client.createRead(.init(reader: "Virtual Reader 0", access: Specimens.access), wait: true)
        // Reader 1 presents the PACE-only ID card, which opens with its CAN.
        async let b = client.createRead(.init(reader: "Virtual Reader 1", access: .init(can: "123456")), wait: true)
        let (first, second) = try await (a, b)
        #expect(first.state == .done && second.state == .done)
        #expect(first.result?.status == .valid && first.result?.checks.chipAuthentication.result == .passed)
        #expect(second.result?.access?.protocol == "PACE" && second.result?.access?.password == "CAN")
        #expect(second.result?.status == .valid)
        // The simulated passport holds the further LDS1 groups; a request naming them gets them.
        let full = try await client.createRead(
            .init(reader: "Virtual Reader 0", access: Specimens.access, dataGroups: [5, 11, 12, 14, 15, 16]), wait: true)
        #expect(full.result?.status == .valid)
        #expect(full.result?.personalDetails?.personalNumber == SpecimenDocument.Details.personalNumber)
        #expect(full.result?.documentDetails?.issuingAuthority == SpecimenDocument.Details.issuingAuthority)
        #expect(try await client.image(full.id, name: "document-rear").contentType == "image/jp2")
        let wrong = try await client.createRead(.init(access: Specimens.wrongAccess), wait: true)
        #expect(wrong.error?.error == .accessDenied)

        process.terminate()  // SIGTERM
        #expect(try await Self.waitForExit(process) == 0)
        #expect(!FileManager.default.fileExists(atPath: socket), "the socket file is removed on shutdown")
        let logs = try String(contentsOf: log, encoding: .utf8)
        #expect(logs.contains("<6>read finished"))
        #expect(logs.contains("uid=\(getuid())"), "the caller's uid (SO_PEERCRED) is logged with the job")
        for secret in ["L898902C", "740812", "ERIKSSON", "ANNA", "ZE184226B", "SPECIMEN STREET", "PASSPORT OFFICE"] {
            #expect(!logs.contains(secret))
        }
    }

    /// `--config /dev/null` (an empty configuration, as the bench and scripts use) is a file like any
    /// other: FoundationEssentials' `Data(contentsOf:)` refuses character devices and pipes, and the
    /// daemon once stopped at start with "cannot read configuration file /dev/null".
    @Test func theDaemonTakesItsConfigurationFromDevNull() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable("mrtdd"))
        process.arguments = ["--config", "/dev/null", "--simulate", "--socket", socket]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let client = DaemonClient(socketPath: socket)
        try await Self.waitForSocket(socket, client: client)
        #expect(try await client.readers().map(\.name) == ["Virtual Reader 0"])
        process.terminate()
        #expect(try await Self.waitForExit(process) == 0)
    }

    /// `mrtdd --simulate --sim-quirk NAME` (docs/field-quirks.md): every virtual chip shows the
    /// quirk, and the reads still end `valid`; an unknown name is refused at start.
    @Test func theSimulatingDaemonServesChipQuirksAndRefusesUnknownOnes() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let config = directory.appendingPathComponent("mrtdd.conf")
        try "# test\nsocket-group = \n".write(to: config, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try Self.executable("mrtdd"))
        process.arguments = ["--config", config.path, "--simulate", "--sim-readers", "2", "--socket", socket,
                             "--sim-quirk", "respond-61xx", "--sim-quirk", "le00-6b00",
                             "--sim-quirk", "aa-6a88", "--sim-quirk", "ef-dir-refused-6a87", "--sim-quirk", "EF-DIR-REFUSED-6982"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        let client = DaemonClient(socketPath: socket)
        try await Self.waitForSocket(socket, client: client)
        let passport = try await client.createRead(.init(reader: "Virtual Reader 0", access: Specimens.access), wait: true)
        #expect(passport.result?.transport.adjustments.contains { $0.hasPrefix("61xx") } == true)
        // aa-6a88: the passport has DG15, so the refused INTERNAL AUTHENTICATE fails AA and with it
        // the inspection (invalid: a possible clone), not the read: every file is there.
        #expect(passport.result?.checks.activeAuthentication.result == .failed)
        #expect(passport.result?.status == .invalid)
        #expect(passport.result?.dataGroupsRead.contains("DG2") == true)
        let card = try await client.createRead(.init(reader: "Virtual Reader 1", access: .init(can: "123456")), wait: true)
        #expect(card.result?.status == .valid)
        // The ID card's EF.CardAccess is read in plain with Le 0000 first: 6B00, then explicitly.
        #expect(card.result?.transport.recoveries.contains { $0.kind == "maximumLeRefused" } == true)
        process.terminate()
        #expect(try await Self.waitForExit(process) == 0)

        let refused = Process()
        refused.executableURL = URL(fileURLWithPath: try Self.executable("mrtdd"))
        refused.arguments = ["--config", config.path, "--simulate", "--socket", socket, "--sim-quirk", "no-such-quirk"]
        let errors = Pipe()
        refused.standardError = errors
        try refused.run()
        #expect(try await Self.waitForExit(refused) != 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("respond-61xx"), "the error lists the valid names")
    }

    @Test func theDaemonTakesTheSocketSystemdPasses() async throws {
        let activate = "/usr/bin/systemd-socket-activate"
        guard FileManager.default.isExecutableFile(atPath: activate) else {
            #expect(Prerequisite.skip("systemd-socket-activate is not installed; socket activation untested"))
            return
        }
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("activated.sock").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: activate)
        // The daemon's own --socket points elsewhere: it must use the inherited one.
        process.arguments = ["-l", socket, try Self.executable("mrtdd"), "--simulate",
                             "--socket", directory.appendingPathComponent("unused.sock").path]
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let client = DaemonClient(socketPath: socket)
        try await waitUntil("the activation socket bound") { FileManager.default.fileExists(atPath: socket) }
        // The first connection starts mrtdd, which answers on the inherited socket.
        let health = try await eventually("mrtdd answering on the inherited socket") { try? await client.health() }
        #expect(health.readers == 1)
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent("unused.sock").path))
        process.terminate()
        _ = try await Self.waitForExit(process)
        // The socket belongs to systemd (mrtdd.socket): the daemon never unlinks one it was passed.
        #expect(FileManager.default.fileExists(atPath: socket), "mrtdd removed the socket systemd passed")
    }
}
