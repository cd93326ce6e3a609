/// What a reader (and the chip behind it) can carry in one exchange.
///
/// The protocol layer uses `min(reader, chip)`: the transport states the reader side, the chip side
/// is learnt from EF.ATR/INFO or from the chip's answers.
public struct TransportCapabilities: Sendable, Equatable, Codable {
    /// Whether the reader carries ISO/IEC 7816-4 extended-length APDUs.
    public var extendedLength: Bool
    /// Largest command APDU, in bytes, the reader accepts.
    public var maxCommandLength: Int
    /// Largest response APDU, in bytes (status word included), the reader returns.
    public var maxResponseLength: Int

    public init(extendedLength: Bool, maxCommandLength: Int, maxResponseLength: Int) {
        self.extendedLength = extendedLength
        self.maxCommandLength = maxCommandLength
        self.maxResponseLength = maxResponseLength
    }

    /// A reader limited to short APDUs (ISO/IEC 7816-3: 5 + 255 + 1 command bytes, 256 + 2 response bytes).
    public static let shortOnly = TransportCapabilities(
        extendedLength: false, maxCommandLength: 261, maxResponseLength: 258)
    /// A reader carrying full extended-length APDUs.
    public static let extended = TransportCapabilities(
        extendedLength: true, maxCommandLength: 65_544, maxResponseLength: 65_538)
}

/// Errors a transport reports. Backends map their library's codes onto these.
public enum TransportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The card left the field (or was pulled) before or during the exchange.
    case cardRemoved
    /// The reader is gone (unplugged, or its service restarted).
    case readerUnavailable(String)
    /// The chip did not answer in time.
    case timeout
    /// The reader service (pcscd, libnfc) failed.
    case serviceFailure(String)
    /// The command does not fit what the reader carries.
    case commandTooLong(Int, max: Int)

    public var description: String {
        switch self {
        case .cardRemoved: return "card removed"
        case .readerUnavailable(let why): return "reader unavailable: \(why)"
        case .timeout: return "chip did not answer in time"
        case .serviceFailure(let why): return "reader service failure: \(why)"
        case .commandTooLong(let n, let max): return "command of \(n) bytes exceeds the reader's \(max)"
        }
    }
}

extension TransportError: CodedError {
    /// The stable code of each link failure (the result JSON, transcripts, metrics).
    public var errorCode: ErrorCode {
        switch self {
        case .cardRemoved: return .cardRemoved
        case .readerUnavailable: return .readerUnavailable
        case .timeout: return .chipTimeout
        case .serviceFailure: return .readerServiceFailure
        case .commandTooLong: return .commandTooLong
        }
    }
}

/// Bytes in, bytes out: the one seam between protocol logic and readers (PC/SC, libnfc, virtual).
///
/// `transmit` takes a complete command APDU and returns the complete response, status word included.
/// Implementations must not interpret the bytes.
public protocol APDUTransport: Sendable {
    var capabilities: TransportCapabilities { get }
    func transmit(_ command: [UInt8]) async throws -> [UInt8]
}
