internal import CPseudoTerminal
import Foundation
public import MRTDCore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif
import MRTDPlatform
import MRTDSimulation

/// A PN532 on a serial line, in software: it opens a pseudo-terminal and answers the PN532 UART
/// protocol (NXP UM0701-02) the way libnfc's `pn532_uart` driver and `pn53x` chip code expect,
/// so tests drive the real libnfc through the connstring `pn532_uart:/dev/pts/N`.
///
/// ISO/IEC 14443-4 exchanges (`InDataExchange`) are passed as APDUs to the presented card's
/// `APDUTransport` (a `VirtualChip`). A card can be type A or type B, can leave the field after a
/// given number of APDUs, or make the chip stop answering the host (a hung reader).
///
/// Commands answered: Diagnose (communication test 0x00, card presence 0x06), GetFirmwareVersion,
/// GetGeneralStatus, ReadRegister, WriteRegister, ReadGPIO, WriteGPIO, SetSerialBaudRate,
/// SetParameters, SAMConfiguration, PowerDown, RFConfiguration, InListPassiveTarget (106 kbps
/// type A with ATS, 106 kbps type B with ATTRIB; held while no card is there and MxRtyPassive-
/// Activation is FF, as the chip does), InDataExchange (MI chaining both ways), InCommunicateThru
/// (ISO/IEC 14443-4 R(NAK) presence pings, S(DESELECT)), InSelect, InDeselect, InRelease, InPSL.
/// Anything else gets the syntax-error frame and is counted in `statistics.unknownCommands`.
// Invariant: shared state sits in `state` (a Mutex); the `pending*`/`lastFrame` vars are confined to the emulator's thread.
public final class PN532Emulator: @unchecked Sendable {
    /// A card to present.
    public struct Card: Sendable {
        public enum Kind: String, Sendable, CaseIterable {
            case typeA
            case typeB
        }
        public var kind: Kind
        /// Where the APDUs go.
        public var chip: any APDUTransport
        /// Answer this many APDUs, then leave the field (the next APDU gets no answer over RF).
        public var removeAfterAPDUs: Int?
        /// Answer this many APDUs, then stop answering the host at all (ACK only, like a hung chip).
        public var stallAfterAPDUs: Int?
        /// Whether the card answers PPS (InPSL) to a bit rate its ATS TA(1) offers; a card that
        /// does not lets the host fall back to 106 kbps.
        public var acceptsPPS = true
        /// Type A: the UID (NFCID1; 4 bytes, random per ISO/IEC 14443-3 when it starts with 08).
        public var uid: [UInt8] = [0x08, 0x4D, 0x52, 0x54]
        /// Type A: the ATS, TL first (FSCI 8, TA TB TC, historical bytes "MRTD").
        public var ats: [UInt8] = [0x09, 0x78, 0x80, 0x70, 0x02, 0x4D, 0x52, 0x54, 0x44]
        /// Type B: the ATQB fields.
        public var pupi: [UInt8] = [0x4D, 0x52, 0x54, 0x44]
        public var applicationData: [UInt8] = [0x00, 0x00, 0x00, 0x00]
        /// Bit rates 106 only; max frame 256, ISO/IEC 14443-4; FWI 7, CID supported.
        public var protocolInfo: [UInt8] = [0x00, 0x81, 0x71]

        public init(kind: Kind, chip: any APDUTransport, removeAfterAPDUs: Int? = nil, stallAfterAPDUs: Int? = nil) {
            self.kind = kind
            self.chip = chip
            self.removeAfterAPDUs = removeAfterAPDUs
            self.stallAfterAPDUs = stallAfterAPDUs
        }

        /// The target data of InListPassiveTarget after Tg (UM0701-02 §7.3.5).
        var targetData: [UInt8] {
            switch kind {
            case .typeA:
                // SENS_RES 00 04 (single-size UID), SEL_RES 20 (ISO/IEC 14443-4), NFCID1, ATS.
                return [0x00, 0x04, 0x20, UInt8(uid.count)] + uid + ats
            case .typeB:
                // ATQB (50, PUPI, Application Data, Protocol Info), ATTRIB_RES length and byte (MBLI 0, CID 0).
                return [0x50] + pupi + applicationData + protocolInfo + [0x01, 0x00]
            }
        }
    }

