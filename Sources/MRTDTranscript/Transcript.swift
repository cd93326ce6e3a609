public import FoundationEssentials
public import MRTDCore
public import MRTDCrypto
public import MRTDProtocol
import Synchronization

/// A recorded chip session in the `mrtd-transcript/1` format (docs/transcripts.md): everything needed
/// to run the same read again, byte for byte, without the chip.
///
/// It holds the access key, which decrypts every exchange: a transcript is personal data.
public struct Transcript: Sendable, Equatable, Codable {
    public static let formatName = "mrtd-transcript/1"

    public struct Reader: Sendable, Equatable, Codable {
        public var name: String
        public var backend: String
        public var extendedLength: Bool
        public var maxCommand: Int
        public var maxResponse: Int

        public init(name: String, backend: String, capabilities: TransportCapabilities) {
            self.name = name
            self.backend = backend
            extendedLength = capabilities.extendedLength
            maxCommand = capabilities.maxCommandLength
            maxResponse = capabilities.maxResponseLength
        }

        public var capabilities: TransportCapabilities {
            TransportCapabilities(extendedLength: extendedLength, maxCommandLength: maxCommand, maxResponseLength: maxResponse)
        }
    }

    /// The password the session used. Exactly one field is present.
    public struct Access: Sendable, Equatable, Codable {
        public struct MRZKeyFields: Sendable, Equatable, Codable {
            public var documentNumber: String
            public var dateOfBirth: String
            public var dateOfExpiry: String
        }
        public var mrzKey: MRZKeyFields?
        /// The card access number (PACE).
        public var can: String?
    }

    /// The read options that shape the command sequence.
    public struct Options: Sendable, Equatable, Codable {
        public var dataGroups: [Int]
        public var probeLDS2: Bool
        public var preferExtendedLength: Bool
        public var useShortFileIdentifiers: Bool
        public var maxFileSize: Int
        /// `auto`, `pace` or `bac` (absent in transcripts recorded before PACE: `auto`).
        public var accessPolicy: String?
        /// The recovery policy (absent in transcripts recorded before recovery: the defaults).
        public var recovery: Recovery?
        /// The caller's Active Authentication challenge (hex), when one was given; absent: the
        /// reader drew its own (it is then in `random`).
        public var activeAuthenticationChallenge: String?

        public struct Recovery: Sendable, Equatable, Codable {
            public var maxReconnects: Int
            public var maxSecureMessagingRecoveries: Int
            public var deadlineMs: Int
        }
    }

    public struct Exchange: Sendable, Equatable, Codable {
        /// Hex, as sent.
        public var command: String
        /// Hex, status word included (empty when `error` is set).
        public var response: String
        /// When the link failed instead of answering, the failure's code (`TransportError.code`:
        /// `cardRemoved`, `chipTimeout`, `readerUnavailable`, `readerServiceFailure`,
        /// `commandTooLong`); absent for answered exchanges.
        public var error: String?

        public init(command: String, response: String, error: String? = nil) {
            self.command = command
            self.response = response
            self.error = error
        }

        /// The recorded failure as the link reports it again: the code read back, a command too long
        /// for the recorded reader with that reader's limit (the code alone did not replay before).
        static func error(_ code: String, command: [UInt8], capabilities: TransportCapabilities) -> TransportError? {
            switch ErrorCode(rawValue: code) {
            case .cardRemoved?: return .cardRemoved
            case .chipTimeout?: return .timeout
            case .readerUnavailable?: return .readerUnavailable("recorded")
            case .readerServiceFailure?: return .serviceFailure("recorded")
            case .commandTooLong?: return .commandTooLong(command.count, max: capabilities.maxCommandLength)
            default: return nil
            }
        }
    }

    public var format: String
    public var reader: Reader
    /// The ATR (hex) when the reader reported one.
    public var atr: String?
    public var access: Access
    public var options: Options
    /// Every byte the terminal drew from its random source, in order (hex).
    public var random: String
    public var exchanges: [Exchange]
    /// The result the original read produced.
    public var result: ReadResult
    /// Whether the read could reconnect after a lost card (`DocumentReader.read(connect:...)`); a
    /// replay then continues after each recorded link failure as the read did. Absent: false.
    public var reconnecting: Bool?

    public enum Error: Swift.Error, Sendable, Equatable, CustomStringConvertible {
        case unsupportedFormat(String)
        case invalidHex(field: String)
        case invalidAccess(String)

        public var description: String {
            switch self {
            case .unsupportedFormat(let f): return "unsupported transcript format '\(f)' (expected \(Transcript.formatName))"
            case .invalidHex(let field): return "transcript field \(field) is not hex"
            case .invalidAccess(let why): return "transcript access: \(why)"
            }
        }
    }

