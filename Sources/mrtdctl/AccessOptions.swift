public import ArgumentParser
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import FoundationEssentials
import Glibc
import MRTDPlatform

extension AccessPolicy: ExpressibleByArgument {}

/// `--mrz`, `--mrz-key`, `--can`, `--access-file` and `--access`: which password and which protocol
/// open the chip.
///
/// Every local user can read any process's command line (`ps`, /proc/PID/cmdline) for as long as it
/// runs, so a key need not be there: `-` reads it from standard input,
/// `--access-file` from a file only its owner can read, and a read through the daemon or `--direct`
/// with no key at all prompts for it on the terminal, echo off. A key given as an argument still works.
struct AccessOptions: ParsableArguments {
    /// The options whose values are access keys: overwritten in argv at start (`MRTDCtl.main`).
    static let secretOptions: Set<String> = ["--mrz", "--mrz-key", "--can"]

    /// The warning in the help of each option that takes a key.
    static let argvIsPublic = "WARNING: a key given here is visible to every local user (ps, /proc/PID/cmdline) while mrtdctl runs; prefer -, --access-file or the prompt."

    @Option(help: "The full MRZ as printed (lines separated by newlines, or concatenated): it opens the chip, and DG1 must equal it (checks.mrzMatch); - reads it from standard input, to its end. \(argvIsPublic)")
    var mrz: String?

    @Option(name: .customLong("mrz-key"), help: "Document number, date of birth and date of expiry: DOCNO,YYMMDD,YYMMDD; - reads one line from standard input. \(argvIsPublic)")
    var mrzKey: String?

    @Option(help: "The card access number printed on the document (PACE only; ID cards, newer passports); - reads one line from standard input. \(argvIsPublic)")
    var can: String?

    @Option(name: .customLong("access-file"), help: ArgumentHelp(
        "Read the key from FILE: lines mrz-key=DOCNO,YYMMDD,YYMMDD, can=DIGITS or mrz=LINE (one per MRZ line); blank lines and lines starting with # are ignored. FILE must be a regular file (not a link) of yours or root's with mode 0600 or 0400.",
        valueName: "FILE"))
    var accessFile: String?

    @Option(help: "auto: PACE when EF.CardAccess offers it, else BAC, and BAC after a PACE protocol failure (reported); pace: PACE only; bac: BAC only.")
    var access: AccessPolicy = .auto

    /// Whether a key is given by an option (as an argument, `-` or a file).
    var hasKey: Bool { mrz != nil || mrzKey != nil || can != nil || accessFile != nil }

    func validate() throws {
        if accessFile != nil && (mrz != nil || mrzKey != nil || can != nil) {
            throw ValidationError("give the key either in --access-file or with --mrz, --mrz-key or --can, not both")
        }
        if [mrz, mrzKey, can].filter({ $0 == "-" }).count > 1 {
            throw ValidationError("only one key can come from standard input (-)")
        }
        try checkKeys()
    }

    /// What holds for the keys wherever they came from; `-` is checked once read.
    private func checkKeys() throws {
        if mrz != nil && mrzKey != nil {
            throw ValidationError("give either --mrz or --mrz-key, not both")
        }
        if let can, can != "-", can.isEmpty || !can.allSatisfy(\.isNumber) {
            throw ValidationError("--can takes the digits printed on the document")
        }
    }

    /// These options with every key read in: `-` from standard input, `--access-file`, and, with
    /// `prompt` when no key is given and standard input is a terminal, the answer to the prompt.
    func resolved(prompt: Bool) throws -> AccessOptions {
        var options = self
        options.accessFile = nil
        if let accessFile { try options.assign(lines: Self.readAccessFile(accessFile), from: "--access-file \(accessFile)") }
        if mrz == "-" { options.mrz = Array(AnyIterator { readLine() }).joined(separator: "\n") }
        if mrzKey == "-" { options.mrzKey = try Self.standardInputLine(for: "--mrz-key") }
        if can == "-" { options.can = try Self.standardInputLine(for: "--can") }
        if prompt && !options.hasKey && isatty(0) == 1 {
            let answer = try Self.prompted()
            if answer.contains(",") { options.mrzKey = answer } else { options.can = answer }
        }
        try options.checkKeys()
        return options
    }

    /// The CAN when given, else the MRZ key.
    func accessKey(mrz: MRZKey) -> AccessKey {
        can.map { .can($0) } ?? .mrz(mrz)
    }

