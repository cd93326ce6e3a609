import Foundation
import Glibc
import Synchronization
import MRTDCore
import MRTDPlatform

/// A private pcscd for tests: started and stopped by the test itself, with its own reader
/// configuration holding only vsmartcard's vpcd reader (on `vpcdPort`), so a test can insert and
/// remove `VPCDCard`s, kill pcscd mid-read and start it again.
///
/// pcsc-lite 1.9 clients and daemon meet at the fixed socket `/run/pcscd/pcscd.comm` (the daemon
/// does not honour `PCSCLITE_CSOCK_NAME`), so one pcscd runs per machine: the harness refuses to start
/// while a pcscd it did not start is running (`Unavailable.foreignDaemon`), and needs write access to
/// `/run/pcscd` (root in CI).
public final class PCSCDaemon: Sendable {
    /// Why the harness cannot run here.
    public enum Unavailable: Error, Sendable, CustomStringConvertible {
        case notInstalled(String)
        case notPermitted(String)
        case foreignDaemon(pid: Int32)
        case failedToStart(String)
        /// Something other than a pcscd process listens on pcscd's socket (systemd's pcscd.socket).
        case socketHeld

        public var description: String {
            switch self {
            case .notInstalled(let what): return "\(what) is not installed (scripts/setup installs pcscd and vsmartcard-vpcd)"
            case .notPermitted(let why): return "cannot run pcscd: \(why) (run as root, as CI does)"
            case .foreignDaemon(let pid): return "another pcscd (pid \(pid)) is running; stop it to run the PC/SC tests"
            case .failedToStart(let why): return "pcscd did not start: \(why)"
            case .socketHeld:
                return "\(PCSCDaemon.socketPath) is held without a pcscd (systemd's pcscd.socket?); stop it: systemctl stop pcscd.socket"
            }
        }
    }

    /// The name pcscd gives vpcd's first slot.
    public static let readerName = "Virtual PCD 00 00"
    /// Marks the configuration directories of this harness (to recognise its own stale daemons).
    static let marker = "mrtdd-pcscd-"
    static let runDirectory = "/run/pcscd"
    static let socketPath = "/run/pcscd/pcscd.comm"
    static let pidPath = "/run/pcscd/pcscd.pid"

    public let vpcdPort: UInt16
    /// Holds the private reader.conf.d directory and pcscd's log.
    public let directory: String
    public var logPath: String { directory + "/pcscd.log" }
    var configDirectory: String { directory + "/reader.conf.d" }
    private let executable: String
    private struct Running {
        var pid: Int32
        var exited: AsyncStream<Void>
    }
    private let running = Mutex<Running?>(nil)

    /// Prepares the configuration. Throws `Unavailable` when pcscd, the vpcd driver or the
    /// permissions are missing, or a foreign pcscd runs.
    public init(vpcdPort: UInt16 = VPCDCard.defaultPort) throws {
        let candidates: [String] = ["/usr/sbin/pcscd", "/usr/local/sbin/pcscd", "/sbin/pcscd"]
        guard let executable = candidates.first(where: {
            access($0, X_OK) == 0
        }) else { throw Unavailable.notInstalled("pcscd") }
        let drivers: [String] = [
            "/usr/lib/pcsc/drivers/serial/libifdvpcd.so", "/usr/lib64/pcsc/drivers/serial/libifdvpcd.so",
            "/usr/local/lib/pcsc/drivers/serial/libifdvpcd.so",
        ]
        guard let driver = drivers.first(where: { access($0, R_OK) == 0 }) else {
            throw Unavailable.notInstalled("the vpcd driver (vsmartcard-vpcd)")
        }
        let runParent = access(Self.runDirectory, F_OK) == 0 ? Self.runDirectory : "/run"
        guard access(runParent, W_OK) == 0 else {
            throw Unavailable.notPermitted("\(runParent) is not writable")
        }
        if let pid = Self.daemonPid() {
            if Self.isOurs(pid) {
                // A daemon an earlier run of this harness left behind (that run crashed).
                Glibc.kill(pid, SIGKILL)
                for _ in 0..<200 where Self.daemonPid() == pid { usleep(10_000) }
            } else {
                throw Unavailable.foreignDaemon(pid: pid)
            }
        }
        if Self.daemonPid() == nil && access(Self.socketPath, F_OK) == 0 {
            // No pcscd behind the socket file: systemd's pcscd.socket holding it, or a stale file
            // (pcscd refuses to start over either).
            if Self.acceptsClients() { throw Unavailable.socketHeld }
            unlink(Self.socketPath)
        }
        self.executable = executable
        self.vpcdPort = vpcdPort
        let template = NSTemporaryDirectory() + Self.marker + "XXXXXX"
        var chars = Array(template.utf8CString)
        guard let made = mkdtemp(&chars) else { throw Unavailable.notPermitted("cannot create a temporary directory") }
        directory = String(cString: made)
        let port = "0x" + String(vpcdPort, radix: 16, uppercase: true)
        let config = """
            FRIENDLYNAME "Virtual PCD"
            DEVICENAME   /dev/null:\(port)
            LIBPATH      \(driver)
            CHANNELID    \(port)

            """
        // pcscd parses every file of its configuration directory: nothing else may live there.
        try FileManager.default.createDirectory(atPath: configDirectory, withIntermediateDirectories: true)
        try config.write(toFile: configDirectory + "/vpcd", atomically: true, encoding: .utf8)
    }

