public import MRTDCore
public import MRTDCrypto
import MRTDVerification
import FoundationEssentials

/// The raw outcome of a chip session: file bytes exactly as read, and how they were obtained.
public struct ChipReadOutcome: Sendable, Equatable {
    public var files: [LDSFile: [UInt8]]
    public var applications: ReadResult.ApplicationsInfo
    public var access: ReadResult.AccessInfo
    public var skipped: [ReadResult.SkippedFile]
    /// Problems that did not stop the read (an unparsable EF.COM, for one).
    public var warnings: [String]
    public var transport: TransportReport
    /// Chip and Active Authentication verdicts (passive authentication is decided afterwards); the
    /// chip authentication check is PACE-CAM's when CAM ran, else DG14 Chip Authentication's.
    public var checks = ReadResult.Checks()
    /// The PACE-CAM chip authentication outcome (nil when CAM did not run).
    public var chipAuthentication: ReadResult.Check? = nil
    /// EF.ATR/INFO as found (nil when it was not looked for).
    public var atrInfo: ReadResult.ATRInfoReport? = nil
}

/// Doc 9303 application identifiers.
public enum ApplicationID {
    /// The LDS1 eMRTD application (Doc 9303-10 §3.6.1).
    public static let lds1: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01]
    /// The LDS2 application (travel records, visas, biometrics; Doc 9303-10 §5).
    public static let lds2: [UInt8] = [0xA0, 0x00, 0x00, 0x02, 0x47, 0x20, 0x01]
}

/// One read of one chip: SELECT, access control, then EF.COM, EF.SOD and the data groups.
///
/// Produces raw bytes and a transport report; parsing and verification happen afterwards, on values.
public final class ChipSession {
    public let options: ReadOptions
    let channel: ChipChannel
    let random: any RandomSource
    let progress: ReadProgressHandler?
    /// Opens a fresh link to the same card after a link fault; nil: link faults end the read.
    let connect: (@Sendable () async throws -> any APDUTransport)?
    let clock = ContinuousClock()
    /// When the read started (the recovery deadline counts from here).
    var started: ContinuousClock.Instant
    /// How the chip was opened, once it was: what re-authentication repeats.
    var established: Established?
    /// Whether the eMRTD application was selected (a re-authentication selects it again).
    var applicationSelected = false
    /// `ID_PICC` for Terminal Authentication: set when the chip is opened (BAC or PACE).
    var chipIdentifier: [UInt8]?
    /// Chip/Active Authentication state (created after opening).
    var authentication: SessionAuthentication?
    /// The chain Terminal Authentication passed with: a re-authentication runs TA again with it.
    var terminalChain: TerminalChain?
    var reconnects = 0
    var secureMessagingRecoveries = 0
    /// What EF.ATR/INFO gave (``readATRInfo(into:)``), and what it could not.
    var atrInfo: ReadResult.ATRInfoReport?
    var atrInfoWarnings: [String] = []
    /// Reads every file after access control: what it learns of the chip (lengths refused,
    /// short EF identifiers refused, headers first) holds for the rest of the session.
    let reader: FileReader

    /// - Parameters:
    ///   - transport: the link to the chip.
    ///   - connect: gives a fresh link to the same card after a link fault (the card reset, or taken
    ///     away and presented again); without, link faults end the read.
    ///   - progress: called at phase and file boundaries (the daemon's progress events).
    public init(
        transport: any APDUTransport, options: ReadOptions, random: any RandomSource = SystemRandom(),
        connect: (@Sendable () async throws -> any APDUTransport)? = nil, progress: ReadProgressHandler? = nil
    ) {
        self.options = options
        self.channel = ChipChannel(transport: transport)
        self.reader = FileReader(channel: channel, configuration: options.reader)
        self.random = random
        self.progress = progress
        self.connect = connect
        started = clock.now
    }

    /// What crossed the wire so far (also valid after a failed `run`).
    public var transportReport: TransportReport { channel.report }