    /// Builds a transcript from a finished recording.
    public init(
        reader: Reader, atr: [UInt8]? = nil, options: ReadOptions, random: [UInt8],
        exchanges: [ScriptedTransport.Exchange], result: ReadResult
    ) {
        format = Self.formatName
        self.reader = reader
        self.atr = atr?.hex
        switch options.accessKey {
        case .mrz(let key):
            access = Access(mrzKey: .init(
                documentNumber: key.documentNumber, dateOfBirth: key.dateOfBirth, dateOfExpiry: key.dateOfExpiry))
        case .can(let can):
            access = Access(can: can)
        }
        self.options = Options(
            dataGroups: options.dataGroups, probeLDS2: options.probeLDS2,
            preferExtendedLength: options.reader.preferExtendedLength,
            useShortFileIdentifiers: options.reader.useShortFileIdentifiers,
            maxFileSize: options.reader.maxFileSize, accessPolicy: options.access.rawValue,
            recovery: .init(
                maxReconnects: options.recovery.maxReconnects,
                maxSecureMessagingRecoveries: options.recovery.maxSecureMessagingRecoveries,
                deadlineMs: Int(options.recovery.deadline.components.seconds * 1000
                    + options.recovery.deadline.components.attoseconds / 1_000_000_000_000_000)),
            activeAuthenticationChallenge: options.activeAuthenticationChallenge?.hex)
        self.random = random.hex
        self.exchanges = exchanges.map {
            Exchange(command: $0.command.hex, response: $0.response.hex, error: $0.error?.code)
        }
        self.result = result
    }

    public init(json: Data) throws {
        let decoded = try JSONDecoder().decode(Transcript.self, from: json)
        guard decoded.format == Self.formatName else { throw Error.unsupportedFormat(decoded.format) }
        self = decoded
    }

    public func json() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// The read options the session ran with.
    public func readOptions() throws -> ReadOptions {
        let key: AccessKey
        switch (access.mrzKey, access.can) {
        case (let fields?, nil):
            do {
                key = .mrz(try MRZKey(
                    documentNumber: fields.documentNumber, dateOfBirth: fields.dateOfBirth, dateOfExpiry: fields.dateOfExpiry))
            } catch {
                throw Error.invalidAccess("\(error)")
            }
        case (nil, let can?):
            key = .can(can)
        default:
            throw Error.invalidAccess("exactly one of mrzKey and can must be given")
        }
        guard let policy = AccessPolicy(rawValue: options.accessPolicy ?? "auto") else {
            throw Error.invalidAccess("unknown accessPolicy '\(options.accessPolicy ?? "")'")
        }
        var recovery = RecoveryPolicy()
        if let recorded = options.recovery {
            recovery.maxReconnects = recorded.maxReconnects
            recovery.maxSecureMessagingRecoveries = recorded.maxSecureMessagingRecoveries
            recovery.deadline = .milliseconds(recorded.deadlineMs)
        }
        // Replays do not wait between reconnections: the recording already holds what followed.
        recovery.reconnectDelay = .zero
        var readOptions = ReadOptions(
            accessKey: key, dataGroups: options.dataGroups, probeLDS2: options.probeLDS2,
            reader: .init(
                preferExtendedLength: options.preferExtendedLength, maxFileSize: options.maxFileSize,
                useShortFileIdentifiers: options.useShortFileIdentifiers),
            access: policy, recovery: recovery)
        if let challenge = options.activeAuthenticationChallenge {
            guard let bytes = [UInt8](hex: challenge), bytes.count == 8 else {
                throw Error.invalidHex(field: "options.activeAuthenticationChallenge")
            }
            readOptions.activeAuthenticationChallenge = bytes
        }
        return readOptions
    }

    /// The recorded exchanges as a script that insists on every command byte for byte.
    public func script() throws -> ScriptedTransport {
        var scripted: [ScriptedTransport.Exchange] = []
        scripted.reserveCapacity(exchanges.count)
        for (i, exchange) in exchanges.enumerated() {
            guard let command = [UInt8](hex: exchange.command) else { throw Error.invalidHex(field: "exchanges[\(i)].command") }
            guard let response = [UInt8](hex: exchange.response) else { throw Error.invalidHex(field: "exchanges[\(i)].response") }
            let error = try exchange.error.map { code in
                guard let error = Exchange.error(code, command: command, capabilities: reader.capabilities) else { throw Error.invalidAccess("exchanges[\(i)].error '\(code)' is unknown") }
                return error
            }
            scripted.append(.init(command: command, response: response, error: error))
        }
        return ScriptedTransport(scripted, capabilities: reader.capabilities)
    }

