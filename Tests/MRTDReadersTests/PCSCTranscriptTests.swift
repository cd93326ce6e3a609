import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders
import MRTDTranscript

/// Transcripts recorded through real pcscd + vpcd (docs/transcripts.md): they replay byte for
/// byte to the same result, and a transcript edited by one byte fails at that exchange.
extension PCSCHardwareLoopTests {
    @Test func aReadRecordedThroughPcscdReplaysIdenticallyAndAnEditedByteFailsAtItsExchange() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(card, events: events)
            let connection = try await backend.connect(reader: Self.reader)
            let options = ReadOptions(accessKey: .mrz(Support.key), dataGroups: [1, 2, 14, 15])
            let recorded = await Transcript.record(
                transport: connection,
                reader: .init(name: connection.reader.name, backend: connection.reader.backend.rawValue, capabilities: connection.capabilities),
                atr: connection.atr, options: options)
            await connection.close()
            await card.remove()
            await events.stop()
            #expect(recorded.read.result.status == .unverified, "\(String(describing: recorded.read.result.error))")
            #expect(recorded.transcript.exchanges.count == recorded.read.result.transport.apdus)
            #expect(recorded.transcript.atr == card.atr.hex)
            #expect(recorded.transcript.reader.backend == "pcsc")

            // Through a file, as `mrtdctl read --record` and `mrtdctl replay` do.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-pcsc-transcript-\(UUID().uuidString.prefix(8))")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("read.json")
            try recorded.transcript.json().write(to: file)
            let transcript = try Transcript(json: Data(contentsOf: file))
            #expect(transcript == recorded.transcript)

            let replay = try await transcript.replay()
            #expect(replay.mismatch == nil)
            #expect(replay.unusedExchanges == 0)
            #expect(replay.resultMatches)
            #expect(replay.read.result.withoutTimings == recorded.read.result.withoutTimings)
            let sameFiles = replay.read.files == recorded.read.files
            #expect(sameFiles)

            // One command byte flipped in the file: the replay stops at that exchange, naming both commands.
            let count = transcript.exchanges.count
            for index in [0, 3, count / 2, count - 1] {
                let edited = try Self.flip(file: file, into: directory, exchange: index, field: "command")
                let run = try await edited.replay()
                let mismatch = try #require(run.mismatch, "exchange \(index): the edited command went unnoticed")
                let original = try #require([UInt8](hex: transcript.exchanges[index].command))
                #expect(mismatch.index == index)
                #expect(mismatch.actual == original)
                #expect(mismatch.expected == [UInt8](hex: edited.exchanges[index].command))
                #expect(mismatch.expected != original)
                #expect(mismatch.description == "exchange \(index): expected command \(edited.exchanges[index].command), got \(original.hex)")
                #expect(run.read.result.status == .failed)
                #expect(!run.resultMatches)
            }

            // One response byte flipped in the BAC answer (EXTERNAL AUTHENTICATE): the chip's MAC
            // fails there and the read ends at that exchange.
            let bac = try #require(transcript.exchanges.firstIndex { $0.command.hasPrefix("0082") })
            let badBAC = try await Self.flip(file: file, into: directory, exchange: bac, field: "response").replay()
            #expect(badBAC.read.result.status == .failed)
            #expect(badBAC.read.result.error?.code == .authenticationFailed)
            #expect(badBAC.read.result.transport.apdus == bac + 1)
            #expect(badBAC.mismatch == nil)

            // One response byte flipped inside secure messaging (the last READ BINARY): the MAC check
            // fails at that exchange. The read re-authenticates once (docs/reliability.md); the
            // recording has no such command, so the replay's first difference is the next exchange.
            let protected = count - 1
            let run = try await Self.flip(file: file, into: directory, exchange: protected, field: "response").replay()
            #expect(run.read.result.status == .failed)
            #expect(run.read.result.error?.code == .secureMessagingMACInvalid)
            #expect(run.read.result.transport.recoveries.first?.kind == "secureMessagingMACInvalid")
            #expect(run.mismatch?.index == protected + 1)
            #expect(run.read.result.transport.apdus == protected + 2)
            #expect(!run.resultMatches)
        }
    }

    /// Flips one bit of the middle byte of `field` of exchange `index` in the transcript file, writes
    /// the edited file beside it and loads it back.
    static func flip(file: URL, into directory: URL, exchange index: Int, field: String) throws -> Transcript {
        var transcript = try Transcript(json: Data(contentsOf: file))
        let hex = field == "command" ? transcript.exchanges[index].command : transcript.exchanges[index].response
        var bytes = try #require([UInt8](hex: hex))
        // The middle byte: the data (or MAC) of protected APDUs, a header byte of short plain ones.
        bytes[bytes.count / 2] ^= 0x01
        if field == "command" { transcript.exchanges[index].command = bytes.hex } else { transcript.exchanges[index].response = bytes.hex }
        let edited = directory.appendingPathComponent("edited-\(field)-\(index).json")
        try transcript.json().write(to: edited)
        return try Transcript(json: Data(contentsOf: edited))
    }
}
