internal import CLibNFC
import FoundationEssentials
import MRTDCore
import Synchronization
import Glibc
import MRTDPlatform

/// The card selected on a libnfc device. `generation` changes with every new selection, so a
/// connection never talks to a card other than the one it was made for.
struct NFCCard: Sendable, Equatable {
    var generation: UInt64
    var atr: [UInt8]
    /// "ISO/IEC 14443-A 106 kbps" and the like (no card data).
    var modulation: String
}

/// One open libnfc device and its thread. Every libnfc call on the device runs on `thread`;
/// the device pointer is only handed out under `handle`, so `shutdown()` can call
/// `nfc_abort_command` on a call under way and the thread can close the device safely.
// Invariant: the device pointer sits in `handle` (a Mutex); `name` is set before publication; the rest of the vars are confined to `thread`.
final class LibNFCDevice: @unchecked Sendable {
    let connstring: String
    /// Set once in `initialize()`, before the device is published; never changed afterwards.
    private(set) var name: String
    let thread: BlockingThread
    private let configuration: LibNFCBackend.Configuration
    private let emit: @Sendable (ReaderEvent) -> Void
    private let onLost: @Sendable (LibNFCDevice) -> Void

    private struct Handle {
        /// The nfc_device pointer's bits; 0 once closed.
        var device: UInt
        var inCall = false
        var shuttingDown = false
    }
    private let handle: Mutex<Handle>

    // Confined to `thread`.
    private var target = nfc_target()
    private var card: NFCCard?
    private var generation: UInt64 = 0
    private var connectionID: UInt64?
    private var nextConnectionID: UInt64 = 0
    private var modulations: [(type: nfc_modulation_type, rates: [nfc_baud_rate])] = []
    private var lost = false
    private var consecutiveTimeouts = 0
    /// A card was given up for gone: before the next search, drop the field once, so a card that
    /// is in fact still there (and still selected) returns to IDLE and answers again.
    private var fieldResetPending = false

    /// The largest response `nfc_initiator_transceive_bytes` may return (PN53x extended frame).
    private static let receiveCapacity = 264
    /// ``ReaderProfile/minimumExchangeTimeout`` in libnfc's milliseconds.
    static let minimumTimeoutMilliseconds = Int32(ReaderProfile.minimumExchangeTimeout.components.seconds * 1000)

    init(connstring: String, device: OpaquePointer, configuration: LibNFCBackend.Configuration,
         emit: @escaping @Sendable (ReaderEvent) -> Void, onLost: @escaping @Sendable (LibNFCDevice) -> Void) {
        self.connstring = connstring
        self.name = connstring
        self.configuration = configuration
        self.emit = emit
        self.onLost = onLost
        handle = Mutex(Handle(device: UInt(bitPattern: device)))
        thread = BlockingThread(name: "mrtdd-nfc-dev", tickInterval: configuration.pollInterval, stackSize: 1 << 20)
    }

    /// The descriptor as the rest of the system sees it.
    func descriptor(cardPresent: Bool) -> ReaderDescriptor {
        ReaderDescriptor(name: name, backend: .libnfc, capabilities: LibNFCBackend.capabilities, cardPresent: cardPresent)
    }

    // MARK: - Lifecycle (called from the scanner thread)

