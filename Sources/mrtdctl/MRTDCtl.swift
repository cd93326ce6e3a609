import ArgumentParser
import FoundationEssentials
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import MRTDVerification
import MRTDClient
import Glibc
import MRTDPlatform

@main
struct MRTDCtl: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mrtdctl",
        abstract: "Read and verify eMRTD chips (e-passports, ID cards).",
        discussion: """
            Exit status: 0 read completed (valid or unverified), 1 read failed, 64 usage error, \
            4 read completed but the document is invalid.
            """,
        version: MRTDVersion.string,
        subcommands: [Read.self, Readers.self, Verify.self, VerifyEvidence.self, Trust.self, Replay.self, Health.self, Events.self, Result.self, Cancel.self, Console.self, MRZCommand.self])

    /// ArgumentParser's `main`, once the process is undumpable, before anything else, for every
    /// subcommand: `read` holds access keys and `console` its token, and an undumpable process's
    /// /proc/PID/mem and environ are root's, out of reach of other programs of the same uid, and it
    /// leaves no core. Freed heap blocks are overwritten, as in mrtdd (unless
    /// MALLOC_PERTURB_ is set), so a key or a relayed request body does not stay in freed memory.
    static func main() async {
        ProcessHardening.disableCoreDumps()
        Heap.overwriteFreedMemory()
        // Keys on the command line are visible to every local user while the read runs: the first
        // thing done is to overwrite them in argv (parsing uses the copy taken before).
        let scrubbed = ProcessHardening.scrubArgumentValues(of: AccessOptions.secretOptions)
        if !scrubbed.isEmpty {
            StandardError.write("mrtdctl: warning: \(Set(scrubbed).sorted().joined(separator: ", ")) on the command line was visible to other local users until now (ps, /proc); prefer -, --access-file or the prompt\n")
        }
        await main(nil)
    }
}

/// Exit codes other programs may rely on.
enum ExitStatus {
    static let readFailed = ExitCode(1)
    static let invalidDocument = ExitCode(4)
}

