import FuzzSpecimen
import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import MRTDSimulation
import MRTDTranscript

/// A reader answering every command with the next response of the input (`[u16 len][R-APDU]…`),
/// whatever the command, then losing the card: status words of every kind (61xx, 6Cxx, 6282, 6700,
/// short and empty responses) drive SELECT, BAC and the reads. The reader trusts the TEST-ONLY
/// CSCA and its random is fixed, so a recorded session of the specimen (the seed `specimen_session`)
/// replays to `valid`. No trap, bounded APDUs, a failure with a stable error code, and `valid` only
/// with the specimen's signed LDSSecurityObject and DG1 and DG2 as signed.
@main enum FuzzAPDUTransport {
    static func main() {
        if FuzzSeeds.writeIfAsked({
            var altered = specimen.files
            altered[.dg(2)]![altered[.dg(2)]!.count - 3] ^= 0x01
            return ["specimen_session": [0] + (try recordedSession(specimen.files, expecting: .valid)),
                    "specimen_session_dg2_altered": [0] + (try recordedSession(altered, expecting: .invalid))]
        }) { return }
        FuzzDriver.run(test)
    }

    final class StreamTransport: APDUTransport, @unchecked Sendable {
        var responses: [[UInt8]]
        var next = 0
        let capabilities: TransportCapabilities
        init(responses: [[UInt8]], extended: Bool) {
            self.responses = responses
            capabilities = extended ? .extended : .shortOnly
        }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            guard next < responses.count else { throw TransportError.cardRemoved }
            defer { next += 1 }
            return responses[next]
        }
    }

    struct FixedRandom: RandomSource {
        func randomBytes(_ count: Int) throws -> [UInt8] { Array(repeating: 0xA5, count: count) }
    }

    static let key = FuzzSpecimen.key
    static let specimen = FuzzSpecimen.document
    static let options = ReadOptions(accessKey: .mrz(key), trustStore: FuzzSpecimen.trustStore)

    /// A seed: the virtual chip's answers to a whole read of `files` (the specimen, or the specimen
    /// with a byte of its face image altered after signing, which only a broken hash check would let
    /// pass).
    static func recordedSession(_ files: [LDSFile: [UInt8]], expecting: ReadResult.Status) throws -> [UInt8] {
        // Short APDUs, as the seed's first byte (0) has the replay's reader.
        let chip = VirtualChip(configuration: VirtualChipConfiguration(
            files: files, accessKey: key, extendedLength: false, random: FixedRandom()))
        let recorder = RecordingTransport(chip)
        let status = runBlocking { await DocumentReader.read(transport: recorder, options: options, random: FixedRandom()).result.status }
        guard status == expecting else { throw TransportError.readerUnavailable("the recorded read was \(status), not \(expecting)") }
        return FuzzSeeds.chunks([], recorder.exchanges.map(\.response))
    }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let extended = input.bool()
        var responses: [[UInt8]] = []
        while !input.isEmpty { responses.append(input.chunk()) }
        let transport = StreamTransport(responses: responses, extended: extended)
        let read = runBlocking {
            await DocumentReader.read(transport: transport, options: options, random: FixedRandom())
        }
        let result = read.result
        FuzzSpecimen.checkValidOnlyWhenSigned(read)
        fuzzCheck(result.transport.apdus <= responses.count + 1, "more APDUs than responses")
        fuzzCheck(result.status != .failed || result.error != nil, "a failure without an error code")
        return 0
    }
}