    /// Puts the device in initiator mode and looks for a card once. Runs on the device thread;
    /// the scanner waits for it. Gives the card found (nil for none), or the failure that makes
    /// the device unusable (it is then closed).
    func initialize() -> Result<NFCCard?, ReaderError> {
        thread.runAndWait { [self] () -> Result<NFCCard?, ReaderError> in
            if let pnd = devicePointer(), let cName = nfc_device_get_name(pnd) {
                let libName = String(cString: cName)
                // pn532_uart names the device after its connstring; USB readers have product names.
                name = libName.contains(connstring) ? libName : "\(libName) (\(connstring))"
            }
            var res = call { nfc_initiator_init($0) }
            // A select must come back when no card is there (PN53x MxRtyPassiveActivation 0x02
            // instead of 0xFF), so polling never blocks the thread.
            if res >= 0 { res = call { nfc_device_set_property_bool($0, NP_INFINITE_SELECT, false) } }
            if res >= 0 { res = call { nfc_device_set_property_bool($0, NP_AUTO_ISO14443_4, true) } }
            guard res >= 0 else {
                closeDevice()
                return .failure(.backendFailure(.libnfc, "initiator mode failed: \(LibNFCFailure.describe(res))"))
            }
            modulations = configuration.modulations.map { modulation in
                let type = modulation.libnfcType
                var buffer = [Int32](repeating: 0, count: 8)
                let n = call { pnd in buffer.withUnsafeMutableBufferPointer { mrtd_nfc_baud_rates(pnd, type, $0.baseAddress, $0.count) } }
                let rates = n > 0 ? buffer.prefix(Int(n)).map { nfc_baud_rate(UInt32($0)) } : [NBR_106]
                return (type, rates)
            }
            poll(emitting: false)
            return .success(card)
        } ?? .failure(.backendFailure(.libnfc, "device thread stopped"))
    }

    /// Starts periodic card polling (after the backend has announced the reader).
    func startPolling() {
        thread.setTick { [self] in
            if connectionID == nil || card == nil { poll(emitting: true) }
        }
    }

    /// Stops the device: aborts a libnfc call under way (`nfc_abort_command`), closes the device
    /// and ends its thread. Idempotent.
    func shutdown() async {
        handle.withLock { $0.shuttingDown = true }
        // An abort that lands before libnfc starts waiting is lost (the driver re-creates its abort
        // pipe), so repeat while a call is still under way; every call has a finite timeout anyway.
        for _ in 0..<100 {
            let busy = handle.withLock { h -> Bool in
                guard h.inCall, let pnd = OpaquePointer(bitPattern: h.device) else { return false }
                _ = nfc_abort_command(pnd)
                return true
            }
            if !busy { break }
            try? await Task.sleep(for: .milliseconds(20))
        }
        _ = try? await thread.run { [self] in closeDevice() }
        thread.setTick(nil)
        thread.stop()
    }

    // MARK: - Connections

    func connect() async throws -> LibNFCConnection {
        let accepted: (UInt64, NFCCard)
        do {
            accepted = try await thread.run { [self] () throws -> (UInt64, NFCCard) in
                guard !lost, devicePointer() != nil else { throw ReaderError.readerNotFound(name) }
                guard connectionID == nil else {
                    throw ReaderError.backendFailure(.libnfc, "reader '\(name)' is already in use")
                }
                // The card may have been swapped since the last poll: make sure the selected one is
                // still there before handing out a connection to it.
                if card != nil, case .absent = presence() { cardLeft() }
                if card == nil { poll(emitting: true) }
                guard let card else { throw ReaderError.noCard(reader: name) }
                nextConnectionID += 1
                connectionID = nextConnectionID
                return (nextConnectionID, card)
            }
        } catch let error as ReaderError {
            throw error
        } catch {
            throw ReaderError.readerNotFound(name)
        }
        return LibNFCConnection(device: self, id: accepted.0, card: accepted.1, reader: descriptor(cardPresent: true))
    }

    func transmit(_ command: [UInt8], connection id: UInt64, generation: UInt64) async throws -> [UInt8] {
        do {
            return try await thread.run { [self] in try exchange(command, connection: id, generation: generation) }
        } catch let error as TransportError {
            throw error
        } catch {
            throw TransportError.readerUnavailable("reader '\(name)' is gone or was shut down")
        }
    }

    func close(connection id: UInt64) async {
        _ = try? await thread.run { [self] in
            if connectionID == id { connectionID = nil }
        }
    }

    // MARK: - On the device thread

    private func devicePointer() -> OpaquePointer? {
        handle.withLock { OpaquePointer(bitPattern: $0.device) }
    }

