import FoundationEssentials
import Glibc
import MRTDCore
import MRTDPlatform
import MRTDVerification

/// Writes verified trust material into the trust directory (`/etc/mrtdd/trust`), atomically: each
/// file is written to a temporary file in the same directory (O_CREAT|O_EXCL|O_NOFOLLOW, mode
/// 0644), fsynced, then renamed over the old one, and the directory is fsynced. A source's files
/// are all written before any is renamed, so a failure leaves none of them installed. No link is
/// followed: the trust directory and its subdirectories must be real directories (created 0755
/// when missing), not writable by group or others, owned by this user or root.
struct TrustInstaller {
    let directory: String

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Installs `files` (relative path, bytes) all or nothing.
    func install(_ files: [(relativePath: String, bytes: [UInt8])]) throws(Failure) {
        let root = try openDirectory(directory, parent: AT_FDCWD, shown: directory)
        defer { close(root) }
        var staged: [(directory: Int32, temporary: String, name: String, shown: String)] = []
        defer { for entry in staged { close(entry.directory) } }
        do throws(Failure) {
            for file in files {
                let parts = file.relativePath.split(separator: "/").map(String.init)
                guard let name = parts.last, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
                    throw Failure(description: "\(file.relativePath): not a relative path")
                }
                var current = dup(root)
                for component in parts.dropLast() {
                    let next: Int32
                    do { next = try openDirectory(component, parent: current, shown: PathString.join(directory, component)) } catch {
                        close(current)
                        throw error
                    }
                    close(current)
                    current = next
                }
                let temporary = ".\(name).tmp-\(getpid())"
                let shown = PathString.join(directory, file.relativePath)
                do { try writeSynced(file.bytes, name: temporary, in: current, shown: shown) } catch {
                    close(current)
                    throw error
                }
                staged.append((current, temporary, name, shown))
            }
        } catch {
            for entry in staged { unlinkat(entry.directory, entry.temporary, 0) }
            throw error
        }
        for (index, entry) in staged.enumerated() where renameat(entry.directory, entry.temporary, entry.directory, entry.name) != 0 {
            let reason = String(cString: strerror(errno))
            for later in staged[index...] { unlinkat(later.directory, later.temporary, 0) }
            throw Failure(description: "\(entry.shown): rename: \(reason)")
        }
        for entry in staged { fsync(entry.directory) }
        fsync(root)
    }

    /// Opens (creating 0755 when missing) a directory without following a link.
    private func openDirectory(_ name: String, parent: Int32, shown: String) throws(Failure) -> Int32 {
        var fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 && errno == ENOENT {
            guard mkdirat(parent, name, 0o755) == 0 || errno == EEXIST else {
                throw Failure(description: "\(shown): mkdir: \(String(cString: strerror(errno)))")
            }
            fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0 { fchmod(fd, 0o755) }
        }
        guard fd >= 0 else {
            let code = errno
            throw Failure(description: "\(shown): \(code == ENOTDIR || code == ELOOP ? "not a directory (or a symbolic link)" : String(cString: strerror(code)))")
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            close(fd)
            throw Failure(description: "\(shown): \(String(cString: strerror(errno)))")
        }
        if let problem = FileProvenance.problem(owner: info.st_uid, group: info.st_gid, mode: info.st_mode, isDirectory: true,
                                                writer: FileProvenance.trustListWriter()) {
            close(fd)
            throw Failure(description: "\(shown): \(problem)")
        }
        return fd
    }

    private func writeSynced(_ bytes: [UInt8], name: String, in directory: Int32, shown: String) throws(Failure) {
        unlinkat(directory, name, 0)  // a stale temporary of this pid
        let fd = openat(directory, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "\(shown): create: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var failure: String?
        if fchmod(fd, 0o644) != 0 { failure = "chmod: \(String(cString: strerror(errno)))" }
        var written = 0
        while failure == nil && written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                failure = "write: \(String(cString: strerror(errno)))"
            } else {
                written += count
            }
        }
        if failure == nil && fsync(fd) != 0 { failure = "fsync: \(String(cString: strerror(errno)))" }
        if let failure {
            unlinkat(directory, name, 0)
            throw Failure(description: "\(shown): \(failure)")
        }
    }
}