    /// Whether `error` is the end of `file` before any byte of it: an empty data group, told apart
    /// from one that broke off part way (`fileTruncated` with bytes read stays an error). DG1, the
    /// MRZ every result is about, is never taken as empty: without it the read fails as before.
    static func endedBeforeItsFirstByte(_ error: ProtocolError, reader: FileReader, file: LDSFile) -> Bool {
        guard file != .dg(1) else { return false }
        return switch error {
        case .fileTruncated(let truncated, _, let received): truncated == file && received == 0
        case .noProgress(let stalled): stalled == file && reader.interrupted.map { $0.file == file && $0.bytes.isEmpty } == true
        default: false
        }
    }

    /// Whether `error` is the end of data group `file` after some of its bytes, before the length
    /// its header declares: the chip's file ends there (an overstated length, or a file that breaks
    /// off). DG1 and DG2, which every inspection needs whole, stay errors (`fileTruncated`).
    static func endedShortOfItsHeader(_ error: ProtocolError, reader: FileReader, file: LDSFile) -> Bool {
        guard case .dg(let number) = file, number > 2,
              case .fileTruncated(let truncated, _, let received) = error, truncated == file, received > 0 else { return false }
        return reader.interrupted.map { $0.file == file && $0.bytes.count == received } == true
    }

