import FoundationEssentials
public import MRTDCore
public import MRTDReaders
import Synchronization

/// Named virtual readers whose cards (virtual chips) are inserted and removed at run time: the
/// reader backend of `mrtdd --simulate` and of the daemon's tests.
///
/// Every `connect` powers the card up afresh (a new `VirtualChip` from the inserted configuration),
/// as a real reader's cold reset does, so a card left on the reader can be read again and again.
public final class VirtualReaderBackend: ReaderBackend, Sendable {
    public let kind = ReaderBackendKind.virtual

    private struct Card {
        var configuration: VirtualChipConfiguration
        var atr: [UInt8]
        /// Changes on every insertion, so that a connection to a removed card fails even when
        /// another card is inserted in its place.
        var generation: Int
    }

    private struct Reader {
        var capabilities: TransportCapabilities
        var card: Card?
        /// Delay added to every exchange (a slow chip or a slow reader).
        var latency: Duration
        /// Exchanges that reached the card (or found it gone) since the reader was added.
        var exchanges = 0
        var pull: ScheduledPull?
    }

    /// A card to be pulled when a given exchange arrives (`pullCard(from:atExchange:reinsert:after:)`).
    private struct ScheduledPull {
        /// Exchanges still to be answered before the one that pulls the card.
        var remaining: Int
        var reinsert: VirtualChipConfiguration?
        var delay: Duration
    }

    private struct State {
        var readers: [String: Reader] = [:]
        var order: [String] = []
        var subscribers: [UUID: AsyncStream<ReaderEvent>.Continuation] = [:]
        var generation = 0
        var shutDown = false
    }

    private let state = Mutex(State())

    /// The ATR of a contactless ISO/IEC 14443-4 card as PC/SC reports it (PC/SC part 3, §3.1.3.2.3).
    public static let defaultATR: [UInt8] = [0x3B, 0x80, 0x80, 0x01, 0x01]

    public init() {}

    /// A backend with these readers attached and empty.
    public convenience init(readers: [String], capabilities: TransportCapabilities = .extended) {
        self.init()
        for name in readers { addReader(name, capabilities: capabilities) }
    }

    private func withState<T: Sendable>(_ body: (inout State) -> T) -> T {
        state.withLock { body(&$0) }
    }

    private func publish(_ events: [ReaderEvent], _ subscribers: [AsyncStream<ReaderEvent>.Continuation]) {
        for continuation in subscribers {
            for event in events { continuation.yield(event) }
        }
    }

    /// Attaches a reader (no card). Attaching a name already present changes nothing.
    public func addReader(
        _ name: String, capabilities: TransportCapabilities = .extended, latency: Duration = .zero
    ) {
        let (event, subscribers): (ReaderEvent?, [AsyncStream<ReaderEvent>.Continuation]) = withState { state in
            guard state.readers[name] == nil, !state.shutDown else { return (nil, []) }
            state.readers[name] = Reader(capabilities: capabilities, card: nil, latency: latency)
            state.order.append(name)
            let descriptor = ReaderDescriptor(name: name, backend: .virtual, capabilities: capabilities, cardPresent: false)
            return (.readerAdded(descriptor), Array(state.subscribers.values))
        }
        if let event { publish([event], subscribers) }
    }

    /// Detaches a reader; its card, if any, is reported removed first.
    public func removeReader(_ name: String) {
        let (events, subscribers): ([ReaderEvent], [AsyncStream<ReaderEvent>.Continuation]) = withState { state in
            guard let reader = state.readers.removeValue(forKey: name) else { return ([], []) }
            state.order.removeAll { $0 == name }
            var events: [ReaderEvent] = []
            if reader.card != nil { events.append(.cardRemoved(reader: name)) }
            events.append(.readerRemoved(name: name))
            return (events, Array(state.subscribers.values))
        }
        publish(events, subscribers)
    }

    /// Puts a card on `reader`, replacing any card there (a pull scheduled for the card replaced is
    /// dropped). Returns `false` when there is no such reader.
    @discardableResult
    public func insert(
        _ configuration: VirtualChipConfiguration, into reader: String, atr: [UInt8] = VirtualReaderBackend.defaultATR
    ) -> Bool {
        let change: ([ReaderEvent], [AsyncStream<ReaderEvent>.Continuation])? = withState { state in
            guard var entry = state.readers[reader] else { return nil }
            var events: [ReaderEvent] = []
            if entry.card != nil { events.append(.cardRemoved(reader: reader)) }
            state.generation += 1
            entry.card = Card(configuration: configuration, atr: atr, generation: state.generation)
            entry.pull = nil
            state.readers[reader] = entry
            events.append(.cardInserted(reader: reader, atr: atr))
            return (events, Array(state.subscribers.values))
        }
        guard let change else { return false }
        publish(change.0, change.1)
        return true
    }

    /// Takes the card off `reader`; an open connection to it fails with `TransportError.cardRemoved`.
    public func remove(from reader: String) {
        let subscribers: [AsyncStream<ReaderEvent>.Continuation] = withState { state in
            guard var entry = state.readers[reader], entry.card != nil else { return [] }
            entry.card = nil
            state.readers[reader] = entry
            return Array(state.subscribers.values)
        }
        publish([.cardRemoved(reader: reader)], subscribers)
    }