struct Read: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read a document.",
        discussion: """
            With --simulate the read runs in-process against a virtual chip presenting the ICAO \
            specimen passport (ERIKSSON ANNA MARIA, TD3); its SOD is signed by a TEST-ONLY document \
            signer made for this run, whose CSCA --simulate therefore trusts (on top of any --trust; \
            --trust-test trusts it in later runs). With --direct the read \
            runs in-process on an attached reader (PC/SC or libnfc). Otherwise the read goes through the \
            mrtdd daemon (--socket), printing progress while it waits for the document.
            """)

    @Flag(help: "Read the built-in virtual specimen passport in-process.")
    var simulate = false

    @Option(name: .customLong("data-groups"), help: "Data groups to read besides DG1 and DG2, comma separated (default 14,15).")
    var dataGroups: String?

    @Flag(name: .customLong("no-extended-length"), help: "Never use extended-length READ BINARY.")
    var noExtendedLength = false

    @Flag(help: "Print the result model as JSON.")
    var json = false

    @Option(help: "Write the face image to this file (mode 0600; a link is refused, an earlier file of yours replaced).")
    var face: String?

    @Option(help: "Write the raw files (EF_COM.bin, EF_SOD.bin, DG1.bin, ...) to this directory (made 0700; an existing one must be yours and writable by you only).")
    var dump: String?

    @Option(help: "Write the images besides the face (portrait-1.jpg, document-front.jpg, finger-1.wsq, ...; from --data-groups 3,4,5,7,11,12) to this directory (as --dump).")
    var images: String?

    @Option(help: "Record the session (every APDU and random byte, and the access key: personal data) to this transcript file for `mrtdctl replay` (as --face).")
    var record: String?

    @Option(name: .customLong("aa-challenge"), help: ArgumentHelp(
        "The Active Authentication challenge to have the chip sign, 16 hex digits (a relying party's fresh nonce; default: a random one). The result records it (checks.activeAuthentication.challenge).",
        valueName: "HEX"))
    var aaChallenge: String?

    @OptionGroup(title: "Evidence (docs/evidence.md)")
    var evidence: EvidenceOptions

    @OptionGroup(title: "Virtual chip (with --simulate)")
    var chip: SimulationOptions

    @OptionGroup(title: "Passive authentication")
    var trustOptions: TrustOptions

    @Option(name: .customLong("terminal"), help: ArgumentHelp(
        "EAC terminal credentials: a directory of NAME.cvcert (CVCA link, DV, IS) with NAME.pkcs8 (DER or PEM key) or NAME.pkcs11 (RFC 7512 URI) beside each IS certificate. With DG3/DG4 in --data-groups, Terminal Authentication runs after Chip Authentication. --simulate's passport trusts certs/test-eac (TEST ONLY).",
        valueName: "DIR"))
    var terminal: String?

    @OptionGroup(title: "Access control")
    var accessOptions: AccessOptions

    @OptionGroup(title: "Virtual PACE chip (with --simulate)")
    var paceChip: PACESimulationOptions

    @OptionGroup(title: "Virtual chip authentication keys (with --simulate)")
    var authenticationChip: AuthenticationSimulationOptions

    @OptionGroup(title: "Virtual chip faults (with --simulate)")
    var faultChip: FaultSimulationOptions

    @OptionGroup(title: "Attached reader (with --direct)")
    var direct: DirectReadOptions

    @OptionGroup(title: "Through the daemon (without --simulate or --direct)")
    var daemon: DaemonOptions
    @OptionGroup var daemonRead: DaemonReadOptions

    func validate() throws {
        // On a terminal, a read with no key asks for it (AccessOptions).
        try direct.validate(simulate: simulate, hasAccessKey: accessOptions.hasKey || isatty(0) == 1)
        if trustOptions.verificationProfile != .strict && !simulate && !direct.direct {
            throw ValidationError("--verification-profile applies to --simulate and --direct; the daemon uses its verification-profile setting")
        }
        if terminal != nil && !simulate && !direct.direct {
            throw ValidationError("--terminal applies to --simulate and --direct; the daemon uses its terminal-directory setting")
        }
        if !simulate && (faultChip.isActive || faultChip.noCardAccess) {
            throw ValidationError("--sim-fault, --sim-remove-at and --sim-no-card-access need --simulate")
        }
        _ = try chip.quirks()
        if !simulate && !chip.quirkNames.isEmpty { throw ValidationError("--sim-quirk needs --simulate") }
        _ = try activeAuthenticationChallenge(aaChallenge)
    }

    func run() async throws {
        // The simulated read has its specimen's key as the default: no prompt.
        let access = try accessOptions.resolved(prompt: !simulate)
        if !simulate && !direct.direct {
            return try await DaemonRead.run(
                daemon: daemon, options: daemonRead, mrz: access.mrz, mrzKey: access.mrzKey, can: access.can,
                reader: direct.reader, accessPolicy: access.access, dataGroups: try dataGroupNumbers(),
                json: json, face: face, images: images, aaChallenge: aaChallenge, evidence: evidence)
        }
        let key = try accessKey(access)
        let groups = try dataGroupNumbers().map { [1, 2] + $0 } ?? [1, 2, 14, 15]
        var options = ReadOptions(
            accessKey: access.accessKey(mrz: key), dataGroups: groups,
            reader: .init(preferExtendedLength: !noExtendedLength), access: access.access,
            trustStore: try trustOptions.store(trustingSimulation: simulate))
        options.activeAuthenticationChallenge = try activeAuthenticationChallenge(aaChallenge)
        // The full MRZ as printed is the data page's: DG1 must equal it (checks.mrzMatch).
        options.pageMRZ = try access.mrz.map { try MRZ($0) }
        if let terminal {
            do {
                options.terminal = try TerminalCredentials.load(directory: terminal)
            } catch {
                throw ValidationError("--terminal: \(error)")
            }
        }
        let read: DocumentReader.Read
        if direct.direct {
            // Reconnects after a lost card (docs/reliability.md).
            read = try await direct.readReconnecting(json: json, options: options, record: record)
        } else {
            var document = try chip.document()
            try paceChip.apply(to: &document)
            // With CA keys, also DG3 / DG4 behind EAC: the run's CVCA and that of certs/test-eac.
            document.authentication = try authenticationChip.fixture()
            document.withoutCardAccess = faultChip.noCardAccess
            let configuration = try document.chip()
            if faultChip.isActive {
                // A card slot: pulled and presented again as scheduled; the read reconnects.
                let slot = VirtualCardSlot(
                    configuration: configuration, faults: try faultChip.faults(),
                    refusedReconnects: faultChip.refusedReconnects)
                try finish(await RecordedRead.run(
                    .reconnecting({ try await slot.connect() }),
                    reader: .init(name: "mrtdctl virtual chip", backend: "virtual", capabilities: slot.capabilities),
                    options: options, record: record), trustStore: options.trustStore)
                return
            }
            let virtualChip = VirtualChip(configuration: configuration)
            read = try await RecordedRead.run(
                .single(virtualChip),
                reader: .init(name: "mrtdctl virtual chip", backend: "virtual", capabilities: virtualChip.capabilities),
                options: options, record: record)
        }

        try finish(read, trustStore: options.trustStore)
    }

    /// Writes what was asked for, prints the result, and sets the exit status.
    private func finish(_ read: DocumentReader.Read, trustStore: TrustStore?) throws {
        if evidence.evidence != nil, read.result.status != .failed {
            try evidence.write(files: read.files, result: read.result, trustStore: trustStore)
        }
        if let dump {
            // The read's result beside the files (result.json), so that `mrtdctl verify` of the dump
            // decides as the read did: the chip's Active Authentication answer, and the steps it
            // cannot re-check (Chip and Terminal Authentication) as the reader saw them.
            var entries = read.files.map { ("\($0.key.name).bin", $0.value) }
            entries.append((Verify.readerResultFile, Array(try ResultPrinter.json(read.result).utf8)))
            try PrivateOutput.write(entries, toDirectory: dump)
        }
        if let images {
            try ImageWriter.write(read.parsed.contents, to: images)
        }
        if let face {
            guard let image = read.parsed.face?.imageData else {
                throw ValidationError("no face image was read; nothing written to \(face)")
            }
            try PrivateOutput.write(image, toFile: face)
        }
        if json {
            print(try ResultPrinter.json(read.result))
        } else {
            print(ResultPrinter.summary(read.result))
        }
        switch read.result.status {
        case .failed: throw ExitStatus.readFailed
        case .invalid: throw ExitStatus.invalidDocument
        case .valid, .unverified: break
        }
    }

    /// `--data-groups` as numbers besides DG1 and DG2 (nil: the default).
    private func dataGroupNumbers() throws -> [Int]? {
        guard let dataGroups else { return nil }
        return try dataGroups.split(separator: ",").map { part in
            let name = part.trimmingSpaces().uppercased()
            guard let n = Int(name.hasPrefix("DG") ? String(name.dropFirst(2)) : name), (1...16).contains(n) else {
                throw ValidationError("--data-groups: '\(part)' is not a data group number 1-16")
            }
            return n
        }
    }

    private func accessKey(_ access: AccessOptions) throws -> MRZKey {
        do {
            if let mrz = access.mrz { return try MRZ(mrz).accessKey }
            if let mrzKey = access.mrzKey { return try MRZKey(parsing: mrzKey) }
        } catch {
            throw ValidationError("\(error)")
        }
        // The virtual specimen's own key, so that `mrtdctl read --simulate` works as is.
        return try SimulatedDocument.specimenKey()
    }

}

