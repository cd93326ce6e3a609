public import MRTDCore
import Synchronization

/// Passes every exchange to another transport and keeps a copy of both directions, in order:
/// the `exchanges` of a transcript.
///
/// An exchange that failed with a `TransportError` (the card left, the chip timed out, the reader
/// vanished) is kept with that error and no response, so that a replay fails (or reconnects) at the
/// same point. Recorders made with ``init(_:continuing:)`` for the links of a reconnecting read
/// share one log.
public final class RecordingTransport: APDUTransport {
    private final class Log: Sendable {
        let exchanges = Mutex<[ScriptedTransport.Exchange]>([])
    }

    private let base: any APDUTransport
    private let log: Log

    public init(_ base: any APDUTransport) {
        self.base = base
        log = Log()
    }

    /// Records the exchanges over `base` (a new link after a reconnection) into `previous`'s log.
    public init(_ base: any APDUTransport, continuing previous: RecordingTransport) {
        self.base = base
        log = previous.log
    }

    public var capabilities: TransportCapabilities { base.capabilities }

    /// The exchanges so far.
    public var exchanges: [ScriptedTransport.Exchange] { log.exchanges.withLock { $0 } }

    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let response: [UInt8]
        do {
            response = try await base.transmit(command)
        } catch let error as TransportError {
            log.exchanges.withLock { $0.append(.init(command: command, response: [], error: error)) }
            throw error
        }
        log.exchanges.withLock { $0.append(.init(command: command, response: response)) }
        return response
    }
}
