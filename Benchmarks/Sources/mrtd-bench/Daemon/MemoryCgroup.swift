#if canImport(Glibc)
import Glibc
#endif

/// A memory cgroup of the bench's own for the daemon, so that the bench reports what an operator
/// sees: systemd's `MemoryCurrent` for the unit is its cgroup's memory charge (cgroup v2
/// `memory.current`, v1 `memory.usage_in_bytes`): the daemon's anonymous memory, the kernel memory
/// it causes (sockets, page tables) and the file pages it was first to read. The binary's pages
/// count only when nobody had them in the page cache before (here the bench usually had: they are
/// then charged to the bench's own cgroup, as on a host they are to whoever read them first).
/// Needs root and a writable cgroup hierarchy; nil otherwise.
final class MemoryCgroup {
    let directory: String
    private let usageFile: String

    init?(name: String) {
        // cgroup v2 (memory.current in a child of the root), else the v1 memory hierarchy.
        for (root, usage) in [("/sys/fs/cgroup", "memory.current"), ("/sys/fs/cgroup/memory", "memory.usage_in_bytes")] {
            let directory = "\(root)/\(name)"
            guard mkdir(directory, 0o755) == 0 || errno == EEXIST else { continue }
            if access("\(directory)/\(usage)", R_OK) == 0 {
                self.directory = directory
                usageFile = "\(directory)/\(usage)"
                // v1: what the daemon charged before it was moved here moves with it.
                if usage == "memory.usage_in_bytes" { Self.write("3", to: "\(directory)/memory.move_charge_at_immigrate") }
                return
            }
            rmdir(directory)
        }
        return nil
    }

    /// Moves `pid` into the cgroup.
    @discardableResult
    func add(_ pid: pid_t) -> Bool { Self.write("\(pid)", to: "\(directory)/cgroup.procs") }

    /// The cgroup's memory charge in bytes.
    var bytes: Int? {
        Int(DaemonProcess.contents(of: usageFile).split(separator: "\n").first ?? "")
    }

    /// Removes the cgroup (once its processes have exited).
    func remove() { rmdir(directory) }

    private static func write(_ text: String, to path: String) -> Bool {
        let fd = open(path, O_WRONLY)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return Array(text.utf8).withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } == text.utf8.count
    }
}