    /// Sets the keys an access file names (`mrz` lines add up to the MRZ as printed).
    private mutating func assign(lines: String, from source: String) throws {
        for (number, line) in lines.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let text = line.trimmingWhitespace()
            if text.isEmpty || text.hasPrefix("#") { continue }
            // Never the value in an error: it is the key.
            guard let equals = text.firstIndex(of: "=") else {
                throw ValidationError("\(source), line \(number + 1): expected mrz-key=..., can=... or mrz=...")
            }
            let value = text[text.index(after: equals)...].trimmingSpaces()
            switch text[..<equals].trimmingSpaces() {
            case "mrz": mrz = mrz.map { $0 + "\n" + value } ?? value
            case "mrz-key" where mrzKey == nil: mrzKey = value
            case "can" where can == nil: can = value
            case let name: throw ValidationError("\(source), line \(number + 1): '\(name)' is not mrz-key, can or mrz, or is given twice")
            }
        }
        guard mrz != nil || mrzKey != nil || can != nil else { throw ValidationError("\(source): no mrz-key=, can= or mrz= line") }
    }

    /// The access file's text, once it is known to be a regular file only its owner (this user or
    /// root) can read or write; a link is never followed.
    private static func readAccessFile(_ path: String) throws -> String {
        // O_NONBLOCK: a FIFO must not hang the open (it is refused below).
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == ELOOP ? "a symbolic link is refused" : String(cString: strerror(errno))
            throw ValidationError("--access-file \(path): \(reason)")
        }
        defer { close(fd) }
        var info = stat()
        let uid = geteuid()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ValidationError("--access-file \(path): not a regular file")
        }
        guard info.st_uid == uid || info.st_uid == 0 else {
            throw ValidationError("--access-file \(path): owned by uid \(info.st_uid), not by you (uid \(uid)) or root")
        }
        guard info.st_mode & 0o077 == 0 else {
            throw ValidationError("--access-file \(path): mode \(String(info.st_mode & 0o777, radix: 8)) lets group or others at the key; chmod 600 \(path)")
        }
        // The descriptor checked above, not the path again (which may have changed since).
        return try String(decoding: FileContents.read(descriptor: fd, path: path, limit: 4096), as: UTF8.self)
    }

    /// The first line of standard input (`--mrz-key -`, `--can -`).
    private static func standardInputLine(for option: String) throws -> String {
        guard let line = readLine(), !line.trimmingWhitespace().isEmpty else {
            throw ValidationError("\(option) -: no line on standard input")
        }
        return line.trimmingWhitespace()
    }

    /// Asks on standard error and reads one line from the terminal with echo off (termios), so the
    /// key is neither in argv nor on the screen.
    private static func prompted() throws -> String {
        var saved = termios()
        let silenced = tcgetattr(0, &saved) == 0
        if silenced {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(0, TCSAFLUSH, &quiet)
        }
        // Asked only once echo is off: nothing typed in answer is ever shown.
        StandardError.write("Access key (DOCNO,YYMMDD,YYMMDD from the MRZ, or the CAN's digits): ")
        defer {
            if silenced { tcsetattr(0, TCSANOW, &saved) }
            StandardError.write("\n")
        }
        guard let line = readLine(), !line.trimmingWhitespace().isEmpty else { throw ValidationError("no access key given") }
        return line.trimmingWhitespace()
    }
}

/// The PACE side of the virtual chip (with --simulate).
struct PACESimulationOptions: ParsableArguments {
    enum ChipKind: String, ExpressibleByArgument, CaseIterable {
        /// BAC only, no EF.CardAccess.
        case bac
        /// PACE and BAC.
        case pace
        /// PACE only: GET CHALLENGE answers 6A88.
        case paceOnly = "pace-only"
        /// PACE with the CAN only (ID cards): BAC and the MRZ password refused.
        case canOnly = "can-only"
    }

    @Option(name: .customLong("sim-chip"), help: "Virtual chip kind: bac, pace (PACE and BAC), pace-only (BAC answers 6A88), can-only (PACE with the CAN only).")
    var kind: ChipKind = .bac

    @Option(name: .customLong("sim-pace"), help: ArgumentHelp(
        "A PACEInfo of the virtual chip as MAPPING,PARAMID,CIPHER (repeatable; default GM,13,AES-128).",
        discussion: "MAPPING is GM, IM or CAM; PARAMID 0-2 (RFC 5114 DH) or 8-18 (NIST and brainpool curves); CIPHER 3DES, AES-128, AES-192 or AES-256."))
    var pace: [String] = []

    @Option(name: .customLong("sim-can"), help: "The virtual chip's CAN.")
    var simCAN = "123456"

    func validate() throws {
        if kind == .bac && !pace.isEmpty {
            throw ValidationError("--sim-pace needs --sim-chip pace, pace-only or can-only")
        }
        _ = try infos()
    }

    /// The PACEInfos given by `--sim-pace`.
    func infos() throws -> [PACEInfo] {
        try (pace.isEmpty ? ["GM,13,AES-128"] : pace).map { text in
            let parts = text.split(separator: ",").map { $0.trimmingSpaces().uppercased() }
            guard parts.count == 3, let mapping = PACEMapping(rawValue: parts[0]), let id = Int(parts[1]),
                  let cipher = SymmetricCipher(rawValue: parts[2])
            else { throw ValidationError("--sim-pace '\(text)': expected MAPPING,PARAMID,CIPHER such as CAM,13,AES-128") }
            guard KeyAgreementGroups.name(ofStandardized: id) != nil else {
                throw ValidationError("--sim-pace '\(text)': parameter ID \(id) is not standardized (0-2, 8-18)")
            }
            let agreement: KeyAgreementAlgorithm = (0...2).contains(id) ? .dh : .ecdh
            guard let proto = PACEProtocol(mapping: mapping, keyAgreement: agreement, cipher: cipher) else {
                throw ValidationError("--sim-pace '\(text)': no such PACE protocol (CAM is ECDH with AES only)")
            }
            return PACEInfo(protocol: proto, parameterID: id)
        }
    }

    /// The chosen kind of chip, its PACEInfos and CAN.
    func apply(to document: inout SimulatedDocument) throws {
        switch kind {
        case .bac: document.access = .bac
        case .pace: document.access = .pace
        case .paceOnly: document.access = .paceOnly
        case .canOnly: document.access = .canOnly
        }
        document.paceInfos = try infos()
        document.can = simCAN
    }
}