struct SimulationOptions: ParsableArguments {
    enum FaceFormat: String, ExpressibleByArgument, CaseIterable { case jpeg, jpeg2000 }
    enum FaceRecord: String, ExpressibleByArgument, CaseIterable { case iso19794 = "19794", iso39794 = "39794" }

    @Option(name: .customLong("sim-face"), help: "Face image format of the specimen: jpeg or jpeg2000.")
    var face: FaceFormat = .jpeg

    @Option(name: .customLong("sim-face-record"), help: "DG2 encoding of the specimen: 19794 (ISO/IEC 19794-5) or 39794 (ISO/IEC 39794-5).")
    var record: FaceRecord = .iso19794

    @Flag(name: .customLong("sim-no-extended-length"), help: "The virtual chip refuses extended-length APDUs.")
    var noExtendedLength = false

    @Option(name: .customLong("sim-max-le"), help: "The largest READ BINARY length the virtual chip serves.")
    var maxLe: Int?

    @Flag(name: .customLong("sim-lds2"), help: "The virtual chip also has the LDS2 application.")
    var lds2 = false

    @Option(name: .customLong("sim-quirk"), help: ArgumentHelp(
        "A behaviour of real chips from field reports (docs/field-quirks.md), repeatable: \(VirtualChipQuirk.names).",
        valueName: "NAME"))
    var quirkNames: [String] = []

    /// The quirks asked for with `--sim-quirk`.
    func quirks() throws -> Set<VirtualChipQuirk> {
        try Set(quirkNames.map { name in
            guard let quirk = VirtualChipQuirk(name: name) else {
                throw ValidationError("--sim-quirk '\(name)': expected one of \(VirtualChipQuirk.names)")
            }
            return quirk
        })
    }

    @Flag(name: .customLong("sim-full-lds"), help: "The specimen also holds DG5, DG7, DG11, DG12, DG13 and DG16 (read them with --data-groups).")
    var fullLDS = false

    @Flag(name: .customLong("sim-biometrics"), help: "TEST ONLY: the specimen also holds DG3/DG4 records, served without Terminal Authentication.")
    var biometrics = false

    /// The specimen as these options describe it (SimulatedDocument: the one place simulated chips are made).
    func document() throws -> SimulatedDocument {
        var document = SimulatedDocument()
        document.face = face == .jpeg ? .jpeg : .jpeg2000
        document.faceEncoding = record == .iso19794 ? .iso19794_5 : .iso39794_5
        document.fullLDS = fullLDS
        document.openBiometrics = biometrics
        document.extendedLength = !noExtendedLength
        document.maxReadLength = maxLe
        document.lds2 = lds2
        document.quirks = try quirks()
        return document
    }
}

/// A read, recorded to the `--record` transcript file when one is given (`Transcript.read`).
enum RecordedRead {
    static func run(
        _ links: ReadLinks, reader: Transcript.Reader, atr: [UInt8]? = nil, options: ReadOptions, record: String?
    ) async throws -> DocumentReader.Read {
        let (read, transcript) = await Transcript.read(links, reader: reader, atr: atr, options: options, recording: record != nil)
        if let record, let transcript {
            try PrivateOutput.write(transcript.json(), toFile: record)
        }
        return read
    }
}
