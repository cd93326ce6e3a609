#if canImport(Glibc)
import Glibc
#endif

/// `mrtdd` started as a child process (posix_spawn) in a private temporary directory holding its
/// socket and log. `stop()` sends SIGTERM and removes the directory; a SIGINT/SIGTERM/SIGHUP to the
/// bench does the same before the bench exits, so neither a failure nor an interrupt leaves a
/// daemon or a socket behind.
final class DaemonProcess {
    let pid: pid_t
    let directory: String
    let socket: String
    let log: String
    private var stopped = false

    /// Spawns `executable` with `arguments` (the socket path is appended) and the bench's environment
    /// plus `environment` (`NAME=value` entries), in `cgroup` when one is given (from its first
    /// instruction: a shell joins the cgroup, then execs mrtdd with the same pid), and waits until the
    /// socket accepts a connection.
    init(executable: String, arguments: [String], environment: [String] = [], cgroup: MemoryCgroup? = nil,
         startTimeout: Double = 30) throws {
        guard access(executable, X_OK) == 0 else { throw DaemonBenchError("no executable mrtdd at \(executable) (build it, or pass --mrtdd=PATH)") }
        var template = Array("/tmp/mrtd-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw DaemonBenchError("mkdtemp failed: errno \(errno)") }
        directory = String(cString: made)
        socket = directory + "/mrtdd.sock"
        log = directory + "/mrtdd.log"

        var command = [executable] + arguments + ["--socket", socket]
        if let cgroup { command = ["/bin/sh", "-c", "echo $$ > \"$0\" && exec \"$@\"", cgroup.procs] + command }
        let argv = command.map { strdup($0) }
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?] = []
        var index = 0
        while let entry = environ[index] {
            envp.append(strdup(entry))
            index += 1
        }
        envp += environment.map { strdup($0) }
        defer { for pointer in envp { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // stdout and stderr to the log: the bench's stdout carries only its JSON.
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var child: pid_t = 0
        let spawned = posix_spawn(&child, command[0], &actions, nil, argv + [nil], envp + [nil])
        guard spawned == 0 else {
            rmdir(directory)
            throw DaemonBenchError("posix_spawn(\(executable)) failed: \(spawned)")
        }
        pid = child
        DaemonCleanup.register(pid: child, socket: socket, log: log, directory: directory)

        let deadline = monotonicMilliseconds() + startTimeout * 1000
        while true {
            if let fd = try? connectUnixSocket(socket) {
                close(fd)
                break
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid {
                stopped = true
                let tail = Self.tail(of: log)
                cleanUp()
                throw DaemonBenchError("mrtdd exited during start (status \(status)): \(tail)")
            }
            guard monotonicMilliseconds() < deadline else {
                stop()
                throw DaemonBenchError("mrtdd did not listen on its socket within \(startTimeout) s")
            }
            usleep(20_000)
        }
    }

    deinit { stop() }

    /// SIGTERM, then waits up to `timeout` seconds (SIGKILL after that); returns the exit status
    /// (nil when it had to be killed). Removes the socket, the log and the directory.
    @discardableResult
    func stop(timeout: Double = 15) -> Int32? {
        guard !stopped else { return nil }
        stopped = true
        kill(pid, SIGTERM)
        let deadline = monotonicMilliseconds() + timeout * 1000
        var status: Int32 = 0
        var exitStatus: Int32?
        while true {
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid {
                // WIFEXITED / WEXITSTATUS.
                if status & 0x7f == 0 { exitStatus = (status >> 8) & 0xff }
                break
            }
            if reaped < 0 { break }
            if monotonicMilliseconds() > deadline {
                kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                break
            }
            usleep(10_000)
        }
        cleanUp()
        return exitStatus
    }

    /// Whether the socket file is still there (the daemon removes it on SIGTERM).
    var socketExists: Bool { access(socket, F_OK) == 0 }

    private func cleanUp() {
        unlink(socket)
        unlink(log)
        rmdir(directory)
        DaemonCleanup.unregister()
    }

    /// The last lines of the daemon's log, for an error message.
    static func tail(of path: String) -> String {
        String(contents(of: path).suffix(600))
    }

    /// A whole file read to EOF ("" when unreadable).
    static func contents(of path: String) -> String {
        guard let file = fopen(path, "r") else { return "" }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            guard count > 0 else { break }
            bytes.append(contentsOf: buffer[0..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// What a signal handler needs to stop the daemon and remove its files, kept as C strings so the
/// handler calls only async-signal-safe functions (kill, waitpid, unlink, rmdir, _exit).
enum DaemonCleanup {
    private nonisolated(unsafe) static var pid: pid_t = 0
    private nonisolated(unsafe) static var paths: [UnsafeMutablePointer<CChar>] = []

    static func register(pid child: pid_t, socket: String, log: String, directory: String) {
        let names: [String] = [socket, log, directory]
        paths = names.compactMap { name in strdup(name) }
        pid = child
        // A connection the stopping daemon closes must fail a write with EPIPE, not kill the bench
        // before it has cleaned up.
        _ = Glibc.signal(SIGPIPE, SIG_IGN)
        for signal in [SIGINT, SIGTERM, SIGHUP] {
            _ = Glibc.signal(signal) { received in
                if DaemonCleanup.pid > 0 {
                    kill(DaemonCleanup.pid, SIGTERM)
                    var status: Int32 = 0
                    waitpid(DaemonCleanup.pid, &status, 0)
                    if DaemonCleanup.paths.count == 3 {
                        unlink(DaemonCleanup.paths[0])
                        unlink(DaemonCleanup.paths[1])
                        rmdir(DaemonCleanup.paths[2])
                    }
                }
                _exit(128 + received)
            }
        }
    }

    static func unregister() {
        pid = 0
    }
}
