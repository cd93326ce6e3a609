import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing
@testable import MRTDDaemon
import HTTPTypes
import MRTDTranscript
import MRTDClient
import MRTDSimulation

/// `record-directory`: the daemon writes one `mrtd-transcript/1` file per chip session, which
/// replays through the live read code path to the same result.
@Suite(.serialized) struct SessionRecordingTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-record-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    static func files(in directory: URL) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test func everySessionIsWrittenWithMode0600AndReplaysToTheSameResult() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let daemon = try await TestDaemon.start { $0.recordDirectory = directory.path }
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        // A failed read (wrong access key) is a session too.
        let failed = try await daemon.client.createRead(.init(access: Specimens.wrongAccess), wait: true)
        #expect(done.state == .done)
        #expect(failed.state == .failed)
        await daemon.daemon.transcripts?.drain()

        let files = try Self.files(in: directory)
        #expect(files.count == 2)
        #expect(daemon.daemon.metrics.transcripts == (written: 2, failed: 0))
        for (file, job) in zip(files, [done, failed]) {
            // Named by time and job id: nothing from the document.
            #expect(file.lastPathComponent.hasSuffix("-\(job.id).json"))
            #expect(!file.lastPathComponent.contains("L898902C3"))
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

            let transcript = try Transcript(json: Data(contentsOf: file))
            #expect(transcript.access.mrzKey?.documentNumber == "L898902C3")
            #expect(transcript.reader.name == "R1")
            #expect(!transcript.random.isEmpty)
            #expect(transcript.reconnecting == true)
            #expect(transcript.result.withoutTimings == job.result?.withoutTimings)
            let store = try testTrustStore()
            let replay = try await transcript.replay { $0.trustStore = store }
            #expect(replay.mismatch == nil)
            #expect(replay.unusedExchanges == 0)
            #expect(replay.resultMatches)
            #expect(replay.read.result.withoutTimings == job.result?.withoutTimings)
        }
        let metrics = try await daemon.client.send(.get, "/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("mrtdd_transcripts_total{outcome=\"written\"} 2"))
        try await daemon.stop()
    }

    @Test func withoutTheOptionNothingIsWritten() async throws {
        let daemon = try await TestDaemon.start()
        #expect(DaemonConfiguration().recordDirectory == nil)
        #expect(daemon.daemon.transcripts == nil)
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        #expect(done.state == .done)
        // Nothing beside the socket in the daemon's directory, nothing counted.
        let runtime = URL(fileURLWithPath: (daemon.socketPath as NSString).deletingLastPathComponent)
        #expect(try Self.files(in: runtime).map(\.lastPathComponent) == ["api.sock"])
        #expect(daemon.daemon.metrics.transcripts == (written: 0, failed: 0))
        let metrics = try await daemon.client.send(.get, "/metrics")
        #expect(String(decoding: metrics.body, as: UTF8.self).contains("mrtdd_transcripts_total{outcome=\"written\"} 0"))
        try await daemon.stop()
    }

    @Test(arguments: ["missing", "file"])
    func anUnwritableDirectoryCostsAWarningNotTheRead(_ kind: String) async throws {
        let parent = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: parent) }
        let target = parent.appendingPathComponent("transcripts")
        // A path that cannot take files: a directory that does not exist, or a regular file.
        if kind == "file" { try Data("x".utf8).write(to: target) }
        let daemon = try await TestDaemon.start { $0.recordDirectory = target.path }
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        #expect(done.state == .done)
        #expect(done.result?.status == .valid)
        await daemon.daemon.transcripts?.drain()
        #expect(daemon.daemon.metrics.transcripts == (written: 0, failed: 1))
        let logs = daemon.logs.text
        #expect(logs.contains("transcript not written"))
        // The warning names the job and the reason, never the document.
        #expect(logs.contains(done.id))
        #expect(!logs.contains("L898902C3"))
        #expect(!logs.contains("740812"))
        try await daemon.stop()
    }

    @Test func anExistingFileIsNeverReplaced() throws {
        // O_CREAT|O_EXCL|O_NOFOLLOW: a name already taken (or a planted link) fails instead of truncating.
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("t.json").path
        try TranscriptDirectory.createFile(Data("{}".utf8), at: path)
        #expect(throws: TranscriptDirectory.WriteError.self) {
            try TranscriptDirectory.createFile(Data("[]".utf8), at: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("{}".utf8))
        let link = directory.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        #expect(throws: TranscriptDirectory.WriteError.self) {
            try TranscriptDirectory.createFile(Data("[]".utf8), at: link)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == Data("{}".utf8))
    }

    @Test func fileNamesCarryOnlyTimeAndJobID() {
        let name = TranscriptDirectory.fileName(job: "abc-123/../x", started: Date(timeIntervalSince1970: 1_700_000_000.25))
        #expect(name == "20231114T221320.250Z-abc-123x.json")
    }

    @Test(arguments: [("record-directory = /var/lib/mrtdd/transcripts", "/var/lib/mrtdd/transcripts"), ("record-directory =", nil)])
    func recordDirectoryIsAConfigurationKey(_ line: String, _ expected: String?) throws {
        var configuration = DaemonConfiguration()
        configuration.recordDirectory = "/before"
        try configuration.apply(file: line)
        #expect(configuration.recordDirectory == expected)
    }

    @Test func aRelativeRecordDirectoryIsRefused() {
        var configuration = DaemonConfiguration()
        #expect(throws: ConfigurationError.invalidValue("record-directory", "transcripts")) {
            try configuration.set("record-directory", "transcripts")
        }
    }
}
