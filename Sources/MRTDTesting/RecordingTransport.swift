import MRTDCore
import Synchronization

/// Passes every exchange to another transport and keeps a copy of both directions, in order:
/// the `exchanges` of a transcript.
///
/// Failed exchanges (the card left, the reader vanished) are not recorded: a replay of the
/// transcript ends where the live session lost its card.
public final class RecordingTransport: APDUTransport {
    private let base: any APDUTransport
    private let log = Mutex<[ScriptedTransport.Exchange]>([])

    public init(_ base: any APDUTransport) {
        self.base = base
    }

    public var capabilities: TransportCapabilities { base.capabilities }

    /// The exchanges so far.
    public var exchanges: [ScriptedTransport.Exchange] { log.withLock { $0 } }

    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let response = try await base.transmit(command)
        log.withLock { $0.append(.init(command: command, response: response)) }
        return response
    }
}
