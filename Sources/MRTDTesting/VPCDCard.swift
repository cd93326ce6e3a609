import Foundation
import Glibc
import MRTDCore
import Synchronization
import MRTDPlatform
public import MRTDSimulation

/// The project's `VirtualChip` as a card in vsmartcard's `vpcd` reader driver: pcscd then sees a
/// reader ("Virtual PCD 00 00") whose card is this chip, and every PC/SC client reaches it through
/// real pcscd.
///
/// vpcd protocol (vsmartcard `vpcd.c`): the card side connects to vpcd's TCP port (35963 by
/// default); every message is a 2-byte big-endian length and the bytes. A 1-byte message is a
/// control: 00 power off, 01 power on, 02 reset (each resets the chip, no answer), 04 get ATR
/// (answered with the ATR). Anything longer is a command APDU, answered with the response APDU.
///
/// Inserting the card connects the socket; removing it closes the socket. `insert(removeAfter:)`
/// pulls the card when a given APDU arrives, to test removal at every point of a read.
public final class VPCDCard: Sendable {
    /// vpcd's default port (`/etc/reader.conf.d/vpcd`, `DEVICENAME /dev/null:0x8C7B`).
    public static let defaultPort: UInt16 = 35963

    public let port: UInt16
    /// The ATR pcscd gets (PC/SC Part 3 contactless form by default).
    public let atr: [UInt8]
    private let chip: VirtualChip

    private struct State {
        var socket: Int32 = -1
        var apdus = 0
        var removeAfter: Int?
        var holdAt: Int?
        var holding = false
        var ended: AsyncStream<Void>?
    }
    private let state = Mutex(State())
    private let hold = DispatchSemaphore(value: 0)

    public init(chip: VirtualChip, port: UInt16 = VPCDCard.defaultPort, atr: [UInt8]? = nil) {
        self.chip = chip
        self.port = port
        self.atr = atr ?? Self.contactlessATR(extendedLength: chip.capabilities.extendedLength)
    }

    /// A contactless ATR as a PC/SC reader builds it (PC/SC Part 3 §3.1.3.2.3: `3B 8n 80 01`,
    /// historical bytes, TCK), with card capabilities (ISO/IEC 7816-4 §8.1.1.2.7) saying whether the
    /// chip takes extended Lc/Le.
    public static func contactlessATR(extendedLength: Bool) -> [UInt8] {
        let historical: [UInt8] = [0x80, 0x73, 0x80, 0x21, extendedLength ? 0x40 : 0x00]
        var atr: [UInt8] = [0x3B, 0x80 | UInt8(historical.count), 0x80, 0x01] + historical
        atr.append(atr.dropFirst().reduce(0, ^))
        return atr
    }

    /// APDUs answered since the last `insert`.
    public var apdusServed: Int { state.withLock { $0.apdus } }

    /// Whether the socket to vpcd is open.
    public var isInserted: Bool { state.withLock { $0.socket >= 0 } }

    /// Whether the card sits on an APDU held by `insert(holdAt:)`.
    public var isHolding: Bool { state.withLock { $0.holding } }

    /// Lets a held APDU be answered.
    public func releaseHold() {
        let holding = state.withLock { $0.holding }
        if holding { hold.signal() }
    }

    /// Puts the card on the reader: connects to vpcd (retrying until `timeout` while pcscd starts)
    /// and serves it on a dedicated thread. With `removeAfter: n` the card is pulled when APDU
    /// number `n` (zero-based) arrives, before it is answered; with `holdAt: n` that APDU waits
    /// for `releaseHold()` (a chip busy mid-read, to kill pcscd at a known point).
    public func insert(removeAfter: Int? = nil, holdAt: Int? = nil, timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        var fd: Int32 = -1
        while true {
            fd = Self.connect(port: port)
            if fd >= 0 { break }
            guard ContinuousClock.now < deadline else {
                throw TransportError.readerUnavailable("vpcd is not listening on port \(port)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let socket = fd
        let (ended, endedContinuation) = AsyncStream<Void>.makeStream()
        state.withLock {
            $0.socket = fd
            $0.apdus = 0
            $0.removeAfter = removeAfter
            $0.holdAt = holdAt
            $0.ended = ended
        }
        BlockingThread.detach(name: "vpcd-card") { [self] in
            serve(socket)
            state.withLock { $0.socket = -1 }
            close(socket)
            endedContinuation.finish()
        }
    }

    /// Takes the card off the reader (closes the socket) and waits until the serving thread ended.
    public func remove() async {
        releaseHold()
        // Under the lock: the serving thread clears `socket` under it before closing the descriptor.
        let ended = state.withLock {
            if $0.socket >= 0 { shutdown($0.socket, Int32(SHUT_RDWR)) }
            return $0.ended
        }
        if let ended { for await _ in ended {} }
    }

    /// Waits until the card is off the reader (pulled by `removeAfter`, by vpcd, or by `remove`).
    public func waitUntilRemoved() async {
        let ended = state.withLock { $0.ended }
        if let ended { for await _ in ended {} }
    }

    private static func connect(port: UInt16) -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            close(fd)
            return -1
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// The serving loop, on the card's own thread; returns when the socket closes.
    private func serve(_ fd: Int32) {
        while let message = Self.receive(fd) {
            if message.count == 1 {
                switch message[0] {
                case 0x00, 0x01, 0x02: call { await $0.reset() }
                case 0x04: guard Self.send(atr, fd) else { return }
                default: break
                }
                continue
            }
            let pull: Bool = state.withLock {
                if let limit = $0.removeAfter, $0.apdus >= limit { return true }
                $0.apdus += 1
                return false
            }
            if pull { return }
            let held: Bool = state.withLock {
                guard $0.holdAt == $0.apdus - 1 else { return false }
                $0.holding = true
                return true
            }
            if held {
                hold.wait()
                state.withLock { $0.holding = false }
            }
            // A chip that no longer answers (`lock-after-failed-access`) is deactivated: the card
            // leaves the reader, as the field reports describe ("tag already deactivated").
            guard let response = call({ await $0.respond(to: message) }) else { return }
            guard Self.send(response, fd) else { return }
        }
    }

    /// Runs `body` on the chip actor and waits for it (this thread is not part of the Swift pool).
    private func call<T: Sendable>(_ body: @escaping @Sendable (VirtualChip) async -> T) -> T {
        let result = Mutex<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let chip = chip
        Task {
            let value = await body(chip)
            result.withLock { $0 = value }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }

    private static func receive(_ fd: Int32) -> [UInt8]? {
        guard let header = read(fd, count: 2) else { return nil }
        let length = Int(header[0]) << 8 | Int(header[1])
        guard length > 0 else { return nil }
        return read(fd, count: length)
    }

    private static func read(_ fd: Int32, count: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var got = 0
        while got < count {
            // vpcd writes the length and the bytes separately; with Nagle on its side, a delayed ACK
            // here would cost ~40 ms per message. Linux resets TCP_QUICKACK, so set it each time.
            var one: Int32 = 1
            setsockopt(fd, Int32(IPPROTO_TCP), TCP_QUICKACK, &one, socklen_t(MemoryLayout<Int32>.size))
            let n = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress! + got, count - got, 0) }
            if n <= 0 { return nil }
            got += n
        }
        return bytes
    }

    private static func send(_ bytes: [UInt8], _ fd: Int32) -> Bool {
        guard bytes.count <= 0xFFFF else { return false }
        let frame = [UInt8(bytes.count >> 8), UInt8(bytes.count & 0xFF)] + bytes
        var sent = 0
        while sent < frame.count {
            let n = frame.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + sent, frame.count - sent, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }
}
