internal import CLibNFC
import FoundationEssentials
public import MRTDCore
import Synchronization
import MRTDPlatform

/// PN53x boards and other readers driven by libnfc (1.8): discovery, ISO/IEC 14443-A and -B
/// cards, exchanges, and hot-plug by periodic rescans (libnfc has no hot-plug notifications).
///
/// Devices come from `Configuration.connstrings` and, unless turned off, from
/// `nfc_list_devices`, which honours libnfc's own configuration: `/etc/nfc/libnfc.conf`,
/// `/etc/nfc/devices.d/`, and the `LIBNFC_DEFAULT_DEVICE`, `LIBNFC_DEVICE`, `LIBNFC_AUTO_SCAN`,
/// `LIBNFC_INTRUSIVE_SCAN` and `LIBNFC_LOG_LEVEL` environment variables.
///
/// Each device gets a thread of its own for every libnfc call; a scanner thread runs `nfc_init`,
/// discovery and `nfc_exit`. Call `shutdown()` before dropping the backend: it aborts a call
/// under way with `nfc_abort_command`, closes the devices and ends the threads.
public final class LibNFCBackend: ReaderBackend {
    /// How the backend finds devices and how often it looks.
    public struct Configuration: Sendable {
        /// Devices to open besides those libnfc lists, e.g. `pn532_uart:/dev/ttyUSB0:115200`,
        /// `pn53x_usb:`, `acr122_usb:`. Retried at every rescan while absent.
        public var connstrings: [String]
        /// Whether to ask `nfc_list_devices` too (libnfc.conf, `LIBNFC_*`, USB autoscan).
        public var listDevices: Bool
        /// How often to look for devices that appeared.
        public var rescanInterval: Duration
        /// How often an idle device looks for a card, or checks that its card is still there.
        public var pollInterval: Duration
        /// The host-side limit for one exchange (the PN53x handles the card's waiting-time
        /// extensions within it).
        public var exchangeTimeout: Duration
        /// The card types to look for, in this order.
        public var modulations: [Modulation]

        public init(
            connstrings: [String] = [], listDevices: Bool = true, rescanInterval: Duration = .seconds(2),
            pollInterval: Duration = .milliseconds(250), exchangeTimeout: Duration = .seconds(5),
            modulations: [Modulation] = [.iso14443A, .iso14443B]
        ) {
            self.connstrings = connstrings
            self.listDevices = listDevices
            self.rescanInterval = rescanInterval
            self.pollInterval = pollInterval
            self.exchangeTimeout = exchangeTimeout
            self.modulations = modulations
        }

        var exchangeTimeoutMilliseconds: Int32 {
            let (s, atto) = exchangeTimeout.components
            return Int32(clamping: max(1, s * 1000 + atto / 1_000_000_000_000_000))
        }
    }

    /// Card types an eMRTD uses (Doc 9303-10 §2: ISO/IEC 14443 type A or B, ISO/IEC 14443-4).
    public enum Modulation: String, Sendable, CaseIterable {
        case iso14443A
        case iso14443B

        var libnfcType: nfc_modulation_type {
            switch self {
            case .iso14443A: return NMT_ISO14443A
            case .iso14443B: return NMT_ISO14443B
            }
        }
    }

    /// What a PN53x carries: one frame holds at most 264 bytes (UM0701-02 §6.2.1.2), so short
    /// APDUs only (ISO/IEC 7816-4: 261-byte commands, 256 + 2-byte responses); the chip chains
    /// ISO/IEC 14443-4 blocks itself.
    public static let capabilities = TransportCapabilities.shortOnly

    public let kind = ReaderBackendKind.libnfc
    private let configuration: Configuration
    private let scanner: BlockingThread

    private struct State {
        var context: UInt = 0
        var initFailure: String?
        var devices: [String: LibNFCDevice] = [:]
        var readers: [ReaderDescriptor] = []
        var atrs: [String: [UInt8]] = [:]
        var subscribers: [Int: AsyncStream<ReaderEvent>.Continuation] = [:]
        var nextSubscriber = 0
        var shutdown = false
        /// The first scan after `nfc_init` is done: the state is worth reporting.
        var started = false
        /// Devices that opened but failed to initialise, and when to try them again.
        var unusableUntil: [String: ContinuousClock.Instant] = [:]
    }
    private let state = Mutex(State())

