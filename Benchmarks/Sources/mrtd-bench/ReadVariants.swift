import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDSimulation
import MRTDTranscript

/// One way of reading the specimen: a chip configuration, the options the terminal reads with, and
/// what the access protocol is (for the crypto floor).
struct ReadVariant: Sendable {
    /// The access protocol and its parameters.
    enum Access: Sendable {
        case bac
        /// PACE with these parameters (AES-128 session keys in every variant the harness builds).
        case pace(PACEInfo)
    }

    var name: String
    var chip: VirtualChipConfiguration
    var options: ReadOptions
    var access: Access
    /// The EAC terminal of a Terminal Authentication variant (its key is the TA floor's).
    var terminal: EACTestSet? = nil
}

/// A read recorded once against the virtual chip: replaying it measures the terminal's side alone
/// (the virtual chip's own crypto is not counted).
struct RecordedRead {
    var variant: ReadVariant
    var exchanges: [ScriptedTransport.Exchange]
    var random: [UInt8]
    var result: ReadResult
    var files: [LDSFile: [UInt8]]

    static func record(_ variant: ReadVariant) async throws -> RecordedRead {
        let chip = VirtualChip(configuration: variant.chip)
        let recorder = RecordingTransport(chip)
        let random = RecordingRandom(SystemRandom())
        let read = await DocumentReader.read(transport: recorder, options: variant.options, random: random)
        guard read.result.status != .failed else {
            throw BenchError.readFailed(variant.name, read.result.error?.code.rawValue ?? "?")
        }
        return RecordedRead(variant: variant, exchanges: recorder.exchanges, random: random.recorded, result: read.result,
                            files: read.files)
    }

    /// One terminal-side read over the recording; fails if the replay diverges.
    func replay() async throws {
        let script = ScriptedTransport(exchanges, capabilities: variant.chip.extendedLength ? .extended : .shortOnly)
        let read = await DocumentReader.read(transport: script, options: variant.options, random: ScriptedRandom(random))
        if let mismatch = script.firstMismatch { throw BenchError.replayDiverged(variant.name, mismatch.index) }
        guard read.result.status == result.status else { throw BenchError.readFailed(variant.name, "replay") }
    }

    var wireBytes: Int { result.transport.bytesSent + result.transport.bytesReceived }
}

enum BenchError: Error, CustomStringConvertible {
    case readFailed(String, String)
    case replayDiverged(String, Int)
    case check(String)
    var description: String {
        switch self {
        case .readFailed(let v, let code): return "\(v): read failed (\(code))"
        case .replayDiverged(let v, let i): return "\(v): replay diverged at exchange \(i)"
        case .check(let what): return what
        }
    }
}
