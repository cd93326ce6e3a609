import ArgumentParser
import FoundationEssentials
import MRTDCore
import MRTDVerification
import MRTDPlatform

/// `mrtdctl verify`: passive authentication of saved files, offline.
struct Verify: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a saved document offline (passive authentication).",
        discussion: """
            Give a directory written by `mrtdctl read --dump` (EF_COM.bin, EF_SOD.bin, DG1.bin, …, \
            EF_CardSecurity.bin), or the files one by one with --sod, --com, --dg N=FILE and \
            --card-security. With only an SOD the signature and certificate chain are checked and \
            data group hashes are reported as notRead. A dump's result.json (written by read --dump) \
            gives the chip's Active Authentication answer, verified here with DG15's key, and what the \
            reader saw of Chip and Terminal Authentication (a failure is kept, a pass is not provable \
            offline); with it, a dump whose SOD signs DG15 and that holds no Active Authentication \
            fails it (activeAuthenticationRequired), as the read did. Files without result.json carry no \
            Active Authentication and are judged on passive authentication and the inspection checks. The status is decided as for a live \
            read (docs/verification.md, "The verdict"). Prints the same result model as `read`. \
            Exit status: 0 valid or unverified (no --trust), 4 invalid, 1 unreadable input, 64 usage error.
            """)

    @Argument(help: "A directory of dumped files (EF_SOD.bin, DG1.bin, ...).")
    var directory: String?

    @Option(help: "The EF.SOD file.")
    var sod: String?

    @Option(help: "The EF.COM file.")
    var com: String?

    @Option(name: .customLong("dg"), help: ArgumentHelp("A data group file as N=FILE (e.g. 1=DG1.bin). Repeatable.", valueName: "N=FILE"))
    var dataGroups: [String] = []

    @Option(name: .customLong("card-security"), help: "The EF.CardSecurity file.")
    var cardSecurity: String?

    @OptionGroup(title: "Trust")
    var trust: TrustOptions

    @Flag(help: "Print the result model as JSON.")
    var json = false

    @Option(name: .customLong("mrz-key"), help: ArgumentHelp(
        "The MRZ key the chip was opened with, DOCNO,YYMMDD,YYMMDD (birth, expiry): compared with DG1 (accessKeyMatch).",
        valueName: "KEY"))
    var mrzKeyText: String?

    func validate() throws {
        if (directory == nil) == (sod == nil) { throw ValidationError("give either a dump DIRECTORY or --sod FILE") }
    }

    func run() throws {
        let files = try loadFiles()
        let store = try trust.store()
        let start = ContinuousClock.now
        let report = PassiveAuthentication.verify(files: files, trustStore: store)
        let elapsed = ContinuousClock.now - start
        let parsed = ParsedDataGroups(files: files)
        var result = ReadResult.assemble(
            files: files, parsed: parsed, access: nil, applications: nil, skipped: [], transport: TransportReport(),
            durationMs: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        let reader = try readerResult()
        let answer = reader.flatMap { EvidenceBundle.ActiveAuthenticationEvidence(check: $0.checks.activeAuthentication) }
        result.checks.activeAuthentication = answer.map {
            EvidenceVerification.activeAuthentication($0, files: files, expectedChallenge: nil)
        } ?? .notPerformed(files[.dg(15)] == nil ? "noDG15" : "notInDump")
        if let reader {
            result.checks.takeReaderReported(
                chipAuthentication: reader.checks.chipAuthentication.result == .notPerformed ? nil : reader.checks.chipAuthentication,
                terminalAuthentication: reader.checks.terminalAuthentication)
        } else {
            result.checks.chipAuthentication = .notPerformed("notInDump")
        }
        result.verify(report: report, parsed: parsed, accessKey: try mrzKey(), trustStore: store,
                      activeAuthentication: reader == nil ? .none : .whenSigned)
        print(json ? try ResultPrinter.json(result) : ResultPrinter.summary(result))
        if result.status == .invalid { throw ExitStatus.invalidDocument }
    }

    /// `read --dump` writes the read's result model beside the files.
    static let readerResultFile = "result.json"

    /// The reader's result from a dump (`result.json`), when there is one.
    private func readerResult() throws -> ReadResult? {
        guard let directory else { return nil }
        let path = PathString.join(directory, Self.readerResultFile)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(ReadResult.self, from: Data(try read(path)))
        } catch let error as ValidationError {
            throw error
        } catch {
            throw ValidationError("\(path) is not a result of mrtdctl read --dump")
        }
    }

    private func mrzKey() throws -> MRZKey? {
        guard let mrzKeyText else { return nil }
        do { return try MRZKey(parsing: mrzKeyText) } catch {
            throw ValidationError("--mrz-key: \(error)")
        }
    }

    private func loadFiles() throws -> [LDSFile: [UInt8]] {
        var files: [LDSFile: [UInt8]] = [:]
        if let directory {
            let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            for name in names where name.hasSuffix(".bin") {
                guard let file = LDSFile(name: String(name.dropLast(4))) else { continue }
                files[file] = try read(PathString.join(directory, name))
            }
            guard files[.sod] != nil else { throw ValidationError("\(directory) holds no EF_SOD.bin") }
        }
        if let sod { files[.sod] = try read(sod) }
        if let com { files[.com] = try read(com) }
        if let cardSecurity { files[.cardSecurity] = try read(cardSecurity) }
        for entry in dataGroups {
            let parts = entry.split(separator: "=", maxSplits: 1)
            let label = parts.first.map { $0.uppercased().hasPrefix("DG") ? String($0.dropFirst(2)) : String($0) } ?? ""
            guard parts.count == 2, let n = Int(label), (1...16).contains(n) else {
                throw ValidationError("--dg \(entry): expected N=FILE with N in 1...16")
            }
            files[.dg(n)] = try read(String(parts[1]))
        }
        return files
    }

    private func read(_ path: String) throws -> [UInt8] {
        do {
            return try FileContents.read(path)
        } catch {
            throw ValidationError("cannot read \(path): \(error.reason)")
        }
    }
}