    /// Starts libnfc (`nfc_init`) and the first device scan on the scanner thread.
    public init(configuration: Configuration = .init()) {
        self.configuration = configuration
        scanner = BlockingThread(name: "mrtdd-nfc-scan", tickInterval: configuration.rescanInterval, stackSize: 1 << 20)
        scanner.submit { [weak self] in self?.start() }
    }

    public func readers() async throws -> [ReaderDescriptor] {
        await waitUntilStarted()
        return try state.withLock { s throws(ReaderError) -> [ReaderDescriptor] in
            if let failure = s.initFailure { throw ReaderError.backendFailure(.libnfc, failure) }
            return s.readers
        }
    }

    public func events() -> AsyncStream<ReaderEvent> {
        let (stream, continuation) = AsyncStream<ReaderEvent>.makeStream()
        // The snapshot and the registration happen under one lock, so no change falls between them.
        let id = state.withLock { s -> Int? in
            guard !s.shutdown else { return nil }
            for reader in s.readers {
                continuation.yield(.readerAdded(reader))
                if let atr = s.atrs[reader.name] { continuation.yield(.cardInserted(reader: reader.name, atr: atr)) }
            }
            let id = s.nextSubscriber
            s.nextSubscriber += 1
            s.subscribers[id] = continuation
            return id
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        // Outside the lock: the handler takes it.
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    /// Connects to the card on the reader named `reader` (its name or its connstring).
    public func connect(reader: String) async throws -> any CardConnection {
        await waitUntilStarted()
        let device = state.withLock { s in
            s.devices.values.first { $0.name == reader || $0.connstring == reader }
        }
        guard let device else { throw ReaderError.readerNotFound(reader) }
        return try await device.connect()
    }

    public func shutdown() async {
        // From here on a scan registers nothing (a device it opens is closed again).
        let devices = state.withLock { s -> [LibNFCDevice] in
            s.shutdown = true
            let all = Array(s.devices.values)
            s.devices = [:]
            s.readers = []
            s.atrs = [:]
            return all
        }
        await withTaskGroup(of: Void.self) { group in
            for device in devices { group.addTask { await device.shutdown() } }
        }
        _ = try? await scanner.run { [self] in
            let context = state.withLock { s -> UInt in
                let bits = s.context
                s.context = 0
                return bits
            }
            if let context = OpaquePointer(bitPattern: context) { nfc_exit(context) }
        }
        scanner.setTick(nil)
        scanner.stop()
        let subscribers = state.withLock { s -> [AsyncStream<ReaderEvent>.Continuation] in
            let all = Array(s.subscribers.values)
            s.subscribers = [:]
            return all
        }
        for subscriber in subscribers { subscriber.finish() }
    }

    // MARK: - Scanner thread

    private func start() {
        var context: OpaquePointer?
        nfc_init(&context)
        guard let context else {
            let why = "nfc_init failed (libnfc could not start; check /etc/nfc/libnfc.conf)"
            state.withLock {
                $0.initFailure = why
                $0.started = true
            }
            emit(.backendUnavailable(.libnfc, reason: why))
            return
        }
        state.withLock { $0.context = UInt(bitPattern: context) }
        scan()
        state.withLock { $0.started = true }
        scanner.setTick { [weak self] in self?.scan() }
    }

    private func scan() {
        guard let context = state.withLock({ s -> UInt? in s.shutdown ? nil : s.context }),
              let ctx = OpaquePointer(bitPattern: context) else { return }
        var candidates = configuration.connstrings
        if configuration.listDevices {
            let size = mrtd_nfc_connstring_size()
            let capacity = 16
            var buffer = [CChar](repeating: 0, count: size * capacity)
            let found = LibNFCBusLock.shared.enumeration {
                buffer.withUnsafeMutableBufferPointer { mrtd_nfc_list_devices(ctx, $0.baseAddress, capacity) }
            }
            for connstring in Self.connstrings(listed: buffer, count: min(found, capacity), size: size)
            where !candidates.contains(connstring) {
                candidates.append(connstring)
            }
        }
        let now = ContinuousClock.now
        for connstring in candidates {
            let skip = state.withLock { s in
                s.shutdown || s.devices[connstring] != nil || (s.unusableUntil[connstring].map { now < $0 } ?? false)
            }
            // A serial port that is not there: no need to have libnfc say so at every rescan.
            if skip || !Self.portMayExist(connstring) { continue }
            guard let pnd = LibNFCBusLock.shared.enumeration({ nfc_open(ctx, connstring) }) else { continue }
            let device = LibNFCDevice(
                connstring: connstring, device: pnd, configuration: configuration,
                emit: { [weak self] event in self?.emit(event) },
                onLost: { [weak self] device in self?.deviceLost(device) })
            guard case .success(let card) = device.initialize() else {
                // Opens but will not work as an initiator: try again much later, not every rescan.
                device.thread.stop()
                state.withLock { $0.unusableUntil[connstring] = now + configuration.rescanInterval * 15 }
                continue
            }
            let registered = state.withLock { s -> Bool in
                guard !s.shutdown else { return false }
                s.devices[connstring] = device
                return true
            }
            guard registered else {
                _ = device.thread.runAndWait { device.discard() }
                device.thread.stop()
                continue
            }
            emit(.readerAdded(device.descriptor(cardPresent: card != nil)))
            if let card { emit(.cardInserted(reader: device.name, atr: card.atr)) }
            device.startPolling()
        }
    }

    /// The connstrings `nfc_list_devices` wrote into `buffer` (`count` slots of `size` bytes, each
    /// 0-terminated), without those of libnfc's PC/SC drivers: a libnfc built with them lists PC/SC
    /// readers too, and those are the PC/SC backend's (Debian's libnfc 1.8 is built without them).
    static func connstrings(listed buffer: [CChar], count: Int, size: Int) -> [String] {
        (0..<count).compactMap { i -> String? in
            guard (i + 1) * size <= buffer.count else { return nil }
            let bytes = buffer[(i * size)..<((i + 1) * size)].prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            let connstring = String(decoding: bytes, as: UTF8.self)
            if connstring.isEmpty || connstring.hasPrefix("pcsc:") || connstring.hasPrefix("acr122_pcsc:") { return nil }
            return connstring
        }
    }

    /// False when `connstring` names a device path (`pn532_uart:/dev/ttyUSB0:115200`) that does
    /// not exist; true otherwise (USB connstrings, or no path).
    static func portMayExist(_ connstring: String) -> Bool {
        let fields = connstring.split(separator: ":", omittingEmptySubsequences: false)
        guard fields.count >= 2, fields[1].hasPrefix("/") else { return true }
        return FileManager.default.fileExists(atPath: String(fields[1]))
    }

    // MARK: - Events

    private func deviceLost(_ device: LibNFCDevice) {
        let removed = state.withLock { s -> Bool in
            guard s.devices[device.connstring] === device else { return false }
            s.devices[device.connstring] = nil
            return true
        }
        if removed { emit(.readerRemoved(name: device.name)) }
        device.thread.stop()
    }

    /// Updates the state the initial events of `events()` are built from, and tells every
    /// subscriber, under one lock so no subscriber misses or repeats a change.
    private func emit(_ event: ReaderEvent) {
        state.withLock { s in
            switch event {
            case .readerAdded(let reader):
                s.readers.removeAll { $0.name == reader.name }
                s.readers.append(reader)
            case .readerRemoved(let name):
                s.readers.removeAll { $0.name == name }
                s.atrs[name] = nil
            case .cardInserted(let name, let atr):
                s.atrs[name] = atr
                if let i = s.readers.firstIndex(where: { $0.name == name }) { s.readers[i].cardPresent = true }
            case .cardRemoved(let name):
                s.atrs[name] = nil
                if let i = s.readers.firstIndex(where: { $0.name == name }) { s.readers[i].cardPresent = false }
            case .backendUnavailable, .backendRecovered:
                break
            }
            for subscriber in s.subscribers.values { subscriber.yield(event) }
        }
    }

    /// Waits for the first scan after `nfc_init` (later ones keep the state current by themselves).
    private func waitUntilStarted() async {
        if state.withLock({ $0.started }) { return }
        await barrier()
    }

    /// Waits until the scanner has finished what it is doing.
    private func barrier() async {
        _ = try? await scanner.run {}
    }

}
