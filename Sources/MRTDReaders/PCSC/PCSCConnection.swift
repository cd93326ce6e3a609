import MRTDCore
internal import CPCSCLite
import FoundationEssentials
import Synchronization
import MRTDPlatform

/// A session with the card on one PC/SC reader: its own context, a shared connection inside a
/// transaction held until `close()` (so no other PC/SC client can interleave APDUs into secure
/// messaging), and a dedicated thread for every blocking call.
final class PCSCConnection: CardConnection, Sendable {
    let reader: ReaderDescriptor
    let atr: [UInt8]

    private let worker: BlockingThread
    private let context: PCSCContext
    private let card: PCSCContext.Card
    private let options: PCSCOptions
    private let registry: ConnectionRegistry

    private struct State {
        var closed = false
        var capabilities: TransportCapabilities
        /// Whether `capabilities.extendedLength` is a guess to drop on the first failure.
        var extendedLengthTentative: Bool
        /// The response buffer, used only on `worker`: taken out for an exchange, so
        /// that no lock is held during `SCardTransmit`, and put back after it.
        var buffer: [UInt8]
    }

    private let state: Mutex<State>

    var capabilities: TransportCapabilities {
        state.withLock { $0.capabilities }
    }

    private init(
        reader: ReaderDescriptor, atr: [UInt8], worker: BlockingThread, context: PCSCContext,
        card: PCSCContext.Card, capabilities: TransportCapabilities, tentative: Bool,
        options: PCSCOptions, registry: ConnectionRegistry
    ) {
        self.atr = atr
        self.worker = worker
        self.context = context
        self.card = card
        self.options = options
        self.registry = registry
        state = Mutex(State(
            capabilities: capabilities, extendedLengthTentative: tentative,
            buffer: [UInt8](repeating: 0, count: Int(mrtd_max_buffer_size_extended()))))
        self.reader = reader
        registry.opened()
    }

    /// Connects on a new thread: context, `SCardConnect`, `SCardBeginTransaction`, ATR, capabilities.
    static func open(
        reader name: String, options: PCSCOptions, registry: ConnectionRegistry,
        cache: CapabilityCache
    ) async throws -> PCSCConnection {
        let worker = BlockingThread(name: "pcsc-session")
        do {
            return try await worker.run { () throws -> PCSCConnection in
                let context: PCSCContext
                do throws(PCSCStatus) { context = try PCSCContext.establish() } catch {
                    throw ReaderError.backendFailure(.pcsc, error.description)
                }
                do throws(PCSCStatus) {
                    let card = try context.connect(reader: name)
                    let began = card.beginTransaction()
                    guard began == .success else {
                        card.disconnect(reset: false)
                        throw began
                    }
                    let (status, atr) = card.status()
                    guard status == .success else {
                        card.endTransaction()
                        card.disconnect(reset: false)
                        throw status
                    }
                    let (readerCaps, source) = decideCapabilities(card: card, reader: name, options: options)
                    cache.store(name, readerCaps, source: source)
                    let descriptor = ReaderDescriptor(
                        name: name, backend: .pcsc, capabilities: readerCaps, cardPresent: true)
                    let caps = effectiveCapabilities(reader: readerCaps, atr: atr)
                    return PCSCConnection(
                        reader: descriptor, atr: atr, worker: worker, context: context, card: card,
                        capabilities: caps, tentative: source == .assumed && caps.extendedLength,
                        options: options, registry: registry)
                } catch {
                    context.release()
                    throw connectError(error, reader: name)
                }
            }
        } catch {
            worker.stop()
            throw error
        }
    }

    /// What a session offers the protocol layer: min(reader, chip). The chip's side comes from the
    /// card capabilities in its historical bytes (ISO/IEC 7816-4 §8.1.1.2.7); a chip that does not
    /// advertise extended Lc/Le gets short APDUs (RELIABILITY TR-04: use extended length only when
    /// the chip advertises it, many chips answer 6700 or nothing otherwise).
    static func effectiveCapabilities(reader: TransportCapabilities, atr: [UInt8]) -> TransportCapabilities {
        guard reader.extendedLength else { return reader }
        let advertised = (try? AnswerToReset(atr))?.advertisesExtendedLength ?? false
        return advertised ? reader : .shortOnly
    }

    static func connectError(_ status: PCSCStatus, reader: String) -> ReaderError {
        if status.meansCardGone || status == .unresponsiveCard { return .noCard(reader: reader) }
        if status.meansReaderGone { return .readerNotFound(reader) }
        return .backendFailure(.pcsc, status.description)
    }