    /// Runs one blocking libnfc call, marked so `shutdown()` can abort it.
    private func call(_ body: (OpaquePointer) -> Int32) -> Int32 {
        let bits = handle.withLock { h -> UInt in
            guard !h.shuttingDown, h.device != 0 else { return 0 }
            h.inCall = true
            return h.device
        }
        guard let pnd = OpaquePointer(bitPattern: bits) else { return NFC_EOPABORTED }
        mrtd_scrub_stack()
        let result = LibNFCBusLock.shared.device { body(pnd) }
        let aborted = handle.withLock { h -> Bool in
            h.inCall = false
            return h.shuttingDown
        }
        // After an abort, libnfc's answer is not to be trusted (see mrtd_scrub_stack).
        return aborted ? NFC_EOPABORTED : result
    }

    private func exchange(_ command: [UInt8], connection id: UInt64, generation: UInt64) throws -> [UInt8] {
        guard connectionID == id else { throw TransportError.readerUnavailable("connection closed") }
        guard !lost else { throw TransportError.readerUnavailable("reader '\(name)' is gone") }
        guard let card, card.generation == generation else { throw TransportError.cardRemoved }
        let limits = LibNFCBackend.capabilities
        guard command.count <= limits.maxCommandLength else {
            throw TransportError.commandTooLong(command.count, max: limits.maxCommandLength)
        }
        var response = [UInt8](repeating: 0, count: Self.receiveCapacity)
        // Slow chips (1.5 s and more per READ BINARY) must not be cut off: ReaderProfile's floor.
        let timeout = max(configuration.exchangeTimeoutMilliseconds, Self.minimumTimeoutMilliseconds)
        let res = call { pnd in
            command.withUnsafeBufferPointer { tx in
                response.withUnsafeMutableBufferPointer { rx in
                    nfc_initiator_transceive_bytes(pnd, tx.baseAddress, tx.count, rx.baseAddress, rx.count, timeout)
                }
            }
        }
        if res >= 0 {
            consecutiveTimeouts = 0
            response.removeSubrange(Int(res)...)
            return response
        }
        switch LibNFCFailure(code: res) {
        case .targetReleased:
            cardLeft()
            throw TransportError.cardRemoved
        case .rfFailure:
            // No valid answer over RF: the card left, or it is still there and did not answer in time.
            switch presence() {
            case .present: throw TransportError.timeout
            case .absent:
                cardLeft()
                throw TransportError.cardRemoved
            case .deviceLost(let why):
                deviceLost()
                throw TransportError.readerUnavailable(why)
            case .aborted: throw TransportError.readerUnavailable("reader '\(name)' was shut down")
            }
        case .hostTimeout:
            throw TransportError.timeout
        case .deviceLost:
            deviceLost()
            throw TransportError.readerUnavailable("reader '\(name)' is gone: \(LibNFCFailure.describe(res))")
        case .aborted:
            throw TransportError.readerUnavailable("reader '\(name)' was shut down")
        case .other(let code):
            throw TransportError.serviceFailure(LibNFCFailure.describe(code))
        }
    }

    private enum Presence { case present, absent, deviceLost(String), aborted }

    /// libnfc's presence check of the selected target (an ISO/IEC 14443-4 R(NAK) ping or the
    /// PN53x Diagnose "card presence" test, depending on chip and libnfc version).
    private func presence() -> Presence {
        let res = call { pnd in withUnsafePointer(to: &target) { nfc_initiator_target_is_present(pnd, $0) } }
        if res >= 0 { return .present }
        switch LibNFCFailure(code: res) {
        case .deviceLost: return .deviceLost("reader '\(name)' is gone: \(LibNFCFailure.describe(res))")
        case .aborted: return .aborted
        case .hostTimeout:
            consecutiveTimeouts += 1
            return consecutiveTimeouts >= 3 ? .deviceLost("reader '\(name)' stopped answering") : .absent
        default: return .absent
        }
    }