    public func run() async throws -> ChipReadOutcome {
        defer { channel.endSecureMessaging() }
        started = clock.now

        // SELECT and access control (BAC or PACE) happen together in openChip.
        progress?(.init(phase: .selecting, percent: 0))
        progress?(.init(phase: .authenticating, percent: 5))
        let opened = try await recovering(file: nil, offset: { nil }, opening: true) { try await openChip() }
        established = opened.established
        var files = opened.files
        let access = opened.access
        let lds2 = opened.lds2

        var skipped: [ReadResult.SkippedFile] = []

        var warnings: [String] = opened.warnings
        var terminalAuthentication: TerminalAuthenticationCheck?
        // Files from 15 % to 95 %; the count of planned files is known only after EF.COM.
        progress?(.init(phase: .reading, file: LDSFile.com.name, percent: 15))
        let com: [UInt8]
        do {
            com = try await readRecovering(.com, with: reader)
        } catch ProtocolError.fileTruncated(.com, let expected, let received)
            where received >= 2 && reader.interrupted?.file == .com && reader.interrupted?.bytes.count == received {
            // EF.COM is not signed and only lists the groups: a file shorter than its header declares
            // (TR-03105-5.1 LDS_A_03) is kept as it came and reported; its list is not used. One that
            // gives nothing at all (its first READ BINARY ends the file) still fails the read.
            com = reader.interrupted?.bytes ?? []
            warnings.append("EF_COM: the file ends after \(received) of the \(expected) bytes its header declares")
        }
        files[.com] = com
        // With an unusable EF.COM every group asked for is tried; the chip's answers decide.
        var listed: Set<LDSFile>?
        do {
            let efCOM = try EFCOM(rawBytes: com)
            listed = Set(efCOM.dataGroups)
            warnings += efCOM.versionWarnings
        } catch {
            warnings.append("EF_COM: \(error)")
        }
        // Terminal Authentication needs Chip Authentication first: DG14 comes with DG3 / DG4.
        let eacWanted = options.terminal != nil && options.dataGroups.contains { $0 == 3 || $0 == 4 }
        let wanted = Set([1, 2] + options.dataGroups + (eacWanted ? [14] : [])).sorted().map { LDSFile.dg($0) }
            // DG1 and DG2 are mandatory; others are read only when EF.COM lists them.
            .filter { listed?.contains($0) ?? true || $0 == .dg(1) || $0 == .dg(2) }
        let planned = wanted.count + 2
        progress?(.init(phase: .reading, file: LDSFile.sod.name, percent: 15 + 80 / planned))
        files[.sod] = try await readRecovering(.sod, with: reader)

        let authentication = SessionAuthentication(
            channel: channel, random: random, activeAuthenticationChallenge: options.activeAuthenticationChallenge)
        self.authentication = authentication
        for (index, file) in SessionAuthentication.readingOrder(wanted).enumerated() {
            progress?(.init(phase: .reading, file: file.name, percent: 15 + 80 * (index + 2) / planned))
            do {
                files[file] = try await authentication.confirming { try await readRecovering(file, with: reader) }
                // Chip Authentication right after DG14; every later command uses its keys.
                if file == .dg(14), let dg14 = files[file] {
                    try await recovering(file: nil, offset: { nil }) {
                        try await authentication.chipAuthentication(
                            dg14: dg14, alreadyAuthenticated: opened.chipAuthentication != nil)
                    }
                    if eacWanted {
                        terminalAuthentication = try await runTerminalAuthentication(
                            wanted: wanted, authentication: authentication, with: reader)
                    }
                }
            } catch ProtocolError.fileAccessDenied(_, let sw) {
                // EAC-protected groups (DG3, DG4) answer 6982 without terminal authentication.
                skipped.append(.init(file: file.name, reason: sw == .securityStatusNotSatisfied
                    ? "securityStatusNotSatisfied" : "accessDenied \(sw)"))
            } catch ProtocolError.fileNotFound {
                skipped.append(.init(file: file.name, reason: ErrorCode.fileNotFound.rawValue))
            } catch let error as ProtocolError where Self.endedShortOfItsHeader(error, reader: reader, file: file) {
                // BSI TR-03105-5.1 LDS_D_06 / LDS_E_05 / LDS_F_03 / LDS_I_03: an optional group whose
                // header declares more than the chip holds is kept as read and judged as such (its
                // structure, its hash, the key it should hold); the read goes on.
                files[file] = reader.interrupted?.bytes
                warnings.append("\(file.name): \(error.description): kept as read")
                if file == .dg(14), let dg14 = files[file] {
                    // Chip Authentication judges it (a DG14 that does not parse fails it), and
                    // Terminal Authentication, which needs Chip Authentication, says why it did not run.
                    try await authentication.chipAuthentication(dg14: dg14, alreadyAuthenticated: opened.chipAuthentication != nil)
                    if eacWanted {
                        terminalAuthentication = try await runTerminalAuthentication(
                            wanted: wanted, authentication: authentication, with: reader)
                    }
                }
            } catch let error as ProtocolError where Self.endedBeforeItsFirstByte(error, reader: reader, file: file) {
                // NFCPassportReader#265: a data group the chip lists yet gives nothing of (its first
                // READ BINARY ends the file: 6282 or 6B00 with no data, 9000 with none) is not there;
                // the read goes on with what the chip gave.
                skipped.append(.init(file: file.name, reason: ReadResult.SkippedFile.fileEmpty))
            }
        }
        if let dg15 = files[.dg(15)] {
            do {
                try await recovering(file: nil, offset: { nil }) { try await authentication.activeAuthentication(dg15: dg15) }
            } catch let error as ProtocolError where SessionAuthentication.isSecureMessagingFailure(error) {
                authentication.activeAuthenticationLost(error)
            }
        }
        try await authentication.confirmChipAuthenticationKeys()
        warnings += authentication.warnings
        var checks = authentication.checks
        // Reported when it was asked for: credentials and DG3 or DG4 (a read without them is unchanged).
        if eacWanted {
            // A chip whose EF.COM lists neither DG3 nor DG4 has nothing for TA to open (TR-03135-1
            // Table 5.21: not supported); one that lists them and gave no DG14 leaves TA undone.
            let listsEACGroups = wanted.contains(.dg(3)) || wanted.contains(.dg(4))
            checks.terminalAuthentication = terminalAuthentication
                ?? (listsEACGroups ? .notPerformed("chipAuthenticationNotPerformed", detail: "DG14 was not read")
                    : .notPerformed(TerminalAuthenticationCheck.noEACDataGroupListed, detail: "EF.COM lists neither DG3 nor DG4"))
        }
        if let cam = opened.chipAuthentication {
            // PACE-CAM authenticated the chip with the key in EF.CardSecurity; DG14 CA did not run.
            checks.chipAuthentication = cam
        }
        progress?(.init(phase: .verifying, percent: 95))
        warnings += atrInfoWarnings
        return ChipReadOutcome(
            files: files, applications: .init(lds1: true, lds2: lds2), access: access,
            skipped: skipped, warnings: warnings, transport: channel.report, checks: checks,
            chipAuthentication: opened.chipAuthentication, atrInfo: atrInfo)
    }
}