    static func decideCapabilities(
        card: PCSCContext.Card, reader name: String, options: PCSCOptions
    ) -> (TransportCapabilities, CapabilitySource) {
        // ISO/IEC 7816-3 §12.2: extended APDUs over T=0 need ENVELOPE; stay short.
        if card.isT0 || options.extendedLength == .never { return (.shortOnly, .configured) }
        if options.extendedLength == .always { return (.extended, .configured) }
        return ReaderCapabilityProbe.decide(readerName: name, probed: ReaderCapabilityProbe.probe(card))
    }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let caps = capabilities
        guard command.count <= caps.maxCommandLength else {
            throw TransportError.commandTooLong(command.count, max: caps.maxCommandLength)
        }
        let isClosed = state.withLock { $0.closed }
        guard !isClosed else { throw TransportError.cardRemoved }
        do {
            return try await worker.run { [self] () throws(TransportError) -> [UInt8] in
                try exchange(command)
            }
        } catch is BlockingThread.Stopped {
            throw TransportError.cardRemoved
        }
    }

    /// On `worker`.
    private func exchange(_ command: [UInt8]) throws(TransportError) -> [UInt8] {
        let failure: PCSCStatus
        do throws(PCSCStatus) {
            var buffer = state.withLock { state in
                defer { state.buffer = [] }
                return state.buffer
            }
            defer { state.withLock { $0.buffer = buffer } }
            let response = try card.transmit(command, buffer: &buffer)
            // ISO/IEC 7816-4 §5.1: every response ends with SW1-SW2. Drivers (vpcd among them)
            // report a card that vanished mid-exchange as an empty answer.
            if response.count >= 2 { return response }
            failure = .commError
        } catch {
            failure = error
        }
        if failure.meansCardGone || failure.meansServiceLost || failure == .timeout {
            throw failure.transportError
        }
        // Anything else may hide a card or a pcscd that just went away (a killed pcscd has been
        // seen to give SCARD_F_COMM_ERROR, SCARD_W_SECURITY_VIOLATION or an empty answer).
        switch afterAmbiguousFailure() {
        case .cardGone:
            throw .cardRemoved
        case .serviceGone(let status):
            throw status.transportError
        case .cardPresent:
            // The card is still there: an extended APDU the reader could not carry. The chip never
            // saw it: "too long for this reader" (not a 6700 of the chip's, whose secure-messaging
            // counter would have moved), and short APDUs from now on.
            if Self.isExtended(command) && state.withLock({ $0.extendedLengthTentative }) {
                state.withLock { state in
                    state.capabilities = .shortOnly
                    state.extendedLengthTentative = false
                }
                throw .commandTooLong(command.count, max: TransportCapabilities.shortOnly.maxCommandLength)
            }
            throw failure.transportError
        }
    }

    private enum AfterFailure { case cardGone, serviceGone(PCSCStatus), cardPresent }

    /// After an ambiguous failure: whether pcscd reports the card gone within `removalConfirmation`
    /// (waiting on a status change, not polling), or is itself gone.
    private func afterAmbiguousFailure() -> AfterFailure {
        let (status, _) = card.status()
        if status.meansCardGone { return .cardGone }
        if status.meansServiceLost || status == .commError { return .serviceGone(.noService) }
        let gone = UInt(SCARD_STATE_EMPTY | SCARD_STATE_UNKNOWN | SCARD_STATE_UNAVAILABLE)
        // Start from the reader's actual state (sharing bits included), then wait for changes until
        // the card is reported gone or the confirmation time is over.
        var states = [PCSCContext.ReaderState(name: reader.name, currentState: UInt(SCARD_STATE_UNAWARE))]
        let deadline = ContinuousClock.now + options.removalConfirmation
        var timeout: UInt = 0
        while true {
            let result = context.statusChange(&states, timeout: timeout)
            switch result {
            case .success:
                if states[0].eventState & gone != 0 { return .cardGone }
                states[0].currentState = states[0].eventState & ~UInt(SCARD_STATE_CHANGED)
            case .timeout:
                break
            default:
                if result.meansReaderGone { return .cardGone }
                if result.meansServiceLost || result == .commError { return .serviceGone(.noService) }
                return .cardPresent
            }
            let left = deadline - ContinuousClock.now
            if left <= .zero { return .cardPresent }
            timeout = max(1, left.wholeMilliseconds)
        }
    }

    /// ISO/IEC 7816-3 §12.1.3: an extended APDU has 00 where a short one has Lc or Le.
    static func isExtended(_ command: [UInt8]) -> Bool {
        command.count >= 7 && command[4] == 0x00
    }

    func close() async {
        guard markClosed() else { return }
        _ = try? await worker.run { [context, card, options] in
            card.endTransaction()
            card.disconnect(reset: options.resetOnClose)
            context.release()
        }
        worker.stop()
        registry.closed()
    }

    private func markClosed() -> Bool {
        state.withLock { state in
            if state.closed { return false }
            state.closed = true
            return true
        }
    }

    deinit {
        // A connection dropped without close(): release the handle on its own thread.
        if markClosed() {
            let (context, card, registry) = (context, card, registry)
            worker.submit {
                card.endTransaction()
                card.disconnect(reset: true)
                context.release()
                registry.closed()
            }
        }
        worker.stop()
    }
}

/// Counts open PC/SC sessions (handles and contexts not yet released).
final class ConnectionRegistry: Sendable {
    private let count = Mutex(0)
    var open: Int { count.withLock { $0 } }
    func opened() { count.withLock { $0 += 1 } }
    func closed() { count.withLock { $0 -= 1 } }
}

/// What each reader was found to carry, by name.
final class CapabilityCache: Sendable {
    private let entries = Mutex<[String: TransportCapabilities]>([:])

    func store(_ reader: String, _ capabilities: TransportCapabilities, source: CapabilitySource) {
        // A guess is not worth remembering over what a reader said.
        guard source != .assumed else { return }
        entries.withLock { $0[reader] = capabilities }
    }

    func capabilities(_ reader: String) -> TransportCapabilities? {
        entries.withLock { $0[reader] }
    }

    func forget(_ reader: String) {
        _ = entries.withLock { $0.removeValue(forKey: reader) }
    }
}
