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
                return
            }
            rmdir(directory)
        }
        return nil
    }

    /// The file a process writes its pid to to join the cgroup.
    var procs: String { "\(directory)/cgroup.procs" }

    /// The cgroup's memory charge in bytes.
    var bytes: Int? {
        Int(DaemonProcess.contents(of: usageFile).split(separator: "\n").first ?? "")
    }

    /// Removes the cgroup (once its processes have exited).
    func remove() { rmdir(directory) }
}
