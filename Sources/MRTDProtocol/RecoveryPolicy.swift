import MRTDCore

/// How hard a read tries to recover from the faults real chips and readers produce
/// (docs/reliability.md; RELIABILITY "Field failure modes" and the retry policy).
///
/// - Link faults (card removed, chip timeout, reader gone) are recovered only when the read can
///   reconnect (`DocumentReader.read(connect:options:random:)`): reconnect, re-select,
///   re-authenticate with the same access key, repeat Chip Authentication if it ran, then resume the
///   interrupted file at the last offset secure messaging verified. Files already read are kept.
/// - Secure-messaging faults (6987/6988, a bad MAC, a plain status word inside secure messaging) drop
///   the session keys, re-authenticate and retry the operation once.
/// - Nothing else is retried: wrong access keys, authentication failures and passive authentication
///   failures end the read. Passive authentication always checks the final files.
public struct RecoveryPolicy: Sendable, Equatable {
    /// Reconnections allowed in one read (0: link faults end the read).
    public var maxReconnects: Int
    /// Secure-messaging re-authentications allowed in one read (each operation is retried at most
    /// once; 0: secure-messaging faults end the read).
    public var maxSecureMessagingRecoveries: Int
    /// No recovery starts after this time from the start of the read, and a reconnection waits at
    /// most until then.
    public var deadline: Duration
    /// The pause after a failed reconnection before the next attempt.
    public var reconnectDelay: Duration

    public init(
        maxReconnects: Int = 3, maxSecureMessagingRecoveries: Int = 3, deadline: Duration = .seconds(30),
        reconnectDelay: Duration = .milliseconds(50)
    ) {
        self.maxReconnects = maxReconnects
        self.maxSecureMessagingRecoveries = maxSecureMessagingRecoveries
        self.deadline = deadline
        self.reconnectDelay = reconnectDelay
    }

    /// No recovery at all: every fault ends the read (the behaviour before recovery existed).
    public static let none = RecoveryPolicy(maxReconnects: 0, maxSecureMessagingRecoveries: 0, deadline: .zero)

    /// What kind of fault an error is, for recovery purposes; `nil` for errors never retried.
    public enum Fault: Sendable, Equatable {
        /// The card, the chip, the reader or its service went away: reconnect.
        case link
        /// The secure-messaging session is dead: re-authenticate.
        case secureMessaging
    }

    /// Classifies `error`.
    public static func fault(of error: ProtocolError) -> Fault? {
        switch error {
        case .transport(.cardRemoved), .transport(.timeout), .transport(.readerUnavailable):
            return .link
        case .transport(.serviceFailure):
            // pcscd answers a card pulled mid-command with SCARD_F_COMM_ERROR at times (seen through
            // vpcd): a reconnection is the remedy, bounded like any other.
            return .link
        case .secureMessagingMACInvalid, .secureMessagingObjectMissing, .secureMessagingMalformed, .unprotectedResponse:
            return .secureMessaging
        default:
            return nil
        }
    }
}

extension StatusWord {
    /// 6987 / 6988: the chip found the secure-messaging data objects missing or wrong and dropped
    /// the session (ISO/IEC 7816-4 §10.4).
    var isSecureMessagingError: Bool { self == .smDataObjectsMissing || self == .smDataObjectsIncorrect }
}
