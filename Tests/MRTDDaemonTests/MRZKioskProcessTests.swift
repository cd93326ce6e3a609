import Foundation
import Testing
import HTTPTypes
import MRTDClient
import MRTDCore
import MRTDTesting
@testable import MRTDDaemon
import MRTDPlatform

/// Issue 28, end to end: `mrtdd --simulate` as its own process with a serial MRZ source on a
/// pseudo-terminal. The virtual passport lies on the reader from the start (`--simulate` presents
/// it), so each scan pairs with the card at once; MRZ-first pairing is covered in-process
/// (`MRZSourceTests`, where a test presents the card).
@Suite(.serialized) struct MRZKioskProcessTests {
    struct Seen: Sendable {
        var type: String
        var data: String
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }
    }

    @Test func scansStartReadsThatEndValidAndNothingOfTheMRZIsLogged() async throws {
        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let log = directory.appendingPathComponent("mrtdd.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcessTests.executable("mrtdd"))
        process.arguments = ["--config", "/dev/null", "--simulate", "--socket", socket,
                             "--log-level", "trace", "--mrz-source", "serial:\(pty.link),framing=desko,baud=9600"]
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        let client = DaemonClient(socketPath: socket)
        try await DaemonProcessTests.waitForSocket(socket, client: client)
        func logText() -> String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
        try await waitUntil("the MRZ source is open") { logText().contains("MRZ source open") }

        let events = Locked<[Seen]>([])
        let opened = Locked(false)
        let follower = Task {
            for try await event in client.events(onOpen: { opened.withValue { $0 = true } }) where event.type.hasPrefix("mrz.") || event.type.hasPrefix("read.") {
                events.withValue { $0.append(Seen(type: event.type, data: event.data)) }
            }
        }
        defer { follower.cancel() }
        try await waitUntil("subscribed") { opened.withValue { $0 } }

        func captured(_ index: Int) async throws -> Seen {
            try await eventually("mrz.captured #\(index + 1)") {
                let all = events.withValue { $0.filter { $0.type == "mrz.captured" } }
                return all.count > index ? all[index] : nil
            }
        }

        // 1. The specimen's MRZ in a DESKO frame (split writes, noise before it).
        pty.write(Array("\r\nnoise".utf8))
        let frame = ScannedSpecimen.desko(ScannedSpecimen.lines)
        pty.write(Array(frame.prefix(30)))
        pty.write(Array(frame.dropFirst(30)))
        let first = try await captured(0)
        let firstID = try #require(first.json["id"] as? String)
        #expect((first.json["corrections"] as? [Any])?.isEmpty == true)
        let firstView = try await eventually("read 1 finished") { () async throws -> ReadJobView? in
            let view = try await client.job(firstID)
            return view.state.isFinished ? view : nil
        }
        #expect(firstView.result?.status == .valid)
        #expect(firstView.result?.checks.mrzMatch?.result == .passed)

        // 2. An O/0 slip: corrected, reported, read valid.
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.slipped))
        let second = try await captured(1)
        let corrections = try #require(second.json["corrections"] as? [[String: Any]])
        #expect(corrections.count == 1)
        #expect(corrections.first?["field"] as? String == "dateOfBirth")
        #expect(corrections.first?["pair"] as? String == "O/0")
        let secondID = try #require(second.json["id"] as? String)
        let secondView = try await eventually("read 2 finished") { () async throws -> ReadJobView? in
            let view = try await client.job(secondID)
            return view.state.isFinished ? view : nil
        }
        #expect(secondView.result?.status == .valid)
        #expect(secondView.result?.checks.mrzMatch?.result == .passed)

        // 3. A wrong check digit no single correction fixes: no read; the event says why. Then a good
        //    scan: the events after the rejection are that scan's, so the bad one started nothing.
        try await waitUntil("both reads' read.finished events arrived") {
            events.withValue { $0.count { $0.type == "read.finished" } } == 2
        }
        let before = events.withValue { $0.count }
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.wrongCheckDigit))
        let rejected = try await eventually("mrz.rejected") { events.withValue { $0.first { $0.type == "mrz.rejected" } } }
        #expect(rejected.json["error"] as? String == "mrzCheckDigitsWrong")
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.lines))
        _ = try await captured(2)
        let after = events.withValue { Array($0[before...]) }
        let rejectedAt = try #require(after.firstIndex { $0.type == "mrz.rejected" })
        let capturedAt = try #require(after.firstIndex { $0.type == "mrz.captured" })
        #expect(rejectedAt < capturedAt)
        #expect(!after[rejectedAt..<capturedAt].contains { $0.type.hasPrefix("read.") })

        // No MRZ content in the trace-level log, the events or the metrics.
        let metrics = String(decoding: try await client.send(.get, "/metrics").body, as: UTF8.self)
        let texts = ["log": logText(), "events": events.withValue { $0.map(\.data).joined(separator: "\n") }, "metrics": metrics]
        #expect(texts["log"]!.contains("MRZ captured"))
        #expect(texts["log"]!.contains("<7>"))  // debug and trace records were written
        for (name, text) in texts {
            for secret in ScannedSpecimen.secrets { #expect(!text.contains(secret), "the \(name) holds MRZ content") }
        }

        process.terminate()
        #expect(try await DaemonProcessTests.waitForExit(process) == 0)
    }
}