    /// One polling step: a presence check for the selected card, or a search for a new one
    /// (every configured modulation, fastest baud rate first).
    private func poll(emitting: Bool) {
        guard !lost, devicePointer() != nil else { return }
        if card != nil {
            switch presence() {
            case .present: consecutiveTimeouts = 0
            case .absent: cardLeft()
            case .deviceLost: deviceLost()
            case .aborted: break
            }
            return
        }
        if fieldResetPending {
            fieldResetPending = false
            resetField()
        }
        for modulation in modulations {
            switch select(modulation.type, readerRates: modulation.rates) {
            case .found(let candidate, let atr):
                consecutiveTimeouts = 0
                target = candidate
                generation += 1
                card = NFCCard(generation: generation, atr: atr, modulation: Self.describe(candidate))
                if emitting { emit(.cardInserted(reader: name, atr: atr)) }
                return
            case .none:
                continue
            case .failed(let res):
                switch LibNFCFailure(code: res) {
                case .deviceLost:
                    deviceLost()
                    return
                case .aborted:
                    return
                case .hostTimeout:
                    consecutiveTimeouts += 1
                    if consecutiveTimeouts >= 3 { deviceLost() }
                    return
                default:
                    continue
                }
            }
        }
    }

    private enum Selection {
        case found(nfc_target, atr: [UInt8])
        case none
        case failed(Int32)
    }

    /// Selects an ISO/IEC 14443-4 card of `type` at the highest bit rate both the reader and the
    /// card allow: first at 106 kbps, where every card answers; then, when the card's ATS TA(1)
    /// (type A) or ATQB Bit_Rate_capability (type B) and the reader both allow more, again after
    /// resetting the field, at that rate (libnfc then sends PPS/InPSL or selects at it). A card
    /// that refuses the faster rate is selected once more at 106 kbps.
    private func select(_ type: nfc_modulation_type, readerRates: [nfc_baud_rate]) -> Selection {
        let basic = selectOnce(type, NBR_106)
        guard case .found(let found, _) = basic else { return basic }
        let cardRates = Self.cardBitRates(found)
        guard let faster = readerRates.first(where: { $0 != NBR_106 && cardRates.contains($0) }) else { return basic }
        resetField()
        let fast = selectOnce(type, faster)
        if case .found = fast { return fast }
        resetField()
        return selectOnce(type, NBR_106)
    }

    private func selectOnce(_ type: nfc_modulation_type, _ rate: nfc_baud_rate) -> Selection {
        var candidate = nfc_target()
        let res = call { mrtd_nfc_select_passive($0, type, rate, &candidate) }
        if res < 0 { return .failed(res) }
        guard res > 0, let atr = Self.iso14443_4ATR(candidate) else { return .none }  // none, or not ISO/IEC 14443-4
        return .found(candidate, atr: atr)
    }

    /// Drops and restores the field so a selected card returns to IDLE and can be selected again.
    private func resetField() {
        _ = call { nfc_device_set_property_bool($0, NP_ACTIVATE_FIELD, false) }
        _ = call { nfc_device_set_property_bool($0, NP_ACTIVATE_FIELD, true) }
        usleep(5_000)  // ISO/IEC 14443-3 §6.2.1: the card may take up to 5 ms to answer after power-up
    }

    /// The bit rates a card allows in both directions (ISO/IEC 14443-4 §5.2.4 TA(1) for type A,
    /// ISO/IEC 14443-3 §7.9.4.1 Bit_Rate_capability for type B: b7..b5 PICC to PCD 847/424/212,
    /// b3..b1 PCD to PICC 847/424/212).
    static func cardBitRates(_ target: nfc_target) -> [nfc_baud_rate] {
        var target = target
        var capability: UInt8 = 0
        switch nfc_modulation_type(UInt32(mrtd_nfc_target_type(&target))) {
        case NMT_ISO14443A:
            var ats = [UInt8](repeating: 0, count: 254)
            let n = ats.withUnsafeMutableBufferPointer { mrtd_nfc_target_a_ats(&target, $0.baseAddress, $0.count) }
            if n >= 2, ats[0] & 0x10 != 0 { capability = ats[1] }
        case NMT_ISO14443B:
            var info = [UInt8](repeating: 0, count: 8)
            info.withUnsafeMutableBufferPointer { mrtd_nfc_target_b_info(&target, $0.baseAddress) }
            capability = info[4]
        default:
            break
        }
        return bitRates(capability: capability).map { nfc_baud_rate(UInt32($0)) }
    }