    deinit {
        if let pid = running.withLock({ $0?.pid }) { Glibc.kill(pid, SIGTERM) }
    }

    /// The pid pcscd's pid file names, when that process is alive and is a pcscd.
    static func daemonPid() -> Int32? {
        guard let text = try? String(contentsOfFile: pidPath, encoding: .utf8),
              let pid = Int32(String(text.prefix { $0.isASCII && $0.isNumber })), pid > 0,
              Glibc.kill(pid, 0) == 0,
              let comm = try? String(contentsOfFile: "/proc/\(pid)/comm", encoding: .utf8),
              comm.hasPrefix("pcscd"),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              !status.contains("State:\tZ")
        else { return nil }
        return pid
    }

    /// Whether `pid` is a pcscd this harness started (its configuration directory carries the marker).
    static func isOurs(_ pid: Int32) -> Bool {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") else { return false }
        return String(decoding: data, as: UTF8.self).contains(marker)
    }

    public var isRunning: Bool { running.withLock { $0 != nil } }

    /// Starts pcscd in the foreground and returns when its socket accepts clients (the configured
    /// readers are set up by then).
    public func start(timeout: Duration = .seconds(10)) async throws {
        guard !isRunning else { return }
        let pid = try spawn()
        let (exited, exitedContinuation) = AsyncStream<Void>.makeStream()
        running.withLock { $0 = Running(pid: pid, exited: exited) }
        // Reap it on a thread of its own (waitpid blocks).
        BlockingThread.detach(name: "pcscd-reaper") { [weak self] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            self?.running.withLock { if $0?.pid == pid { $0 = nil } }
            exitedContinuation.finish()
        }
        let deadline = ContinuousClock.now + timeout
        while !(Self.daemonPid() == pid && Self.acceptsClients()) {
            guard isRunning else {
                throw Unavailable.failedToStart("exited; log: \(logTail())")
            }
            guard ContinuousClock.now < deadline else {
                await kill()
                throw Unavailable.failedToStart("not ready after \(timeout); log: \(logTail())")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// Stops pcscd cleanly (SIGTERM) and waits for it to exit.
    public func stop() async {
        await signal(SIGTERM)
    }

    /// Kills pcscd (SIGKILL), as a crash would, and waits for it to exit. Its socket file stays.
    public func kill() async {
        await signal(SIGKILL)
    }

    /// Kills and starts pcscd again.
    public func restart() async throws {
        await kill()
        try await start()
    }

    private func signal(_ number: Int32) async {
        guard let current = running.withLock({ $0 }) else { return }
        Glibc.kill(current.pid, number)
        let escalate = Task {
            try await Task.sleep(for: .seconds(5))
            Glibc.kill(current.pid, SIGKILL)
        }
        for await _ in current.exited {}
        escalate.cancel()
    }

    /// `posix_spawn`s pcscd with an empty signal mask and default signal actions: a child inherits
    /// the spawning thread's mask, and Swift's pool threads block SIGTERM, which pcscd would then
    /// never see. Output goes to `logPath`.
    private func spawn() throws -> pid_t {
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for number in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGUSR1, SIGUSR2] { sigaddset(&defaults, number) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let arguments = [executable, "--foreground", "--config", configDirectory, "--error"]
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, executable, &actions, &attributes, &argv, environ)
        guard result == 0 else { throw Unavailable.failedToStart(String(cString: strerror(result))) }
        return pid
    }

    private static func acceptsClients() -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (i, byte) in socketPath.utf8.enumerated() where i < buffer.count - 1 { buffer[i] = byte }
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        } == 0
    }

    /// The end of pcscd's log, for failure messages.
    public func logTail(_ lines: Int = 15) -> String {
        guard let text = try? String(contentsOfFile: logPath, encoding: .utf8) else { return "(no log)" }
        return text.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}
