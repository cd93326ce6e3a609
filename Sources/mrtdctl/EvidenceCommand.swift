import ArgumentParser
import FoundationEssentials
import MRTDClient
import MRTDCore
import MRTDPlatform
import MRTDVerification

/// `--evidence FILE` and `--disclose LIST` of `read` and `result` (docs/evidence.md).
struct EvidenceOptions: ParsableArguments {
    @Option(help: ArgumentHelp(
        "Write the read's evidence bundle (mrtd-evidence/1: EF.SOD, the data groups, the AA challenge and signature; personal data) to this file (as --face).",
        valueName: "FILE"))
    var evidence: String?

    @Option(help: ArgumentHelp(
        "With --evidence: the data groups to carry in full, comma separated (e.g. 1 for DG1 without the face); the others read are carried as their SOD hash. DG14 and DG15 are always carried. Default: all read.",
        valueName: "LIST"))
    var disclose: String?

    func validate() throws {
        if disclose != nil && evidence == nil { throw ValidationError("--disclose applies to --evidence") }
        _ = try disclosed()
    }

    /// `--disclose` as data group numbers (nil: all read).
    func disclosed() throws -> [Int]? {
        guard let disclose else { return nil }
        return try disclose.split(separator: ",").map { part in
            let name = part.trimmingSpaces().uppercased()
            guard let n = Int(name.hasPrefix("DG") ? String(name.dropFirst(2)) : name), (1...16).contains(n) else {
                throw ValidationError("--disclose: '\(part)' is not a data group number 1-16")
            }
            return n
        }
    }

    /// Writes the bundle of an in-process read (--simulate, --direct).
    func write(files: [LDSFile: [UInt8]], result: ReadResult, trustStore: TrustStore?) throws {
        guard let evidence else { return }
        let bundle: EvidenceBundle
        do {
            bundle = try EvidenceBundle.make(
                files: files, result: result, disclose: try disclosed().map(Set.init), trustStore: trustStore,
                software: .init(name: "mrtdctl", version: MRTDVersion.string))
        } catch {
            throw ValidationError("--evidence: \(error); nothing written to \(evidence)")
        }
        try PrivateOutput.write(try bundle.encoded(), toFile: evidence)
    }

    /// Fetches and writes the bundle of a daemon job.
    func write(job id: String, client: DaemonClient) async throws {
        guard let evidence else { return }
        let disclose = try disclosed()
        let bytes = try await reportingDaemonErrors { try await client.evidence(id, disclose: disclose) }
        try PrivateOutput.write(bytes, toFile: evidence)
    }
}

/// `--aa-challenge HEX` as bytes (16 hex digits).
func activeAuthenticationChallenge(_ text: String?) throws -> [UInt8]? {
    guard let text else { return nil }
    guard let bytes = ReadJobRequest.challengeBytes(text) else {
        throw ValidationError("--aa-challenge must be 16 hex digits (8 bytes)")
    }
    return bytes
}

/// `mrtdctl verify-evidence`: an evidence bundle re-verified offline from its bytes.
struct VerifyEvidence: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify-evidence",
        abstract: "Verify an evidence bundle (mrtd-evidence/1) offline.",
        discussion: """
            Re-runs passive authentication on the bundle's files against the trust given (the shipped \
            master lists unless --no-default-trust, plus --trust), checks each withheld group's hash \
            against the SOD, and the Active Authentication signature over the bundle's challenge with \
            DG15's key; with --challenge the bundle's challenge must be that one (challengeMismatch). \
            Prints the same result model as `read`. docs/evidence.md describes the format. \
            Exit status: 0 valid, 4 invalid (or unverified: no trust), 1 unreadable bundle, 64 usage error.
            """)

    @Argument(help: "The bundle file.")
    var file: String

    @OptionGroup(title: "Trust")
    var trust: TrustOptions

    @Option(help: ArgumentHelp("The challenge this party issued, 16 hex digits: the bundle's must equal it.", valueName: "HEX"))
    var challenge: String?

    @Flag(help: "Print the result model as JSON.")
    var json = false

    func validate() throws {
        if let challenge, ReadJobRequest.challengeBytes(challenge) == nil {
            throw ValidationError("--challenge must be 16 hex digits (8 bytes)")
        }
    }

    func run() throws {
        let bytes: [UInt8]
        do {
            bytes = try FileContents.read(file, limit: EvidenceBundle.maxSize)
        } catch {
            StandardError.write("mrtdctl: cannot read \(file): \(error.reason)\n")
            throw ExitStatus.readFailed
        }
        let result: ReadResult
        do {
            let bundle = try EvidenceBundle.decode(bytes)
            result = try EvidenceVerification.verify(
                bundle, trustStore: try trust.store(), expectedChallenge: challenge.flatMap(ReadJobRequest.challengeBytes))
        } catch let error as EvidenceError {
            StandardError.write(TerminalText.escaped("mrtdctl: \(error) [\(error.code)]") + "\n")
            throw ExitStatus.readFailed
        }
        print(json ? try ResultPrinter.json(result) : ResultPrinter.summary(result))
        if result.status != .valid { throw ExitStatus.invalidDocument }
    }
}