    /// The recorded random bytes, handed out again in order.
    public func randomSource() throws -> ScriptedRandom {
        guard let bytes = [UInt8](hex: random) else { throw Error.invalidHex(field: "random") }
        return ScriptedRandom(bytes)
    }

    /// Reads through `transport`, recording every exchange and every random byte, and returns the
    /// read with its transcript.
    public static func record(
        transport: any APDUTransport, reader: Reader, atr: [UInt8]? = nil, options: ReadOptions,
        random: any RandomSource = SystemRandom(), progress: ReadProgressHandler? = nil
    ) async -> (read: DocumentReader.Read, transcript: Transcript) {
        let recorder = RecordingTransport(transport)
        let drawn = RecordingRandom(random)
        let read = await DocumentReader.read(transport: recorder, options: options, random: drawn, progress: progress)
        let transcript = Transcript(
            reader: reader, atr: atr, options: options, random: drawn.recorded,
            exchanges: recorder.exchanges, result: read.result)
        return (read, transcript)
    }

    /// Reads over links from `connect`, reconnecting after lost cards as a live reconnecting read
    /// does, and records every link's exchanges (link failures included) into one transcript.
    public static func record(
        connect: @escaping @Sendable () async throws -> any APDUTransport, reader: Reader, atr: [UInt8]? = nil,
        options: ReadOptions, random: any RandomSource = SystemRandom(), progress: ReadProgressHandler? = nil
    ) async -> (read: DocumentReader.Read, transcript: Transcript) {
        let recorders = Mutex<RecordingTransport?>(nil)
        let drawn = RecordingRandom(random)
        let read = await DocumentReader.read(connect: {
            let link = try await connect()
            return recorders.withLock { first in
                let recorder = first.map { RecordingTransport(link, continuing: $0) } ?? RecordingTransport(link)
                if first == nil { first = recorder }
                return recorder
            }
        }, options: options, random: drawn, progress: progress)
        var transcript = Transcript(
            reader: reader, atr: atr, options: options, random: drawn.recorded,
            exchanges: recorders.withLock { $0?.exchanges ?? [] }, result: read.result)
        transcript.reconnecting = true
        return (read, transcript)
    }

    /// What a replay produced.
    public struct Replay: Sendable {
        /// The result of the replayed read.
        public var read: DocumentReader.Read
        /// The first command that differed from the recording, if any.
        public var mismatch: ScriptedTransport.Mismatch?
        /// Recorded exchanges the replay did not reach.
        public var unusedExchanges: Int
        /// Whether the replayed result equals the recorded one, timings aside.
        public var resultMatches: Bool
    }

    /// Runs the same read code path as a live read, over a transport answering from the recording
    /// and a random source returning the recorded bytes.
    public func replay(adjusting: (inout ReadOptions) -> Void = { _ in }) async throws -> Replay {
        var options = try readOptions()
        adjusting(&options)
        let script = try script()
        let read: DocumentReader.Read
        if reconnecting == true {
            // Each reconnection continues the same script, after the recorded link failure.
            read = await DocumentReader.read(connect: { script }, options: options, random: try randomSource())
        } else {
            read = await DocumentReader.read(transport: script, options: options, random: try randomSource())
        }
        return Replay(
            read: read, mismatch: script.firstMismatch, unusedExchanges: exchanges.count - script.consumed,
            resultMatches: read.result.comparable(toRecorded: result).withoutTimings == result.withoutTimings)
    }
}

extension ReadResult {
    /// This (replayed) result as a recording made before the TR-03135 inspection checks existed
    /// would show it: without those checks and the warnings they add (`documentExpired`,
    /// `deviation …`). A recording that has them is compared whole. A different `status` stays a
    /// difference.
    public func comparable(toRecorded recorded: ReadResult) -> ReadResult {
        guard recorded.checks.dataGroupStructure == nil, checks.dataGroupStructure != nil else { return self }
        var copy = self
        copy.checks.issuingCountry = nil
        copy.checks.documentExpiry = nil
        copy.checks.accessKeyMatch = nil
        copy.checks.dataGroupStructure = nil
        copy.checks.revocation = nil
        copy.checks.deviations = nil
        copy.warnings.removeAll { $0 == "documentExpired" || $0.hasPrefix("deviation ") }
        return copy
    }

    /// The result with its wall-clock fields zeroed, for comparing two runs of the same session.
    public var withoutTimings: ReadResult {
        var copy = self
        copy.durationMs = 0
        return copy
    }
}
