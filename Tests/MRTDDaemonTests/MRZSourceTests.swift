import Foundation
import Logging
import Testing
import HTTPTypes
import MRTDClient
import MRTDCore
import MRTDTesting
@testable import MRTDDaemon
import MRTDPlatform
import MRTDSimulation

/// The specimen's MRZ and the frames scanners send it in (issue 28).
enum ScannedSpecimen {
    static let lines = SpecimenDocument.erikssonMRZ.split(separator: "\n").map(String.init)
    /// The date of birth 740812 read as 74O812: an O/0 slip one correction repairs.
    static let slipped = [lines[0], String(lines[1].prefix(15)) + "O" + String(lines[1].dropFirst(16))]
    /// The date of birth's check digit 2 read as 7: no look-alike correction repairs it.
    static let wrongCheckDigit = [lines[0], String(lines[1].prefix(19)) + "7" + String(lines[1].dropFirst(20))]
    /// What must never appear in a log, an event or a metric.
    static let secrets = lines + ["L898902C3", "740812", "120415", "ERIKSSON", "74O812"]

    static func desko(_ lines: [String]) -> [UInt8] { [0x02] + Array(lines.map { $0 + "\r" }.joined().utf8) + [0x03] }
    static func rte(_ lines: [String]) -> [UInt8] {
        let text = [UInt8(0x30)] + Array(([""] + lines).map { $0 + "\r" }.joined().utf8)
        let header = [UInt8(text.count + 6), 0] + Array("OU".utf8)
        let bcc = (header + [0x02] + text + [0x03]).reduce(0, ^)
        return [0x01] + header + [0x02] + text + [0x03, bcc]
    }
    static func plain(_ lines: [String]) -> [UInt8] { Array(lines.map { $0 + "\r\n" }.joined().utf8) }
}

@Suite(.serialized) struct MRZSourceTests {
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-mrz-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A daemon with one empty virtual reader R1 and the given MRZ source.
    static func daemon(source: String, logLevel: Logger.Level = .debug) async throws -> TestDaemon {
        let daemon = try await TestDaemon.start(readers: ["R1"], logLevel: logLevel) { configuration in
            configuration.mrzSources = [try! MRZSourceConfiguration(parsing: source)]
            configuration.mrzWindow = .seconds(20)
        }
        try await waitUntil("the MRZ source is open") { daemon.logs.text.contains("MRZ source open") }
        return daemon
    }

    static func job(_ daemon: TestDaemon, count: Int = 1) async throws -> String {
        try await eventually("a read job started by the scanner") {
            let ids = await daemon.daemon.scheduler.jobIDs()
            return ids.count >= count ? ids.first : nil
        }
    }

    /// MRZ first, card second: the job waits, the card is presented, the read ends valid and DG1
    /// matches the scanned MRZ.
    func readsAfterTheCardArrives(_ daemon: TestDaemon) async throws -> ReadJobView {
        let id = try await Self.job(daemon)
        #expect(try await daemon.client.job(id).state == .waiting)
        #expect(daemon.backend.insert(try Specimens.passport(), into: "R1"))
        let view = try await daemon.waitFinished(id)
        #expect(view.state == .done)
        #expect(view.result?.status == .valid)
        #expect(view.result?.checks.mrzMatch?.result == .passed)
        return view
    }