    /// The libnfc baud rates (`nfc_baud_rate` raw values) a TA(1)/Bit_Rate_capability byte allows
    /// in both directions, 106 always included.
    static func bitRates(capability: UInt8) -> [UInt32] {
        var rates = [NBR_106.rawValue]
        if capability & 0x10 != 0 && capability & 0x01 != 0 { rates.append(NBR_212.rawValue) }
        if capability & 0x20 != 0 && capability & 0x02 != 0 { rates.append(NBR_424.rawValue) }
        if capability & 0x40 != 0 && capability & 0x04 != 0 { rates.append(NBR_847.rawValue) }
        return rates
    }

    private func cardLeft() {
        guard card != nil else { return }
        card = nil
        target = nfc_target()
        fieldResetPending = true
        emit(.cardRemoved(reader: name))
    }

    private func deviceLost() {
        guard !lost else { return }
        cardLeft()
        lost = true
        closeDevice()
        thread.setTick(nil)
        onLost(self)
    }

    /// Closes a device that was never published (the backend shut down while it was opened).
    func discard() {
        closeDevice()
    }

    private func closeDevice() {
        let bits = handle.withLock { h -> UInt in
            let bits = h.device
            h.device = 0
            return bits
        }
        if let pnd = OpaquePointer(bitPattern: bits) { LibNFCBusLock.shared.enumeration { nfc_close(pnd) } }
    }

    /// The ATR of an ISO/IEC 14443-4 target (PC/SC Part 3 §3.1.3.2.3), nil for other cards.
    private static func iso14443_4ATR(_ target: nfc_target) -> [UInt8]? {
        var target = target
        switch nfc_modulation_type(UInt32(mrtd_nfc_target_type(&target))) {
        case NMT_ISO14443A:
            // SAK b6: ISO/IEC 14443-4 compliant (ISO/IEC 14443-3 §6.5.3.4); the chip sent RATS.
            guard mrtd_nfc_target_a_sak(&target) & 0x20 != 0 else { return nil }
            var ats = [UInt8](repeating: 0, count: 254)
            let n = ats.withUnsafeMutableBufferPointer { mrtd_nfc_target_a_ats(&target, $0.baseAddress, $0.count) }
            guard n > 0 else { return nil }
            return ContactlessATR.typeA(ats: Array(ats.prefix(n)))
        case NMT_ISO14443B:
            var info = [UInt8](repeating: 0, count: 8)
            info.withUnsafeMutableBufferPointer { mrtd_nfc_target_b_info(&target, $0.baseAddress) }
            // ATQB Protocol_Type b1: ISO/IEC 14443-4 compliant (ISO/IEC 14443-3 §7.9.4.3).
            guard info[5] & 0x01 != 0 else { return nil }
            return ContactlessATR.typeB(
                applicationData: Array(info[0..<4]), protocolInfo: Array(info[4..<7]), attribResponseFirstByte: info[7])
        default:
            return nil
        }
    }

    private static func describe(_ target: nfc_target) -> String {
        var target = target
        let type = nfc_modulation_type(UInt32(mrtd_nfc_target_type(&target))) == NMT_ISO14443B ? "B" : "A"
        let rate: String
        switch nfc_baud_rate(UInt32(mrtd_nfc_target_baud_rate(&target))) {
        case NBR_212: rate = "212"
        case NBR_424: rate = "424"
        case NBR_847: rate = "847"
        default: rate = "106"
        }
        return "ISO/IEC 14443-\(type) \(rate) kbps"
    }
}
