public import MRTDCore
internal import CPCSCLite

/// A PC/SC return code (pcsc-lite `LONG`) with its symbolic name and its meaning for a read.
///
/// The mapping follows pcsc-lite's `winscard.c`: a card pulled mid-exchange gives
/// `SCARD_W_REMOVED_CARD` (or `SCARD_E_NO_SMARTCARD` on the next call); pcscd going away gives
/// `SCARD_E_NO_SERVICE` / `SCARD_E_SERVICE_STOPPED`, and every handle of the old daemon becomes
/// `SCARD_E_INVALID_HANDLE`.
public struct PCSCStatus: Error, Sendable, Equatable, Hashable, CustomStringConvertible {
    /// The code as pcsc-lite returns it (`0x8010xxxx` for errors).
    public let rawValue: UInt32

    /// A status from its numeric code.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    init(_ value: LONG) { rawValue = UInt32(truncatingIfNeeded: value) }

    // The codes of pcsc-lite's `pcsclite.h` this backend tells apart (names in `name`).
    public static let success = PCSCStatus(rawValue: 0)
    public static let internalError = PCSCStatus(rawValue: 0x8010_0001)
    public static let cancelled = PCSCStatus(rawValue: 0x8010_0002)
    public static let invalidHandle = PCSCStatus(rawValue: 0x8010_0003)
    public static let invalidParameter = PCSCStatus(rawValue: 0x8010_0004)
    public static let insufficientBuffer = PCSCStatus(rawValue: 0x8010_0008)
    public static let unknownReader = PCSCStatus(rawValue: 0x8010_0009)
    public static let timeout = PCSCStatus(rawValue: 0x8010_000A)
    public static let sharingViolation = PCSCStatus(rawValue: 0x8010_000B)
    public static let noSmartcard = PCSCStatus(rawValue: 0x8010_000C)
    public static let protocolMismatch = PCSCStatus(rawValue: 0x8010_000F)
    public static let notReady = PCSCStatus(rawValue: 0x8010_0010)
    public static let commError = PCSCStatus(rawValue: 0x8010_0013)
    public static let unknownError = PCSCStatus(rawValue: 0x8010_0014)
    public static let notTransacted = PCSCStatus(rawValue: 0x8010_0016)
    public static let readerUnavailable = PCSCStatus(rawValue: 0x8010_0017)
    public static let noService = PCSCStatus(rawValue: 0x8010_001D)
    public static let serviceStopped = PCSCStatus(rawValue: 0x8010_001E)
    public static let unsupportedFeature = PCSCStatus(rawValue: 0x8010_001F)
    public static let noReadersAvailable = PCSCStatus(rawValue: 0x8010_002E)
    public static let commDataLost = PCSCStatus(rawValue: 0x8010_002F)
    public static let unresponsiveCard = PCSCStatus(rawValue: 0x8010_0066)
    public static let unpoweredCard = PCSCStatus(rawValue: 0x8010_0067)
    public static let resetCard = PCSCStatus(rawValue: 0x8010_0068)
    public static let removedCard = PCSCStatus(rawValue: 0x8010_0069)

    private static let names: [UInt32: String] = [
        0: "SCARD_S_SUCCESS", 0x8010_0001: "SCARD_F_INTERNAL_ERROR", 0x8010_0002: "SCARD_E_CANCELLED",
        0x8010_0003: "SCARD_E_INVALID_HANDLE", 0x8010_0004: "SCARD_E_INVALID_PARAMETER",
        0x8010_0008: "SCARD_E_INSUFFICIENT_BUFFER", 0x8010_0009: "SCARD_E_UNKNOWN_READER",
        0x8010_000A: "SCARD_E_TIMEOUT", 0x8010_000B: "SCARD_E_SHARING_VIOLATION",
        0x8010_000C: "SCARD_E_NO_SMARTCARD", 0x8010_000F: "SCARD_E_PROTO_MISMATCH",
        0x8010_0010: "SCARD_E_NOT_READY", 0x8010_0013: "SCARD_F_COMM_ERROR", 0x8010_0014: "SCARD_F_UNKNOWN_ERROR",
        0x8010_0016: "SCARD_E_NOT_TRANSACTED", 0x8010_0017: "SCARD_E_READER_UNAVAILABLE",
        0x8010_001D: "SCARD_E_NO_SERVICE", 0x8010_001E: "SCARD_E_SERVICE_STOPPED",
        0x8010_001F: "SCARD_E_UNSUPPORTED_FEATURE", 0x8010_002E: "SCARD_E_NO_READERS_AVAILABLE",
        0x8010_002F: "SCARD_E_COMM_DATA_LOST", 0x8010_0066: "SCARD_W_UNRESPONSIVE_CARD",
        0x8010_0067: "SCARD_W_UNPOWERED_CARD", 0x8010_0068: "SCARD_W_RESET_CARD",
        0x8010_0069: "SCARD_W_REMOVED_CARD", 0x8010_006A: "SCARD_W_SECURITY_VIOLATION",
    ]

    /// The symbolic name (`SCARD_W_REMOVED_CARD`), or the code in hex when it has none here.
    public var name: String {
        Self.names[rawValue] ?? "0x" + String(rawValue, radix: 16, uppercase: true)
    }

    /// pcsc-lite's text for the code (`pcsc_stringify_error`) with the symbolic name.
    public var description: String {
        let text = String(cString: pcsc_stringify_error(LONG(truncatingIfNeeded: Int64(rawValue))))
        return "\(text) (\(name))"
    }

    /// The card left: it was pulled, or it is no longer powered.
    public var meansCardGone: Bool {
        self == .removedCard || self == .noSmartcard || self == .unpoweredCard
    }

    /// pcscd went away (stopped, killed, restarted): the context and every handle are dead.
    public var meansServiceLost: Bool {
        self == .noService || self == .serviceStopped || self == .invalidHandle
    }

    /// The reader itself went away (unplugged, or its driver failed).
    public var meansReaderGone: Bool {
        self == .readerUnavailable || self == .unknownReader
    }

    /// A failure that does not say whether the card is still there: pcscd reports a driver's
    /// communication error this way when the card left in the middle of an exchange.
    public var isAmbiguousExchangeFailure: Bool {
        self == .notTransacted || self == .commError || self == .commDataLost || self == .unknownError
            || self == .unresponsiveCard
    }

    /// The error a transmit reports for this code.
    public var transportError: TransportError {
        if meansCardGone { return .cardRemoved }
        if meansServiceLost { return .readerUnavailable("PC/SC service stopped: \(description)") }
        if meansReaderGone { return .readerUnavailable(description) }
        if self == .timeout { return .timeout }
        return .serviceFailure(description)
    }
}