    @Test(arguments: [("desko", ScannedSpecimen.desko(ScannedSpecimen.lines)), ("rte", ScannedSpecimen.rte(ScannedSpecimen.lines)),
                      ("lines", ScannedSpecimen.plain(ScannedSpecimen.lines))])
    func everySerialFramingStartsARead(framing: String, frame: [UInt8]) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),framing=\(framing),baud=115200,reader=R1")
        // Noise first, then the frame in small writes.
        pty.write(Array("\r\nnoise\u{7}\r\n".utf8))
        for start in stride(from: 0, to: frame.count, by: 11) {
            pty.write(Array(frame[start..<min(frame.count, start + 11)]))
            try await Task.sleep(for: .milliseconds(2))
        }
        _ = try await readsAfterTheCardArrives(daemon)
        try await daemon.stop()
    }

    @Test func anOCRSlipIsCorrectedAndReported() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),reader=R1")
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.slipped))
        _ = try await readsAfterTheCardArrives(daemon)
        // The log names the corrected field, not where or what the character was (that is MRZ content).
        #expect(daemon.logs.text.contains("corrected=dateOfBirth"))
        #expect(!daemon.logs.text.contains("O/0") && !daemon.logs.text.contains("column 16"))
        try await daemon.stop()
    }

    @Test func aWrongCheckDigitStartsNoReadAndTheChipIsNeverTouched() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),reader=R1")
        #expect(daemon.backend.insert(try Specimens.passport(), into: "R1"))
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.wrongCheckDigit))
        try await waitUntil("the rejection is logged") { daemon.logs.text.contains("MRZ rejected") }
        #expect(daemon.logs.text.contains("mrzCheckDigitsWrong"))
        #expect(await daemon.daemon.scheduler.jobIDs().isEmpty)
        #expect(daemon.backend.exchanges(reader: "R1") == 0)
        try await daemon.stop()
    }

    @Test func aLineErrorIsReportedAndTheNextFrameStillReads() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),framing=rte,parity=even,baud=19200,reader=R1")
        // A block whose check character was corrupted on the line, then a good one.
        var corrupted = ScannedSpecimen.rte(ScannedSpecimen.lines)
        corrupted[corrupted.count - 1] ^= 0x41
        pty.write(corrupted)
        try await waitUntil("the line error is logged") { daemon.logs.text.contains("MRZ source: line error") }
        #expect(daemon.logs.text.contains("block check character wrong"))
        #expect(await daemon.daemon.scheduler.jobIDs().isEmpty)
        pty.write(ScannedSpecimen.rte(ScannedSpecimen.lines))
        _ = try await readsAfterTheCardArrives(daemon)
        try await daemon.stop()
    }

    @Test func theCardFirstThenTheMRZ() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),framing=rte")
        #expect(daemon.backend.insert(try Specimens.passport(), into: "R1"))
        pty.write(ScannedSpecimen.rte(ScannedSpecimen.lines))
        let id = try await Self.job(daemon)
        let view = try await daemon.waitFinished(id)
        #expect(view.result?.status == .valid)
        #expect(view.result?.checks.mrzMatch?.result == .passed)
        try await daemon.stop()
    }

    @Test func theScannerUnpluggedAndPluggedAgain() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),reader=R1")
        pty.unplug()
        try await waitUntil("the daemon notices the device went away") { daemon.logs.text.contains("MRZ source went away") }
        try pty.replug()
        try await waitUntil("the source is open again") {
            daemon.logs.text.components(separatedBy: "MRZ source open").count >= 3
        }
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.lines))
        _ = try await readsAfterTheCardArrives(daemon)
        try await daemon.stop()
    }

    @Test func aNewerScanSupersedesTheWaitingOne() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),reader=R1")
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.lines))
        let first = try await Self.job(daemon)
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.lines))
        try await waitUntil("the first job is superseded") { try await daemon.client.job(first).state == .cancelled }
        let second = try await eventually("the second job") { await daemon.daemon.scheduler.jobIDs().first { $0 != first } }
        #expect(daemon.backend.insert(try Specimens.passport(), into: "R1"))
        #expect(try await daemon.waitFinished(second).result?.status == .valid)
        try await daemon.stop()
    }

    @Test func hidrawReportsThroughAFIFO() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("hidraw").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let daemon = try await Self.daemon(source: "hidraw:\(fifo),reader=R1")
        // Recorded as the reader sends them: a barcode frame (ignored), then the OCR frame, in 64-byte reports.
        let payload = [0x1C, 0x42] + Array("M1DOE".utf8) + [0x03, 0x1D]
            + [0x1C, 0x02] + Array(ScannedSpecimen.lines.map { $0 + "\r" }.joined().utf8) + [0x03, 0x1D]
        var reports: [UInt8] = []
        for start in stride(from: 0, to: payload.count, by: 63) {
            let chunk = Array(payload[start..<min(payload.count, start + 63)])
            reports += [UInt8(chunk.count) | 0x80] + chunk + [UInt8](repeating: 0, count: 63 - chunk.count)
        }
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
        // A partial report first, the rest later.
        writer.write(Data(reports.prefix(40)))
        try await Task.sleep(for: .milliseconds(20))
        writer.write(Data(reports.dropFirst(40)))
        _ = try await readsAfterTheCardArrives(daemon)
        try writer.close()
        try await daemon.stop()
    }

    @Test func evdevEventsThroughAFIFO() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let fifo = directory.appendingPathComponent("event0").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let daemon = try await Self.daemon(source: "evdev:\(fifo),layout=us,reader=R1")
        let writer = try FileHandle(forWritingTo: URL(fileURLWithPath: fifo))
        writer.write(Data(KeyEvents.typing(ScannedSpecimen.lines, gapMs: 5)))
        _ = try await readsAfterTheCardArrives(daemon)
        try writer.close()
        try await daemon.stop()
    }

    /// Issue 28: no MRZ content in logs (trace level), events or metrics.
    @Test func noMRZContentInLogsEventsOrMetrics() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pty = try PseudoTerminalPair(link: directory.appendingPathComponent("scanner").path)
        let daemon = try await Self.daemon(source: "serial:\(pty.link),reader=R1", logLevel: .trace)
        let events = Locked<[String]>([])
        let opened = Locked(false)
        let follower = Task {
            for try await event in daemon.client.events(onOpen: { opened.withValue { $0 = true } }) {
                events.withValue { $0.append("\(event.type) \(event.data)") }
            }
        }
        try await waitUntil("subscribed") { opened.withValue { $0 } }
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.slipped))
        _ = try await readsAfterTheCardArrives(daemon)
        pty.write(ScannedSpecimen.desko(ScannedSpecimen.wrongCheckDigit))
        pty.write([0x02] + Array("GARBAGE".utf8) + [0x02])
        try await waitUntil("the events arrive") {
            let seen = events.withValue { $0 }
            return seen.contains { $0.hasPrefix("mrz.captured") } && seen.count { $0.hasPrefix("mrz.rejected") } == 2
                && seen.contains { $0.hasPrefix("read.finished") }
        }
        let metrics = try await daemon.client.send(.get, "/metrics")
        let texts = ["logs": daemon.logs.text, "events": events.withValue { $0.joined(separator: "\n") },
                     "metrics": String(decoding: metrics.body, as: UTF8.self)]
        #expect(texts["logs"]!.contains("MRZ captured"))
        // Counts only: one captured (and corrected), one rejected, one line error.
        for line in ["mrtdd_mrz_total{outcome=\"captured\"} 1", "mrtdd_mrz_total{outcome=\"corrected\"} 1",
                     "mrtdd_mrz_total{outcome=\"rejected\"} 1", "mrtdd_mrz_total{outcome=\"lineError\"} 1"] {
            #expect(texts["metrics"]!.contains(line), "\(line)")
        }
        for (name, text) in texts {
            for secret in ScannedSpecimen.secrets {
                #expect(!text.contains(secret), "\(name) hold MRZ content")
            }
        }
        follower.cancel()
        try await daemon.stop()
    }

    /// A name on the data page that is not DG1's (a misread or a forged page: no check digit covers
    /// it, the key is the same): the chip opens, `checks.mrzMatch` fails naming the field and no
    /// value, and the read is `invalid` (BSI TR-03105-5.1 LDS_B_11). The same MRZ given as a
    /// request's full `access.mrz` is compared the same way; an `mrzKey` request has no page MRZ.
    @Test func aNameThatIsNotDG1sMakesTheReadInvalid() async throws {
        let daemon = try await TestDaemon.start(readers: ["R1"])
        let misread = [ScannedSpecimen.lines[0].replacingOccurrences(of: "ERIKSSON", with: "ERIKSSOM"), ScannedSpecimen.lines[1]]
        let submission = try await daemon.client.pushMRZ(MRZPushRequest(mrz: misread.joined(separator: "\n"), reader: "R1"))
        #expect(submission.corrections.isEmpty)
        #expect(daemon.backend.insert(try Specimens.passport(), into: "R1"))
        let view = try await daemon.waitFinished(submission.job.id)
        #expect(view.result?.status == .invalid)
        #expect(view.result?.checks.passiveAuthentication.result == .passed)
        #expect(view.result?.checks.accessKeyMatch?.result == .passed)
        #expect(view.result?.checks.mrzMatch == .init(
            result: .failed, reason: "dg1DiffersFromScannedMRZ", detail: "DG1 differs from the MRZ of the data page in: primaryIdentifier"))

        let typed = try await daemon.client.createRead(.init(reader: "R1", access: .init(mrz: misread.joined(separator: "\n"))), wait: true)
        #expect(typed.result?.status == .invalid)
        #expect(typed.result?.checks.mrzMatch?.reason == "dg1DiffersFromScannedMRZ")
        let right = try await daemon.client.createRead(.init(reader: "R1", access: .init(mrz: SpecimenDocument.erikssonMRZ)), wait: true)
        #expect(right.result?.status == .valid)
        #expect(right.result?.checks.mrzMatch?.result == .passed)
        let keyOnly = try await daemon.client.createRead(.init(reader: "R1", access: Specimens.access), wait: true)
        #expect(keyOnly.result?.status == .valid)
        #expect(keyOnly.result?.checks.mrzMatch == nil)
        try await daemon.stop()
    }

    @Test func pushedMRZStartsTheCallersRead() async throws {
        let daemon = try await TestDaemon.start(readers: ["R1"])
        let body = try JSONEncoder().encode(MRZPushRequest(mrz: ScannedSpecimen.slipped.joined(separator: "\n"), reader: "R1"))
        let answer = try await daemon.client.send(.post, "/v1/mrz", json: Array(body))
        let submission = try answer.decode(MRZSubmission.self)
        #expect(submission.format == "TD3")
        #expect(submission.corrections.map(\.pair) == ["O/0"])
        #expect(daemon.backend.insert(try Specimens.passport(), into: "R1"))
        let view = try await daemon.waitFinished(submission.job.id)
        #expect(view.result?.checks.mrzMatch?.result == .passed)

        let wrong = try JSONEncoder().encode(MRZPushRequest(mrz: ScannedSpecimen.wrongCheckDigit.joined(separator: "\n")))
        let refused = try await daemon.client.send(.post, "/v1/mrz", json: Array(wrong))
        #expect(refused.status == 422)
        #expect(String(decoding: refused.body, as: UTF8.self).contains("mrzCheckDigitsWrong"))
        let unknown = try await daemon.client.send(.post, "/v1/mrz", json: Array(#"{"mrz":"x","key":"y"}"#.utf8))
        #expect(unknown.status == 400)
        try await daemon.stop()
    }
}

/// `struct input_event` records as a keyboard-wedge scanner produces them (US layout).
enum KeyEvents {
    static func record(_ time: Int64, type: UInt16, code: UInt16, value: Int32) -> [UInt8] {
        func le<T: FixedWidthInteger>(_ v: T) -> [UInt8] { (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        return le(time / 1_000_000) + le(time % 1_000_000) + le(type) + le(code) + le(value)
    }

    static func typing(_ lines: [String], gapMs: Int64) -> [UInt8] {
        let letters: [Character: UInt16] = [
            "Q": 16, "W": 17, "E": 18, "R": 19, "T": 20, "Y": 21, "U": 22, "I": 23, "O": 24, "P": 25,
            "A": 30, "S": 31, "D": 32, "F": 33, "G": 34, "H": 35, "J": 36, "K": 37, "L": 38,
            "Z": 44, "X": 45, "C": 46, "V": 47, "B": 48, "N": 49, "M": 50,
        ]
        var time: Int64 = 1_700_000_000_000_000
        var out: [UInt8] = []
        func press(_ code: UInt16, shift: Bool) {
            time += gapMs * 1000
            if shift { out += record(time, type: 1, code: 42, value: 1) }
            out += record(time, type: 1, code: code, value: 1) + record(time, type: 1, code: code, value: 0)
            if shift { out += record(time, type: 1, code: 42, value: 0) }
        }
        for line in lines {
            for c in line {
                if c == "<" { press(51, shift: true) }
                else if c == "0" { press(11, shift: false) }
                else if let digit = c.wholeNumberValue { press(UInt16(1 + digit), shift: false) }
                else { press(letters[c]!, shift: true) }
            }
            press(28, shift: false)
        }
        return out
    }
}
