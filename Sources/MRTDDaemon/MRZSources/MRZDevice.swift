import Glibc
import Synchronization
import MRTDCore

/// The device side of an MRZ source: opens its path (serial port, hidraw node, evdev node, or a FIFO
/// in tests), prepares it for its kind, and reads bytes until it goes away. Blocking calls only: it
/// runs on a thread of its own (`MRZSourceService`), never on the cooperative pool.
struct MRZDevice: ~Copyable {
    let fd: Int32
    /// Whether the path is a character device (a real tty, hidraw or evdev node), not a FIFO.
    let isCharacterDevice: Bool

    enum OpenError: Error, CustomStringConvertible {
        case open(Int32)
        case notADevice
        case configure(String, Int32)
        var description: String {
            switch self {
            case .open(let errno): "cannot open: \(String(cString: strerror(errno)))"
            case .notADevice: "not a character device or FIFO"
            case .configure(let what, let errno): "\(what) failed: \(String(cString: strerror(errno)))"
            }
        }
    }

    /// Opens and prepares the device: termios (serial), the enable report (hidraw), an exclusive grab (evdev).
    init(_ source: MRZSourceConfiguration) throws(OpenError) {
        // Read-write: a FIFO opened so never sees end-of-file between writers, a hidraw node takes the
        // enable report. Non-blocking: reads wait in poll, which also notices a stop.
        var fd = Glibc.open(source.device, O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        if fd < 0, errno == EACCES, source.kind == .evdev {
            fd = Glibc.open(source.device, O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC)
        }
        guard fd >= 0 else { throw .open(errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            Glibc.close(fd)
            throw .open(error)
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFCHR || type == S_IFIFO else {
            Glibc.close(fd)
            throw .notADevice
        }
        let isCharacterDevice = type == S_IFCHR
        do throws(OpenError) {
            try Self.prepare(fd, source, isCharacterDevice: isCharacterDevice)
        } catch {
            Glibc.close(fd)
            throw error
        }
        self.fd = fd
        self.isCharacterDevice = isCharacterDevice
    }

    /// termios (serial), the enable report (a hidraw node), the exclusive grab (an evdev node).
    private static func prepare(_ fd: Int32, _ source: MRZSourceConfiguration, isCharacterDevice: Bool) throws(OpenError) {
        switch source.kind {
        case .serial: if isatty(fd) == 1 { try configureSerial(fd, baud: source.baud, parity: source.parity) }
        case .hidraw:
            if isCharacterDevice, !source.enableReport.isEmpty {
                let written = source.enableReport.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
                if written != source.enableReport.count { throw .configure("enable report", errno) }
            }
        case .evdev:
            // EVIOCGRAB (_IOW('E', 0x90, int)): the scanner's keystrokes reach this process only.
            if isCharacterDevice, ioctl(fd, UInt(0x4004_4590), CInt(1)) != 0 { throw .configure("EVIOCGRAB", errno) }
        }
    }

    static func speed(_ baud: Int) -> speed_t {
        switch baud {
        case 1200: speed_t(B1200)
        case 2400: speed_t(B2400)
        case 4800: speed_t(B4800)
        case 19200: speed_t(B19200)
        case 38400: speed_t(B38400)
        case 57600: speed_t(B57600)
        case 115200: speed_t(B115200)
        case 230400: speed_t(B230400)
        default: speed_t(B9600)
        }
    }

    /// Raw 8-bit input at `baud`, the parity asked for, no flow control, modem lines ignored.
    static func configureSerial(_ fd: Int32, baud: Int, parity: MRZSourceConfiguration.Parity) throws(OpenError) {
        var settings = termios()
        guard tcgetattr(fd, &settings) == 0 else { throw .configure("tcgetattr", errno) }
        cfmakeraw(&settings)
        settings.c_cflag |= tcflag_t(CLOCAL | CREAD)
        settings.c_cflag &= ~tcflag_t(CRTSCTS)
        switch parity {
        case .none: settings.c_cflag &= ~tcflag_t(PARENB | PARODD)
        case .even:
            settings.c_cflag |= tcflag_t(PARENB)
            settings.c_cflag &= ~tcflag_t(PARODD)
        case .odd: settings.c_cflag |= tcflag_t(PARENB | PARODD)
        }
        if parity != .none { settings.c_iflag |= tcflag_t(INPCK) }
        cfsetispeed(&settings, speed(baud))
        cfsetospeed(&settings, speed(baud))
        guard tcsetattr(fd, TCSANOW, &settings) == 0 else { throw .configure("tcsetattr", errno) }
    }

    enum ReadOutcome {
        case bytes([UInt8])
        /// Nothing within the poll interval.
        case idle
        /// The device went away (unplugged, pty closed, hang-up, read error).
        case gone(String)
    }

    /// Waits up to `timeoutMs` for bytes.
    func read(timeoutMs: Int32) -> ReadOutcome {
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, timeoutMs)
        if ready < 0 { return errno == EINTR ? .idle : .gone("poll: \(String(cString: strerror(errno)))") }
        if ready == 0 { return .idle }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if count > 0 { return .bytes(Array(buffer[0..<count])) }
        if count == 0 { return .gone("end of file") }
        if errno == EAGAIN || errno == EINTR {
            if descriptor.revents & Int16(POLLHUP | POLLERR) != 0 { return .gone("hang-up") }
            return .idle
        }
        return .gone("read: \(String(cString: strerror(errno)))")
    }

    deinit { Glibc.close(fd) }
}
