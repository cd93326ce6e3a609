import Foundation
import MRTDCore
import MRTDTesting
import Testing

@testable import MRTDReaders

/// The daemon as a separate process reading through real pcscd + vpcd: the product as deployed, with
/// only the reader replaced by the virtual chip. Part of the serialized PC/SC suite (one pcscd per
/// machine). The client side is curl over the Unix socket, as an integrator would script it.
extension PCSCHardwareLoopTests {
    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    static func curl(_ socket: String, _ arguments: [String]) throws -> (status: Int32, body: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "--max-time", "60", "--unix-socket", socket] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let body = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, body)
    }

    @Test func theDaemonProcessReadsThroughPcscdAndVpcd() async throws {
        let mrtdd = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("mrtdd").path
        try #require(FileManager.default.isExecutableFile(atPath: mrtdd), "mrtdd not built next to the tests")
        try #require(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl is needed (scripts/setup installs it)")
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(card, events: events)

            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-pcsc-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let socket = directory.appendingPathComponent("mrtdd.sock").path
            let trust = Self.repositoryRoot.appendingPathComponent("certs/test/csca.pem").path
            let config = directory.appendingPathComponent("mrtdd.conf")
            try "socket-group = \nbackends = pcsc\n".write(to: config, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: mrtdd)
            process.arguments = ["--config", config.path, "--socket", socket, "--trust-store", trust]
            process.standardError = FileHandle.nullDevice
            try process.run()
            defer { if process.isRunning { process.terminate() } }
            try await waitUntil("mrtdd listening") { FileManager.default.fileExists(atPath: socket) }

            // The daemon sees the vpcd reader with its card (it learns it from pcscd's events).
            try await waitUntil("\(Self.reader) listed with its card") {
                let body = try Self.curl(socket, ["http://mrtdd/v1/readers"]).body
                let readers = (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?["readers"] as? [[String: Any]]
                return readers?.contains { $0["name"] as? String == Self.reader && $0["cardPresent"] as? Bool == true } ?? false
            }

            let request = #"{"access":{"mrzKey":{"documentNumber":"L898902C3","dateOfBirth":"740812","dateOfExpiry":"120415"}}}"#
            let answer = try Self.curl(socket, [
                "-X", "POST", "-H", "Content-Type: application/json", "--data", request, "http://mrtdd/v1/reads?wait=true",
            ])
            #expect(answer.status == 0)
            let job = try JSONSerialization.jsonObject(with: answer.body) as? [String: Any]
            let result = job?["result"] as? [String: Any]
            #expect(job?["state"] as? String == "done", "\(String(decoding: answer.body, as: UTF8.self).prefix(400))")
            #expect(job?["reader"] as? String == Self.reader)
            #expect(result?["status"] as? String == "valid")
            let transport = result?["transport"] as? [String: Any]
            #expect((transport?["apdus"] as? Int ?? 0) >= 8)
            #expect(card.apdusServed >= 8, "the APDUs went through vpcd")

            process.terminate()  // SIGTERM: graceful shutdown
            try await waitUntil("mrtdd exited") { !process.isRunning }
            #expect(process.terminationStatus == 0)
        }
    }
}
