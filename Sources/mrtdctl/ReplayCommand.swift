import ArgumentParser
import FoundationEssentials
import MRTDCore
import MRTDSimulation
import MRTDTranscript
import MRTDProtocol
import MRTDPlatform

struct Replay: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a recorded session (mrtd-transcript/1) through the live read code path.",
        discussion: """
            Every command the reader code sends must equal the recorded one byte for byte; the first \
            difference stops the replay with its exchange index and both commands (exit 1). On success \
            the result model is printed; it must equal the recorded result apart from timings (exit 1 \
            when it does not). Transcripts contain the access key: they are personal data.
            """)

    @Argument(help: "The transcript file (written by `mrtdctl read --record FILE`).")
    var file: String

    @Flag(help: "Print the result model as JSON.")
    var json = false

    @OptionGroup(title: "Trust (passive authentication of the replayed files; give what the recorded read trusted)")
    var trust: TrustOptions

    func run() async throws {
        let data: Data
        do {
            data = Data(try FileContents.read(file))
        } catch {
            throw ValidationError("cannot read \(file): \(error.reason)")
        }
        let transcript: Transcript
        do {
            transcript = try Transcript(json: data)
        } catch let error as Transcript.Error {
            throw ValidationError("\(file): \(error)")
        } catch {
            throw ValidationError("\(file) is not a transcript: \(error)")
        }
        let store = try trust.store()
        let replay = try await transcript.replay { $0.trustStore = store }
        if let mismatch = replay.mismatch {
            printError("replay: \(mismatch)")
            throw ExitStatus.readFailed
        }
        print(json ? try ResultPrinter.json(replay.read.result) : ResultPrinter.summary(replay.read.result))
        if replay.unusedExchanges > 0 {
            printError("replay: the read ended with \(replay.unusedExchanges) recorded exchange(s) unused")
            throw ExitStatus.readFailed
        }
        if !replay.resultMatches {
            printError("replay: the result differs from the recorded one")
            throw ExitStatus.readFailed
        }
    }
}

func printError(_ message: String) {
    StandardError.write(message + "\n")
}
