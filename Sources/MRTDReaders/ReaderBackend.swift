public import MRTDCore

/// A reader as the rest of the system sees it. `name` is unique across backends.
public struct ReaderDescriptor: Sendable, Equatable, Hashable, Codable {
    public var name: String
    public var backend: ReaderBackendKind
    /// What the reader itself carries; the protocol layer uses min(reader, chip).
    public var capabilities: TransportCapabilities
    public var cardPresent: Bool

    public init(name: String, backend: ReaderBackendKind, capabilities: TransportCapabilities, cardPresent: Bool) {
        self.name = name
        self.backend = backend
        self.capabilities = capabilities
        self.cardPresent = cardPresent
    }
}

extension TransportCapabilities: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(extendedLength)
        hasher.combine(maxCommandLength)
        hasher.combine(maxResponseLength)
    }
}

/// Hot-plug and card presence, as noticed by a backend (status-change notifications for PC/SC,
/// periodic device scans for libnfc, which has no hot-plug).
public enum ReaderEvent: Sendable, Equatable {
    case readerAdded(ReaderDescriptor)
    case readerRemoved(name: String)
    case cardInserted(reader: String, atr: [UInt8])
    case cardRemoved(reader: String)
    /// The backend's service went away (pcscd stopped); readers are reported removed before this.
    case backendUnavailable(ReaderBackendKind, reason: String)
    /// The backend re-established its service; readers found again are reported added after this.
    case backendRecovered(ReaderBackendKind)
}

/// Errors of reader discovery and connection. Failures during an exchange are `TransportError`s.
public enum ReaderError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// No reader of any enabled backend is attached.
    case noReaders
    /// The named reader is not attached.
    case readerNotFound(String)
    /// No card on the reader (or it left before the connection was made).
    case noCard(reader: String)
    /// No card was presented within the time allowed.
    case timeout
    /// The backend's library or service failed (message from the library, never card data).
    case backendFailure(ReaderBackendKind, String)

    /// A stable code for the result model and the daemon's API.
    public var errorCode: ErrorCode {
        switch self {
        case .noReaders: return .noReaders
        case .readerNotFound: return .readerNotFound
        case .noCard: return .noCard
        case .timeout: return .timeout
        case .backendFailure: return .readerServiceFailure
        }
    }

    /// `errorCode` as a string.
    public var code: String { errorCode.rawValue }

    public var description: String {
        switch self {
        case .noReaders: return "no reader attached"
        case .readerNotFound(let name): return "reader '\(name)' not found"
        case .noCard(let reader): return "no card on reader '\(reader)'"
        case .timeout: return "no card presented in time"
        case .backendFailure(let kind, let why): return "\(kind.rawValue) failure: \(why)"
        }
    }
}

/// A connection to the card on one reader, held for a whole chip session (PC/SC: inside a
/// transaction, so no other client can interleave APDUs into secure messaging).
///
/// `capabilities` are the reader's; `transmit` throws `TransportError` (`.cardRemoved` when the card
/// left, `.readerUnavailable` when the reader or its service went away).
public protocol CardConnection: APDUTransport {
    var reader: ReaderDescriptor { get }
    /// The card's ATR (PC/SC) or the ATR built from its ATS/ATQB (libnfc).
    var atr: [UInt8] { get }
    /// Ends the transaction and disconnects. Idempotent; never throws.
    func close() async
}

/// One reader library. Implementations run every blocking C call on a dedicated thread, never on
/// Swift's cooperative pool.
public protocol ReaderBackend: Sendable {
    var kind: ReaderBackendKind { get }
    /// The readers attached now.
    func readers() async throws -> [ReaderDescriptor]
    /// A new stream of events for each caller. It starts with the current state (`readerAdded` for
    /// every reader, `cardInserted` for every card present) and ends after `shutdown()`.
    func events() -> AsyncStream<ReaderEvent>
    /// Connects to the card on `reader` exclusively. Throws `ReaderError.noCard` when there is none.
    func connect(reader: String) async throws -> any CardConnection
    /// Stops monitoring and cancels blocking calls (`SCardCancel`, `nfc_abort_command`). Idempotent.
    func shutdown() async
}

extension ReaderBackend {
    /// Waits until a card is present on `reader` (any reader of this backend when `nil`) and returns
    /// that reader's name. Driven by `events()`, not by polling.
    public func waitForCard(reader: String?, timeout: Duration) async throws -> String {
        let stream = events()
        return try await withThrowingTaskGroup(of: String?.self) { group in
            group.addTask {
                for await event in stream {
                    if case .cardInserted(let name, _) = event, reader == nil || reader == name {
                        return name
                    }
                }
                return nil
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let name = first else {
                throw ReaderError.timeout
            }
            return name
        }
    }
}
