public import MRTDCore
import Synchronization

/// A transport that expects a fixed sequence of commands and answers each with a fixed response:
/// worked examples from the specs, and (later) recorded transcripts.
///
/// A command that differs from the expected one fails the exchange with `ScriptedTransport.Mismatch`
/// naming the index and both commands.
public final class ScriptedTransport: APDUTransport {
    public struct Exchange: Sendable, Equatable {
        public var command: [UInt8]
        public var response: [UInt8]
        /// The link failed on this exchange instead of answering (a recorded card removal or timeout).
        public var error: TransportError?
        public init(command: [UInt8], response: [UInt8], error: TransportError? = nil) {
            self.command = command
            self.response = response
            self.error = error
        }
    }

    public struct Mismatch: Error, Sendable, Equatable, CustomStringConvertible {
        public var index: Int
        public var expected: [UInt8]?
        public var actual: [UInt8]
        public var description: String {
            guard let expected else { return "exchange \(index): unexpected command \(actual.hex) past the script's end" }
            return "exchange \(index): expected command \(expected.hex), got \(actual.hex)"
        }
    }

    public let capabilities: TransportCapabilities
    private let exchanges: [Exchange]
    private let position = Mutex(0)
    private let mismatchSeen = Mutex<Mismatch?>(nil)

    public init(_ exchanges: [Exchange], capabilities: TransportCapabilities = .extended) {
        self.exchanges = exchanges
        self.capabilities = capabilities
    }

    /// Exchanges consumed so far.
    public var consumed: Int { position.withLock { $0 } }

    /// The first command that differed from the script (the session above may have wrapped the
    /// thrown error into its own).
    public var firstMismatch: Mismatch? { mismatchSeen.withLock { $0 } }

    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let outcome: Result<Exchange, Mismatch> = position.withLock { index in
            guard index < exchanges.count else { return .failure(Mismatch(index: index, expected: nil, actual: command)) }
            let exchange = exchanges[index]
            guard exchange.command == command else {
                return .failure(Mismatch(index: index, expected: exchange.command, actual: command))
            }
            index += 1
            return .success(exchange)
        }
        if case .failure(let mismatch) = outcome {
            mismatchSeen.withLock { if $0 == nil { $0 = mismatch } }
        }
        let exchange = try outcome.get()
        if let error = exchange.error { throw error }
        return exchange.response
    }
}