    /// Pulls the card off `reader` when the exchange `index` exchanges from now arrives (zero-based,
    /// counted over every connection to the reader), before the chip answers it: that exchange
    /// fails with `TransportError.cardRemoved` and `cardRemoved` is published, as when a card
    /// leaves the field mid-command. With `reinsert`, that document is presented again `delay`
    /// later (a new insertion: a fresh chip, nothing selected, no session).
    public func pullCard(
        from reader: String, atExchange index: Int, reinsert: VirtualChipConfiguration? = nil, after delay: Duration = .zero
    ) {
        withState { state in
            state.readers[reader]?.pull = ScheduledPull(remaining: max(0, index), reinsert: reinsert, delay: delay)
        }
    }

    /// Exchanges attempted on `reader` since it was added (failed ones included).
    public func exchanges(reader: String) -> Int {
        withState { $0.readers[reader]?.exchanges ?? 0 }
    }

    /// Sets the delay added to every exchange on `reader`.
    public func setLatency(_ latency: Duration, reader: String) {
        withState { state in state.readers[reader]?.latency = latency }
    }

    private func descriptors(_ state: State) -> [ReaderDescriptor] {
        state.order.compactMap { name in
            state.readers[name].map {
                ReaderDescriptor(name: name, backend: .virtual, capabilities: $0.capabilities, cardPresent: $0.card != nil)
            }
        }
    }

    public func readers() async throws -> [ReaderDescriptor] {
        withState { descriptors($0) }
    }

    public func events() -> AsyncStream<ReaderEvent> {
        let (stream, continuation) = AsyncStream<ReaderEvent>.makeStream(bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        withState { state in
            guard !state.shutDown else {
                continuation.finish()
                return
            }
            // The current state first, under the lock, so no event is lost or seen twice.
            for descriptor in descriptors(state) {
                var empty = descriptor
                empty.cardPresent = false
                continuation.yield(.readerAdded(empty))
                if let card = state.readers[descriptor.name]?.card {
                    continuation.yield(.cardInserted(reader: descriptor.name, atr: card.atr))
                }
            }
            state.subscribers[id] = continuation
        }
        continuation.onTermination = { [weak self] _ in
            self?.withState { state in _ = state.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    public func connect(reader: String) async throws -> any CardConnection {
        let found: (Reader, ReaderDescriptor)? = withState { state in
            guard let entry = state.readers[reader] else { return nil }
            return (entry, ReaderDescriptor(name: reader, backend: .virtual, capabilities: entry.capabilities, cardPresent: entry.card != nil))
        }
        guard let found else { throw ReaderError.readerNotFound(reader) }
        let (entry, descriptor) = found
        guard let card = entry.card else { throw ReaderError.noCard(reader: reader) }
        var configuration = card.configuration
        // The chip cannot take more than the reader carries.
        if !entry.capabilities.extendedLength { configuration.extendedLength = false }
        return VirtualCardConnection(
            backend: self, reader: descriptor, atr: card.atr, generation: card.generation,
            chip: VirtualChip(configuration: configuration))
    }

    /// The delay added to every exchange on `reader`.
    fileprivate func latency(reader: String) -> Duration {
        withState { $0.readers[reader]?.latency ?? .zero }
    }

    /// Counts one exchange arriving at the card of generation `generation` on `reader`, pulling the
    /// card when a scheduled pull is due. Whether that card is (still) there to answer it.
    fileprivate func exchange(reader: String, generation: Int) -> Bool {
        let (present, pulled, subscribers): (Bool, ScheduledPull?, [AsyncStream<ReaderEvent>.Continuation]) = withState { state in
            guard var entry = state.readers[reader] else { return (false, nil, []) }
            entry.exchanges += 1
            defer { state.readers[reader] = entry }
            guard entry.card?.generation == generation else { return (false, nil, []) }
            guard var pull = entry.pull else { return (true, nil, []) }
            if pull.remaining > 0 {
                pull.remaining -= 1
                entry.pull = pull
                return (true, nil, [])
            }
            entry.pull = nil
            entry.card = nil
            return (false, pull, Array(state.subscribers.values))
        }
        if let pulled {
            publish([.cardRemoved(reader: reader)], subscribers)
            if let document = pulled.reinsert {
                let delay = pulled.delay
                Task.detached { [weak self] in
                    if delay > .zero { try? await Task.sleep(for: delay) }
                    self?.insert(document, into: reader)
                }
            }
        }
        return present
    }

    public func shutdown() async {
        let subscribers: [AsyncStream<ReaderEvent>.Continuation] = withState { state in
            state.shutDown = true
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for continuation in subscribers { continuation.finish() }
    }
}

/// A connection to a card on a virtual reader.
final class VirtualCardConnection: CardConnection, Sendable {
    let reader: ReaderDescriptor
    let atr: [UInt8]
    private let backend: VirtualReaderBackend
    private let generation: Int
    private let chip: VirtualChip
    private let closed = Mutex(false)

    init(backend: VirtualReaderBackend, reader: ReaderDescriptor, atr: [UInt8], generation: Int, chip: VirtualChip) {
        self.backend = backend
        self.reader = reader
        self.atr = atr
        self.generation = generation
        self.chip = chip
    }

    var capabilities: TransportCapabilities { reader.capabilities }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let isClosed = closed.withLock { $0 }
        if isClosed { throw TransportError.readerUnavailable("connection closed") }
        let latency = backend.latency(reader: reader.name)
        if latency > .zero {
            do {
                try await Task.sleep(for: latency)
            } catch {
                throw TransportError.readerUnavailable("exchange cancelled")
            }
        }
        guard backend.exchange(reader: reader.name, generation: generation) else { throw TransportError.cardRemoved }
        if closed.withLock({ $0 }) { throw TransportError.readerUnavailable("connection closed") }
        return try await chip.transmit(command)
    }

    func close() async {
        closed.withLock { $0 = true }
    }
}
