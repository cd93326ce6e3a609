import MRTDCore
import MRTDCrypto

/// How to open a document.
public enum AccessKey: Sendable, Equatable, CustomStringConvertible {
    /// Document number, date of birth and date of expiry from the MRZ (BAC; PACE with an MRZ password).
    case mrz(MRZKey)

    public var passwordType: String {
        switch self {
        case .mrz: return "MRZ"
        }
    }

    /// Redacted: access keys never reach logs.
    public var description: String { "AccessKey.\(passwordType)(<redacted>)" }
}

/// What to read and how.
public struct ReadOptions: Sendable, Equatable {
    public var accessKey: AccessKey
    /// Data groups to read besides EF.COM and EF.SOD, when EF.COM lists them. DG1 and DG2 are always
    /// read; the default adds DG14 and DG15 (chip and active authentication keys).
    public var dataGroups: [Int]
    /// Probe the LDS2 application (`A0000002472001`) before selecting LDS1; reported, not read.
    public var probeLDS2: Bool
    public var reader: FileReader.Configuration

    public init(
        accessKey: AccessKey, dataGroups: [Int] = [1, 2, 14, 15], probeLDS2: Bool = true,
        reader: FileReader.Configuration = .init()
    ) {
        self.accessKey = accessKey
        self.dataGroups = dataGroups
        self.probeLDS2 = probeLDS2
        self.reader = reader
    }
}

/// The raw outcome of a chip session: file bytes exactly as read, and how they were obtained.
public struct ChipReadOutcome: Sendable, Equatable {
    public var files: [LDSFile: [UInt8]]
    public var applications: ReadResult.ApplicationsInfo
    public var access: ReadResult.AccessInfo
    public var skipped: [ReadResult.SkippedFile]
    /// Problems that did not stop the read (an unparsable EF.COM, for one).
    public var warnings: [String]
    public var transport: TransportReport
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
    private let channel: ChipChannel
    private let random: any RandomSource
    private let progress: ReadProgressHandler?

    public init(
        transport: any APDUTransport, options: ReadOptions, random: any RandomSource = SystemRandom(),
        progress: ReadProgressHandler? = nil
    ) {
        self.options = options
        self.channel = ChipChannel(transport: transport)
        self.random = random
        self.progress = progress
    }

    /// What crossed the wire so far (also valid after a failed `run`).
    public var transportReport: TransportReport { channel.report }

    public func run() async throws -> ChipReadOutcome {
        defer { channel.endSecureMessaging() }

        progress?(.init(phase: .selecting, percent: 0))
        var lds2 = false
        if options.probeLDS2 {
            lds2 = try await channel.selectApplication(ApplicationID.lds2) == .success
        }
        let selected = try await channel.selectApplication(ApplicationID.lds1)
        guard selected == .success else { throw ProtocolError.notAnEMRTD(selected) }

        progress?(.init(phase: .authenticating, percent: 5))
        let access: ReadResult.AccessInfo
        switch options.accessKey {
        case .mrz(let key):
            try await BAC.perform(channel: channel, key: key, random: random)
            access = .init(protocol: "BAC", password: "MRZ", cipher: SMCipher.tripleDES.rawValue)
        }

        let reader = FileReader(channel: channel, configuration: options.reader)
        var files: [LDSFile: [UInt8]] = [:]
        var skipped: [ReadResult.SkippedFile] = []

        var warnings: [String] = []
        // Files from 15 % to 95 %; the count of planned files is known only after EF.COM.
        progress?(.init(phase: .reading, file: LDSFile.com.name, percent: 15))
        let com = try await reader.read(.com)
        files[.com] = com
        // With an unusable EF.COM every group asked for is tried; the chip's answers decide.
        var listed: Set<LDSFile>?
        do {
            listed = Set(try EFCOM(rawBytes: com).dataGroups)
        } catch {
            warnings.append("EF_COM: \(error)")
        }
        let wanted = Set([1, 2] + options.dataGroups).sorted().map { LDSFile.dg($0) }
            // DG1 and DG2 are mandatory; others are read only when EF.COM lists them.
            .filter { listed?.contains($0) ?? true || $0 == .dg(1) || $0 == .dg(2) }
        let planned = wanted.count + 2
        progress?(.init(phase: .reading, file: LDSFile.sod.name, percent: 15 + 80 / planned))
        files[.sod] = try await reader.read(.sod)

        for (index, file) in wanted.enumerated() {
            progress?(.init(phase: .reading, file: file.name, percent: 15 + 80 * (index + 2) / planned))
            do {
                files[file] = try await reader.read(file)
            } catch ProtocolError.fileAccessDenied(_, let sw) {
                // EAC-protected groups (DG3, DG4) answer 6982 without terminal authentication.
                skipped.append(.init(file: file.name, reason: sw == .securityStatusNotSatisfied
                    ? "securityStatusNotSatisfied" : "accessDenied \(sw)"))
            } catch ProtocolError.fileNotFound {
                skipped.append(.init(file: file.name, reason: "fileNotFound"))
            }
        }
        progress?(.init(phase: .verifying, percent: 95))
        return ChipReadOutcome(
            files: files, applications: .init(lds1: true, lds2: lds2), access: access,
            skipped: skipped, warnings: warnings, transport: channel.report)
    }
}
