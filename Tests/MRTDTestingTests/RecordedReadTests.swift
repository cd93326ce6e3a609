import Foundation
import MRTDCore
import MRTDProtocol
import MRTDReaders
import MRTDTesting
import Testing
import MRTDSimulation
import MRTDTranscript

/// `Transcript.read`: the one recorded read behind `mrtdctl read --record` and the daemon's
/// `record-directory`; and `ReaderBackendFactory`, the one place backends are made from their kinds.
@Suite struct RecordedReadTests {
    static func chip() throws -> (VirtualChip, ReadOptions) {
        let specimen = try SpecimenDocument.make()
        let key = try MRZ(SpecimenDocument.erikssonMRZ).accessKey
        return (VirtualChip(configuration: .init(files: specimen.files, accessKey: key)), ReadOptions(accessKey: .mrz(key)))
    }

    static func reader(_ chip: VirtualChip) -> Transcript.Reader {
        .init(name: "virtual", backend: "virtual", capabilities: chip.capabilities)
    }

    @Test func withoutRecordingItIsAPlainReadAndNoTranscript() async throws {
        let (chip, options) = try Self.chip()
        let (read, transcript) = await Transcript.read(.single(chip), reader: Self.reader(chip), options: options, recording: false)
        #expect(transcript == nil)
        #expect(read.result.status == .unverified)
        #expect(read.files[.dg(1)] != nil)
    }

    @Test func aSingleLinkRecordingReplaysToTheSameResult() async throws {
        let (chip, options) = try Self.chip()
        let (read, transcript) = await Transcript.read(.single(chip), reader: Self.reader(chip), options: options, recording: true)
        let recorded = try #require(transcript)
        #expect(recorded.reconnecting == nil)
        #expect(recorded.exchanges.count == read.result.transport.apdus)
        let replay = try await recorded.replay()
        #expect(replay.mismatch == nil && replay.resultMatches)
    }

    @Test func aReconnectingRecordingIsMarkedSoAndReplays() async throws {
        let (chip, options) = try Self.chip()
        let (read, transcript) = await Transcript.read(
            .reconnecting({ chip }), reader: Self.reader(chip), options: options, recording: true)
        let recorded = try #require(transcript)
        #expect(recorded.reconnecting == true)
        #expect(read.files[.dg(2)] != nil)
        #expect(try await recorded.replay().resultMatches)
    }

    @Test func theFactoryMakesTheDirectBackendsInOrderAndNoVirtualOne() {
        #expect(ReaderBackendFactory.directKinds == [.pcsc, .libnfc])
        #expect(ReaderBackendFactory.make(ReaderBackendFactory.directKinds).map(\.kind) == [.pcsc, .libnfc])
        #expect(ReaderBackendFactory.make([.virtual, .libnfc]).map(\.kind) == [.libnfc])
        #expect(ReaderBackendFactory.make(.virtual) == nil)
    }
}
