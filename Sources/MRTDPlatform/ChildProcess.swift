internal import CLibcShims
import Glibc

/// Starts and reaps helper programs (the JPEG 2000 decoder, xdg-open) with posix_spawn(3), in place of
/// Foundation's `Process` (product code imports FoundationEssentials only).
///
/// The child gets /dev/null on stdin, stdout and stderr, no other descriptor of ours (the socket,
/// PC/SC connections), default signal dispositions (the daemon ignores SIGPIPE; a child must not
/// inherit that), an empty signal mask and exactly the environment given.
package enum ChildProcess {
    package struct Failure: Error, CustomStringConvertible {
        package var step: String
        package var code: Int32
        package var description: String { "\(step): \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// Starts `path` with `arguments` (argv[1...]); argv[0] is `path`.
    package static func spawn(_ path: String, arguments: [String], environment: [String: String]) throws(Failure) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        var attributes = posix_spawnattr_t()
        // The posix_spawn functions return their error number (errno is not set).
        let actionsMade = posix_spawn_file_actions_init(&actions)
        guard actionsMade == 0 else { throw Failure(step: "posix_spawn_file_actions_init", code: actionsMade) }
        defer { posix_spawn_file_actions_destroy(&actions) }
        let attributesMade = posix_spawnattr_init(&attributes)
        guard attributesMade == 0 else { throw Failure(step: "posix_spawnattr_init", code: attributesMade) }
        defer { posix_spawnattr_destroy(&attributes) }
        for fd: Int32 in 0...2 {
            let result = posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
            guard result == 0 else { throw Failure(step: "posix_spawn_file_actions_addopen", code: result) }
        }
        let closed = cspawn_addclosefrom(&actions, 3)
        guard closed == 0 else { throw Failure(step: "posix_spawn_file_actions_addclosefrom_np", code: closed) }
        var defaults = sigset_t(), empty = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw Failure(step: "posix_spawn \(path)", code: result) }
        return pid
    }

    /// Waits for `pid` to end without blocking a thread (waitpid with WNOHANG, polled from 1 ms up to
    /// 20 ms apart); after `timeout` the child gets SIGKILL. Only this call reaps the child, so the
    /// kill can never hit a reused pid. Returns the exit status, or 128 + the signal that ended it.
    package static func wait(_ pid: Int32, timeout: Duration? = nil) async -> Int32 {
        let clock = ContinuousClock()
        let deadline = timeout.map { clock.now + $0 }
        var pause = Duration.milliseconds(1)
        var killed = false
        while true {
            var status: Int32 = 0
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { return exitCode(status) }
            if result < 0 && errno != EINTR { return -1 }
            if !killed, let deadline, clock.now >= deadline {
                kill(pid, SIGKILL)
                killed = true
            }
            // Cancelling the caller kills the child but does not end the wait: the child is always reaped.
            try? await Task.sleep(for: pause)
            if Task.isCancelled && !killed {
                kill(pid, SIGKILL)
                killed = true
            }
            pause = min(pause * 2, .milliseconds(20))
        }
    }

    /// WEXITSTATUS, or 128 + WTERMSIG (the C macros are not imported).
    static func exitCode(_ status: Int32) -> Int32 {
        let signal = status & 0x7F
        return signal == 0 ? (status >> 8) & 0xFF : 128 + signal
    }
}

/// Text to a standard stream, whole (short writes and EINTR retried), without Foundation's FileHandle.
package enum StandardStream {
    package static func write(_ text: String, to fd: Int32) {
        _ = FileContents.write(text.utf8, descriptor: fd)
    }
}

package enum StandardError {
    package static func write(_ text: String) { StandardStream.write(text, to: 2) }
}

package enum StandardOutput {
    package static func write(_ text: String) { StandardStream.write(text, to: 1) }
}
