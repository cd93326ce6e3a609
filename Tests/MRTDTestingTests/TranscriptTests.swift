import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import Testing
import MRTDSimulation
import MRTDTranscript

@Suite struct TranscriptTests {
    static func recorded(extendedLength: Bool) async throws -> Transcript {
        let specimen = try SpecimenDocument.make()
        let key = try MRZ(SpecimenDocument.erikssonMRZ).accessKey
        let chip = VirtualChip(configuration: .init(files: specimen.files, accessKey: key, extendedLength: extendedLength))
        let options = ReadOptions(accessKey: .mrz(key), reader: .init(preferExtendedLength: extendedLength))
        let (read, transcript) = await Transcript.record(
            transport: chip, reader: .init(name: "virtual", backend: "virtual", capabilities: chip.capabilities),
            options: options)
        #expect(read.result.status != .failed)
        return transcript
    }

    @Test(arguments: [true, false])
    func aRecordedReadReplaysByteForByteWithTheSameResult(extendedLength: Bool) async throws {
        let transcript = try await Self.recorded(extendedLength: extendedLength)
        #expect(transcript.exchanges.count == transcript.result.transport.apdus)
        #expect(!transcript.random.isEmpty)

        let reloaded = try Transcript(json: try transcript.json())
        #expect(reloaded == transcript)

        let replay = try await reloaded.replay()
        #expect(replay.mismatch == nil)
        #expect(replay.unusedExchanges == 0)
        #expect(replay.resultMatches)
        #expect(replay.read.files[.dg(2)] != nil)
    }

    /// Issue 29: a caller's Active Authentication challenge is part of the recorded options (it is
    /// not drawn from the random source), so the replay sends the same INTERNAL AUTHENTICATE.
    @Test func aCallersActiveAuthenticationChallengeIsRecordedAndReplayed() async throws {
        let fixture = try AuthenticationFixture.make(
            activeAuthentication: .ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true))
        let key = try MRZ(SpecimenDocument.erikssonMRZ).accessKey
        var configuration = VirtualChipConfiguration(files: try fixture.specimen().files, accessKey: key)
        configuration.authentication = fixture.chip
        let chip = VirtualChip(configuration: configuration)
        var options = ReadOptions(accessKey: .mrz(key))
        options.activeAuthenticationChallenge = [1, 2, 3, 4, 5, 6, 7, 8]
        let (read, transcript) = await Transcript.record(
            transport: chip, reader: .init(name: "virtual", backend: "virtual", capabilities: chip.capabilities),
            options: options)
        #expect(read.result.checks.activeAuthentication.challenge == "0102030405060708")
        #expect(transcript.options.activeAuthenticationChallenge == "0102030405060708")
        let reloaded = try Transcript(json: try transcript.json())
        #expect(try reloaded.readOptions().activeAuthenticationChallenge == [1, 2, 3, 4, 5, 6, 7, 8])
        let replay = try await reloaded.replay()
        #expect(replay.mismatch == nil)
        #expect(replay.resultMatches)
        #expect(replay.read.result.checks.activeAuthentication.challengeSource == "caller")
        // A transcript whose challenge is not 8 bytes of hex is refused, not replayed with another.
        var broken = reloaded
        broken.options.activeAuthenticationChallenge = "0102"
        #expect(throws: Transcript.Error.self) { try broken.readOptions() }
    }

    @Test func aRecordingMadeBeforeTheInspectionChecksStillReplaysAsAMatch() async throws {
        var transcript = try await Self.recorded(extendedLength: true)
        #expect(transcript.result.checks.dataGroupStructure?.result == .passed)
        #expect(transcript.result.warnings.contains("documentExpired"))
        // As an older mrtdd recorded it: no TR-03135 checks, no warning from them.
        transcript.result.checks = ReadResult.Checks(
            passiveAuthentication: transcript.result.checks.passiveAuthentication,
            chipAuthentication: transcript.result.checks.chipAuthentication,
            activeAuthentication: transcript.result.checks.activeAuthentication)
        transcript.result.warnings.removeAll { $0 == "documentExpired" }
        let old = try Transcript(json: try transcript.json())
        #expect(try await old.replay().resultMatches)
        // A real difference still shows.
        var changed = old
        changed.result.status = .invalid
        #expect(try await !changed.replay().resultMatches)
    }

    @Test func aCommandThatDiffersStopsTheReplayAtItsIndex() async throws {
        let transcript = try await Self.recorded(extendedLength: true)
        // Short reads change the first READ BINARY (Le=00 instead of Le=0000).
        let replay = try await transcript.replay { $0.reader.preferExtendedLength = false }
        guard let mismatch = replay.mismatch else {
            Issue.record("the replay with other options did not notice the different commands")
            return
        }
        let firstRead = transcript.exchanges.firstIndex { [UInt8](hex: $0.command)?[1] == 0xB0 }
        #expect(mismatch.index == firstRead)
        #expect(mismatch.expected != mismatch.actual)
        #expect(replay.read.result.status == .failed)
        #expect(!replay.resultMatches)
    }

    @Test func aResponseEditedByOneByteBreaksTheSecureMessagingAtThatExchange() async throws {
        var transcript = try await Self.recorded(extendedLength: true)
        let index = transcript.exchanges.count - 1
        var response = try #require([UInt8](hex: transcript.exchanges[index].response))
        response[response.count / 2] ^= 0x01
        transcript.exchanges[index].response = response.hex
        let replay = try await transcript.replay()
        #expect(replay.read.result.status == .failed)
        #expect(replay.read.result.error?.code == .secureMessagingMACInvalid)
        // The read re-authenticates once after a bad MAC (docs/reliability.md); the recording has no
        // such command, so the replay stops at the next index.
        #expect(replay.mismatch?.index == index + 1)
        #expect(replay.read.result.transport.apdus == index + 2)
        #expect(replay.read.result.transport.recoveries.map(\.kind) == ["secureMessagingMACInvalid", "reauthenticationFailed"])
    }

    /// Every link failure a transcript can hold replays as that failure, its code read back from
    /// the one registry (`TransportError.code`); `commandTooLong` with the recorded reader's limit.
    /// Before: the codec spelled the codes itself and had no way back for `commandTooLong` (the
    /// transcript was refused as "unknown").
    @Test(arguments: ["cardRemoved", "chipTimeout", "readerUnavailable", "readerServiceFailure", "commandTooLong"])
    func everyLinkFailureReplaysAsItself(_ code: String) async throws {
        var transcript = try await Self.recorded(extendedLength: false)
        let last = transcript.exchanges.count - 1
        transcript.exchanges[last].response = ""
        transcript.exchanges[last].error = code
        let script = try Transcript(json: try transcript.json()).script()
        for exchange in transcript.exchanges.dropLast() {
            _ = try await script.transmit(try #require([UInt8](hex: exchange.command)))
        }
        let command = try #require([UInt8](hex: transcript.exchanges[last].command))
        do {
            _ = try await script.transmit(command)
            Issue.record("the recorded \(code) was not replayed")
        } catch let error as TransportError {
            #expect(error.code == code)
            if case .commandTooLong(let n, let max) = error {
                #expect(n == command.count && max == transcript.reader.capabilities.maxCommandLength)
            }
        }
    }

    @Test func anUnknownFormatIsRefusedByName() throws {
        let json = Data(#"{"format":"mrtd-transcript/9"}"#.utf8)
        #expect(throws: (any Error).self) { try Transcript(json: json) }
    }
}
