import ArgumentParser
import MRTDClient
import MRTDCore
import MRTDPlatform

/// `mrtdctl mrz push`: hand the daemon an MRZ read by the caller's own OCR (docs/kiosk.md).
struct MRZCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrz", abstract: "MRZs for the daemon's automatic reads (docs/kiosk.md).", subcommands: [Push.self])

    struct Push: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read an MRZ from standard input (never the command line: argv is public) and start its read.",
            discussion: """
                The lines come on standard input, ended by end of file. The daemon checks the check digits \
                (one look-alike slip, O/0 I/1 B/8 S/5 Z/2, corrected when exactly one correction makes them \
                right) and starts a read of yours that waits for the card; the job id is printed.
                """)
        @OptionGroup var daemon: DaemonOptions
        @Option(help: "Pair with this reader only (default: any reader).") var reader: String?

        func run() async throws {
            var lines: [String] = []
            while let line = readLine(), lines.count < 8 { lines.append(line) }
            let text = lines.joined(separator: "\n").trimmingWhitespace()
            guard !text.isEmpty else { throw ValidationError("no MRZ on standard input") }
            let submission = try await reportingDaemonErrors {
                try await daemon.client.pushMRZ(MRZPushRequest(mrz: text, reader: reader))
            }
            for correction in submission.corrections {
                print("corrected: \(correction.field) (line \(correction.line), column \(correction.column)): \(correction.pair)")
            }
            print("\(submission.job.id): \(submission.job.state.rawValue) (\(submission.format); place the document)")
        }
    }
}