    /// What the emulator saw.
    public struct Statistics: Sendable, Equatable {
        /// PN532 command codes received, with counts.
        public var commands: [UInt8: Int] = [:]
        /// Command codes answered with the syntax-error frame.
        public var unknownCommands: [UInt8] = []
        /// APDUs passed to cards and answered.
        public var apdus = 0
        /// Frames with a bad checksum.
        public var corruptFrames = 0
        /// Aborts (ACK frames) received from the host.
        public var aborts = 0
    }

    /// The pseudo-terminal's slave side, e.g. `/dev/pts/7`.
    public let devicePath: String
    /// What libnfc opens: `pn532_uart:/dev/pts/N`.
    public var connstring: String { "pn532_uart:\(devicePath)" }

    private struct ChipState {
        var card: Card?
        /// The chip has a target listed (InListPassiveTarget, not released since).
        var listed = false
        /// The card in the field is in the ISO/IEC 14443-4 PROTOCOL state (selected, RATS/ATTRIB
        /// done); a card just presented is not, until the next InListPassiveTarget.
        var active = false
        var apdusOnCard = 0
        var stalled = false
        var piccBlockNumber: UInt8 = 1
        var mxRtyPassiveActivation: UInt8 = 0xFF
        var registers: [UInt16: UInt8] = [:]
        var statistics = Statistics()
        var stopped = false
    }
    private let state = Mutex(ChipState())
    private let master: Int32
    private let slave: Int32
    private let wake: (read: Int32, write: Int32)
    /// The emulator's own thread, once it runs (`stop()` from that thread must not wait for it).
    private let servingThread = Mutex<pthread_t?>(nil)
    private let finished = DispatchSemaphore(value: 0)

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens a pseudo-terminal in raw mode and starts answering on it. Call `stop()` when done.
    public init() throws {
        var name = [CChar](repeating: 0, count: 128)
        let master = name.withUnsafeMutableBufferPointer { mrtd_pty_open($0.baseAddress, $0.count) }
        guard master >= 0 else { throw SetupError(description: "posix_openpt: \(Self.errorText())") }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // Hold the slave side open too: without it, the master reads EIO whenever libnfc closes
        // the port, and the device would vanish between two opens.
        let slave = open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw SetupError(description: "open \(path): \(Self.errorText())")
        }
        var tio = termios()
        tcgetattr(slave, &tio)
        cfmakeraw(&tio)
        tcsetattr(slave, TCSANOW, &tio)
        var pipeFDs: [Int32] = [0, 0]
        guard pipe(&pipeFDs) == 0 else {
            close(master)
            close(slave)
            throw SetupError(description: "pipe: \(Self.errorText())")
        }
        self.master = master
        self.slave = slave
        self.wake = (pipeFDs[0], pipeFDs[1])
        self.devicePath = path
        let box = ThreadBox()
        box.emulator = self
        BlockingThread.detach(name: "pn532-emulator") { box.emulator?.serve() }
    }

    private static func errorText() -> String {
        String(cString: strerror(errno))
    }

    // Invariant: `emulator` is set before the thread starts and only read by it afterwards.
    private final class ThreadBox: @unchecked Sendable {
        weak var emulator: PN532Emulator?
    }

    deinit {
        stop()
    }

    /// Presents `card`, replacing any card there. Like a real card it is idle until the host
    /// selects it: a target the chip still has listed from the previous card gets no answer.
    public func insert(_ card: Card) {
        state.withLock { s in
            s.card = card
            s.active = false
            s.apdusOnCard = 0
            s.stalled = false
        }
        poke()
    }

    /// Takes the card away.
    public func removeCard() {
        state.withLock { s in
            s.card = nil
            s.active = false
        }
        poke()
    }

    /// Whether a card is in the field.
    public var cardPresent: Bool { state.withLock { $0.card != nil } }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    /// Closes the pseudo-terminal: the device disappears (libnfc reads and writes fail, the path
    /// goes away). Idempotent.
    public func stop() {
        let first = state.withLock { s -> Bool in
            defer { s.stopped = true }
            return !s.stopped
        }
        guard first else { return }
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
        let onServingThread = servingThread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
        if !onServingThread { finished.wait() }
        close(master)
        close(slave)
        close(wake.read)
        close(wake.write)
    }

    private func poke() {
        var byte: UInt8 = 0
        _ = write(wake.write, &byte, 1)
    }

    // MARK: - The chip's thread

    /// An InListPassiveTarget waiting for a card (infinite retries), or a stalled command.
    private var pendingSelect: [UInt8]?
    private var pendingResponse: [UInt8] = []
    private var pendingCommand: [UInt8] = []
    private var lastFrame: [UInt8] = []

    private func serve() {
        servingThread.withLock { $0 = pthread_self() }
        var buffer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            var fds = [pollfd(fd: master, events: Int16(POLLIN), revents: 0),
                       pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
            let ready = poll(&fds, 2, 1000)
            if ready < 0 && errno != EINTR { break }
            if fds[1].revents & Int16(POLLIN) != 0 {
                var drain = [UInt8](repeating: 0, count: 64)
                _ = read(wake.read, &drain, drain.count)
                if state.withLock({ $0.stopped }) { break }
                if let select = pendingSelect { answerSelect(select) }
            }
            guard fds[0].revents & Int16(POLLIN) != 0 else { continue }
            let n = read(master, &chunk, chunk.count)
            guard n > 0 else {
                if n < 0 && (errno == EAGAIN || errno == EINTR) { continue }
                // EIO: no slave open (cannot happen while we hold one); wait for the next poke.
                usleep(10_000)
                continue
            }
            buffer += chunk[0..<n]
            while let frame = PN532Frame.next(from: &buffer) {
                handle(frame)
            }
        }
        finished.signal()
    }

    private func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
            if n <= 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                return
            }
            offset += n
        }
    }

    private func respond(_ command: UInt8, _ payload: [UInt8]) {
        lastFrame = PN532Frame.encode([0xD5, command &+ 1] + payload)
        send(lastFrame)
    }

    private func handle(_ frame: PN532Frame) {
        switch frame {
        case .ack:
            // The host aborts the command under way.
            pendingSelect = nil
            state.withLock { $0.statistics.aborts += 1 }
        case .nack:
            send(lastFrame)
        case .corrupt:
            state.withLock { $0.statistics.corruptFrames += 1 }
            send(PN532Frame.nackBytes)
        case .information(let data):
            guard data.count >= 2, data[0] == 0xD4 else {
                send(PN532Frame.ackBytes + PN532Frame.errorBytes)
                return
            }
            pendingSelect = nil
            send(PN532Frame.ackBytes)
            command(data[1], Array(data.dropFirst(2)))
        }
    }

    private func command(_ code: UInt8, _ p: [UInt8]) {
        state.withLock { $0.statistics.commands[code, default: 0] += 1 }
        if state.withLock({ $0.stalled }) { return }  // a hung chip: ACK, then silence
        switch code {
        case 0x00:  // Diagnose
            switch p.first {
            case 0x00: respond(code, p)  // communication test: echo
            case 0x06: respond(code, [state.withLock { $0.card != nil && $0.active } ? 0x00 : 0x01])
            default: respond(code, [0x00])
            }
        case 0x02: respond(code, [0x32, 0x01, 0x06, 0x07])  // PN532 v1.6, ISO 14443-A, -B, ISO 18092
        case 0x04:  // GetGeneralStatus
            let listed = state.withLock { $0.listed && $0.card != nil }
            respond(code, [0x00, 0x01, listed ? 1 : 0] + (listed ? [0x01, 0x00, 0x00, 0x00] : []) + [0x00])
        case 0x06:  // ReadRegister: ADR1H ADR1L ...
            let values = state.withLock { s in
                stride(from: 0, to: p.count - 1, by: 2).map { s.registers[UInt16(p[$0]) << 8 | UInt16(p[$0 + 1])] ?? 0 }
            }
            respond(code, values)
        case 0x08:  // WriteRegister: ADR1H ADR1L VAL1 ...
            state.withLock { s in
                for i in stride(from: 0, to: p.count - 2, by: 3) { s.registers[UInt16(p[i]) << 8 | UInt16(p[i + 1])] = p[i + 2] }
            }
            respond(code, [])
        case 0x0C: respond(code, [0xFF, 0xFF, 0x00])  // ReadGPIO
        case 0x0E, 0x10, 0x12, 0x14: respond(code, [])  // WriteGPIO, SetSerialBaudRate, SetParameters, SAMConfiguration
        case 0x16: respond(code, [0x00])  // PowerDown
        case 0x32:  // RFConfiguration
            state.withLock { s in
                if p.first == 0x05, p.count >= 4 { s.mxRtyPassiveActivation = p[3] }
                if p.first == 0x01, p.count >= 2, p[1] & 0x01 == 0 {
                    // Field off: the card loses power and returns to IDLE.
                    s.listed = false
                    s.active = false
                }
            }
            respond(code, [])
        case 0x40: inDataExchange(p)
        case 0x42: inCommunicateThru(p)
        case 0x44:  // InDeselect
            state.withLock { $0.active = false }
            respond(code, [0x00])
        case 0x4A: answerSelect(p)
        case 0x4E: inPSL(p)
        case 0x52:  // InRelease
            state.withLock { s in
                s.listed = false
                s.active = false
            }
            respond(code, [0x00])
        case 0x54:  // InSelect
            let ok = state.withLock { s -> Bool in
                guard s.listed, s.card != nil else { return false }
                s.active = true
                return true
            }
            respond(code, [ok ? 0x00 : 0x27])
        default:
            state.withLock { $0.statistics.unknownCommands.append(code) }
            send(PN532Frame.errorBytes)
        }
    }

    /// InListPassiveTarget MaxTg BrTy [InitiatorData] (UM0701-02 §7.3.5): 106 kbps type A
    /// (BrTy 00, with RATS: SEL_RES 20 and the chip's automatic RATS) and type B (BrTy 03, with ATTRIB).
    private func answerSelect(_ p: [UInt8]) {
        pendingSelect = nil
        let brTy = p.count >= 2 ? p[1] : 0xFF
        let (found, wait) = state.withLock { s -> ([UInt8]?, Bool) in
            guard let card = s.card, (brTy == 0x00 && card.kind == .typeA) || (brTy == 0x03 && card.kind == .typeB) else {
                return (nil, s.mxRtyPassiveActivation == 0xFF)
            }
            s.listed = true
            s.active = true
            s.piccBlockNumber = 1
            return (card.targetData, false)
        }
        if let found {
            respond(0x4A, [0x01, 0x01] + found)
        } else if wait {
            pendingSelect = p  // answered when a card arrives, or dropped on abort
        } else {
            respond(0x4A, [0x00])
        }
    }

    /// InDataExchange Tg DataOut (UM0701-02 §7.3.8). Tg b6 (MI) set: more data follows.
    private func inDataExchange(_ p: [UInt8]) {
        guard let tg = p.first else { return respond(0x40, [0x10]) }  // syntax error in parameters
        let data = Array(p.dropFirst())
        // The host fetches the rest of a response larger than one frame with an empty command.
        if data.isEmpty && !pendingResponse.isEmpty { return sendResponseChunk() }
        pendingCommand += data
        if tg & 0x40 != 0 { return respond(0x40, [0x00]) }
        let apdu = pendingCommand
        pendingCommand = []
        enum Step { case noTarget, timeout, stall, forward(any APDUTransport) }
        let step = state.withLock { s -> Step in
            guard s.listed else { return .noTarget }
            guard let card = s.card, s.active else { return .timeout }
            if let limit = card.removeAfterAPDUs, s.apdusOnCard >= limit {
                s.card = nil
                s.active = false
                return .timeout
            }
            if let limit = card.stallAfterAPDUs, s.apdusOnCard >= limit {
                s.stalled = true
                return .stall
            }
            s.apdusOnCard += 1
            s.piccBlockNumber ^= 1
            return .forward(card.chip)
        }
        switch step {
        case .noTarget: respond(0x40, [0x27])  // command not acceptable: no target
        case .timeout: respond(0x40, [0x01])  // the target did not answer
        case .stall: return
        case .forward(let chip):
            pendingResponse = Self.exchange(apdu, with: chip)
            state.withLock { $0.statistics.apdus += 1 }
            sendResponseChunk()
        }
    }

    /// InPSL Tg BRit BRti (UM0701-02 §7.3.6): PPS to the card. Accepted when both rates are
    /// 106 kbps or offered by the ATS TA(1) in both directions (ISO/IEC 14443-4 §5.2.4).
    private func inPSL(_ p: [UInt8]) {
        guard p.count >= 3 else { return respond(0x4E, [0x10]) }
        let ok = state.withLock { s -> Bool in
            guard let card = s.card, s.active else { return false }
            if p[1] == 0 && p[2] == 0 { return true }
            guard card.kind == .typeA, card.acceptsPPS, card.ats.count >= 3, card.ats[1] & 0x10 != 0 else { return false }
            let ta = card.ats[2]
            func allows(_ code: UInt8) -> Bool {
                switch code {
                case 0x00: return true
                case 0x01: return ta & 0x11 == 0x11
                case 0x02: return ta & 0x22 == 0x22
                case 0x03: return ta & 0x44 == 0x44
                default: return false
                }
            }
            return allows(p[1]) && allows(p[2])
        }
        respond(0x4E, [ok ? 0x00 : 0x01])
    }

    /// Up to 262 bytes per InDataExchange answer; MI (status b6) when more follows.
    private func sendResponseChunk() {
        let chunk = Array(pendingResponse.prefix(262))
        pendingResponse.removeFirst(chunk.count)
        respond(0x40, [pendingResponse.isEmpty ? 0x00 : 0x40] + chunk)
    }

    /// InCommunicateThru DataOut (UM0701-02 §7.3.9): raw ISO/IEC 14443-4 blocks libnfc sends to
    /// check presence. R(NAK) gets R(ACK) with the PICC's block number (ISO/IEC 14443-4 §7.5.4.2),
    /// S(DESELECT) its answer; no card, no answer.
    private func inCommunicateThru(_ p: [UInt8]) {
        guard let pcb = p.first else { return respond(0x42, [0x10]) }
        let answer = state.withLock { s -> [UInt8]? in
            guard s.card != nil, s.active else { return nil }
            let cid = pcb & 0x08 != 0 && p.count > 1 ? [p[1]] : []
            if pcb & 0xE6 == 0xA2 { return [0xA2 | (pcb & 0x08) | s.piccBlockNumber] + cid }  // R-block
            if pcb & 0xF7 == 0xC2 {  // S(DESELECT)
                s.active = false
                return [pcb] + cid
            }
            return nil
        }
        respond(0x42, answer.map { [0x00] + $0 } ?? [0x01])
    }

    /// Runs the card's transport from this (non-pool) thread and waits for its answer.
    private static func exchange(_ apdu: [UInt8], with chip: any APDUTransport) -> [UInt8] {
        // Invariant: the task writes `response` before `done.signal()`; it is read after `done.wait()`.
        final class Box: @unchecked Sendable { var response: [UInt8] = [0x6F, 0x00] }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task {
            if let response = try? await chip.transmit(apdu) { box.response = response }
            done.signal()
        }
        done.wait()
        return box.response
    }
}
