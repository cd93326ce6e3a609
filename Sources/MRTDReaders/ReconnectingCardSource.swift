/// The connections of one reconnecting read on one reader: the first `next()` hands out the
/// connection made up front; each later one (after the card was lost) closes it, waits for the card
/// to be presented again and connects anew (docs/reliability.md). `DocumentReader.read(connect:)`
/// calls `next()`; the read's recovery deadline bounds the whole.
public actor ReconnectingCardSource {
    private var current: (any CardConnection)?
    private var handedOut = false
    private let backend: any ReaderBackend
    private let reader: String
    private let waitTimeout: Duration
    /// Connections made after the first.
    public private(set) var reconnections = 0

    public init(first: any CardConnection, backend: any ReaderBackend, reader: String, waitTimeout: Duration = .seconds(10)) {
        current = first
        self.backend = backend
        self.reader = reader
        self.waitTimeout = waitTimeout
    }

    /// The connection to read over: the first one, then a new one each time the card comes back.
    public func next() async throws -> any CardConnection {
        if !handedOut, let current {
            handedOut = true
            return current
        }
        await current?.close()
        current = nil
        _ = try await backend.waitForCard(reader: reader, timeout: waitTimeout)
        let connection = try await backend.connect(reader: reader)
        current = connection
        reconnections += 1
        return connection
    }

    /// Closes the connection in use.
    public func close() async {
        await current?.close()
        current = nil
    }
}
