internal import CPseudoTerminal
import Foundation
import Glibc
import Synchronization

/// A pseudo-terminal pair for serial-device tests (the MRZ scanner sources): the test
/// writes the scanner's bytes into the master; the code under test opens `slavePath` as it would a
/// serial port. `link` is a stable path (a symlink, as udev's `/dev/serial/by-id/…`) that `replug()`
/// points at a fresh pair after closing the old one: a device unplugged and plugged again.
public final class PseudoTerminalPair: Sendable {
    private struct Ends {
        var master: Int32
        var slave: Int32
        var slavePath: String
    }
    private let ends: Mutex<Ends?>
    /// The stable path to hand to the code under test.
    public let link: String

    public struct SetupError: Error, CustomStringConvertible {
        public var description: String
    }

    /// Opens a pair in raw mode and links `link` to its slave.
    public init(link: String) throws {
        self.link = link
        ends = Mutex(try Self.open())
        try relink()
    }

    private static func open() throws -> Ends {
        var name = [CChar](repeating: 0, count: 128)
        let master = name.withUnsafeMutableBufferPointer { mrtd_pty_open($0.baseAddress, $0.count) }
        guard master >= 0 else { throw SetupError(description: "posix_openpt: \(String(cString: strerror(errno)))") }
        let path = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        // The slave held open by the test too, in raw mode, so no byte is cooked or echoed before the
        // code under test opens it.
        let slave = Glibc.open(path, O_RDWR | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw SetupError(description: "open \(path): \(String(cString: strerror(errno)))")
        }
        var tio = termios()
        tcgetattr(slave, &tio)
        cfmakeraw(&tio)
        tcsetattr(slave, TCSANOW, &tio)
        return Ends(master: master, slave: slave, slavePath: path)
    }

    private func relink() throws {
        guard let target = ends.withLock({ $0?.slavePath }) else { return }
        let temporary = link + ".new"
        unlink(temporary)
        guard symlink(target, temporary) == 0, rename(temporary, link) == 0 else {
            throw SetupError(description: "link \(link): \(String(cString: strerror(errno)))")
        }
    }

    /// Writes bytes as the device sends them.
    public func write(_ bytes: [UInt8]) {
        ends.withLock { ends in
            guard let master = ends?.master else { return }
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
                if n <= 0 { return }
                offset += n
            }
        }
    }

    /// Writes what the line takes now without waiting for the reader (a flooding device whose
    /// reader has backed off): the number of bytes written.
    public func writeWithoutBlocking(_ bytes: [UInt8]) -> Int {
        ends.withLock { ends in
            guard let master = ends?.master else { return 0 }
            let flags = fcntl(master, F_GETFL)
            _ = fcntl(master, F_SETFL, flags | O_NONBLOCK)
            defer { _ = fcntl(master, F_SETFL, flags) }
            let n = bytes.withUnsafeBytes { Glibc.write(master, $0.baseAddress, $0.count) }
            return max(0, n)
        }
    }

    /// The device goes away: both ends closed, the slave's path gone.
    public func unplug() {
        ends.withLock { ends in
            if let open = ends {
                close(open.master)
                close(open.slave)
            }
            ends = nil
        }
    }

    /// The device comes back: a new pair, `link` pointing at it.
    public func replug() throws {
        unplug()
        let fresh = try Self.open()
        ends.withLock { $0 = fresh }
        try relink()
    }

    deinit {
        unplug()
        unlink(link)
    }
}
