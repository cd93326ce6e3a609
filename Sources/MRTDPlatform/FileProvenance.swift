import Glibc

/// Whether a file the process trusts (trust anchors, terminal keys and certificates, PKCS #11
/// modules, the simulation's trust directory) can have been written by someone else, and a bounded
/// read of such a file.
///
/// The rule: a file, and the directory holding it, must belong to root or to this process's user,
/// and no one else may write it: not every user (mode `o+w`; a root-owned sticky directory such as
/// /tmp excepted, where others cannot replace what they do not own) and not a group other than
/// root's or this process's own. Anything else could have been planted or swapped by another
/// local user, so it is refused, never loaded with a warning.
///
/// Trust lists may also belong to their writer, the package's trust-list updater
/// (``trustListWriterName``, `systemd/mrtdd-trust-update.service`), which owns the trust directory
/// it updates: callers reading trust lists pass ``trustListWriter()`` as `writer`.
package enum FileProvenance {
    /// The system user that `mrtdd-trust-update.service` runs as (systemd/mrtdd.sysusers.conf).
    /// Only root can create a user, so a user of this name is root's decision, not a file's claim.
    package static let trustListWriterName = "mrtdd-trust"

    /// The uid of ``trustListWriterName``, or nil when the system has no such user.
    package static func trustListWriter() -> UInt32? {
        var entry = passwd()
        var result: UnsafeMutablePointer<passwd>?
        var buffer = [CChar](repeating: 0, count: 4096)
        guard getpwnam_r(trustListWriterName, &entry, &buffer, buffer.count, &result) == 0, result != nil else { return nil }
        return entry.pw_uid
    }

    /// Why a file or directory with these attributes may not be trusted, or nil. `writer`: one
    /// more owner trusted besides root and this process's user.
    package static func problem(owner: UInt32, group: UInt32, mode: UInt32, isDirectory: Bool, writer: UInt32? = nil) -> String? {
        let me = geteuid()
        if owner != 0 && owner != me && owner != writer {
            let also = writer.map { ", nor the trust-list writer \(trustListWriterName) (uid \($0))" } ?? ""
            return "owned by uid \(owner), neither root nor this process's user (uid \(me))\(also)"
        }
        if mode & S_IWOTH != 0 && !(isDirectory && mode & S_ISVTX != 0 && owner == 0) {
            return "writable by every user (mode \(octal(mode & 0o7777)))"
        }
        if mode & S_IWGRP != 0 && group != 0 && group != getegid() {
            return "writable by group \(group) (mode \(octal(mode & 0o7777)))"
        }
        return nil
    }

    /// `problem(owner:group:mode:isDirectory:)` for a path, links followed; nil when it is fine.
    package static func problem(ofPath path: String, writer: UInt32? = nil) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return String(cString: strerror(errno)) }
        return problem(owner: info.st_uid, group: info.st_gid, mode: info.st_mode, isDirectory: info.st_mode & S_IFMT == S_IFDIR, writer: writer)
    }

    /// The real path of `path`, links resolved; a link that dangles or loops is an error that says so.
    package static func resolve(_ path: String) throws(FileContents.Failure) -> String {
        guard let resolved = realpath(path, nil) else {
            let reason = errno == ELOOP ? "a symbolic link loop" : errno == ENOENT ? "a symbolic link to nothing (\(target(of: path) ?? "?"))"
                : String(cString: strerror(errno))
            throw FileContents.Failure(path: path, reason: reason)
        }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The bytes of a file the process is about to trust: `path` resolved (a dangling or looping
    /// link is an error), the target opened without following links, checked on the open
    /// descriptor (a regular file, of trusted provenance, in a directory of trusted provenance, at
    /// most `limit` bytes), then read. Nothing of a file over the limit is read. `writer`: as for
    /// ``problem(owner:group:mode:isDirectory:writer:)``.
    package static func read(_ path: String, limit: Int, writer: UInt32? = nil) throws(FileContents.Failure) -> [UInt8] {
        let real = try resolve(path)
        let parent = PathString.parent(real)
        if let problem = problem(ofPath: parent, writer: writer) {
            throw FileContents.Failure(path: path, reason: "its directory \(parent) is \(problem)")
        }
        let fd = open(real, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw FileContents.Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileContents.Failure(path: path, reason: String(cString: strerror(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw FileContents.Failure(path: path, reason: "not a regular file") }
        if let problem = problem(owner: info.st_uid, group: info.st_gid, mode: info.st_mode, isDirectory: false, writer: writer) {
            throw FileContents.Failure(path: path, reason: real == path ? problem : "\(real) is \(problem)")
        }
        guard Int(info.st_size) <= limit else {
            throw FileContents.Failure(path: path, reason: "\(info.st_size) bytes, larger than the limit of \(limit)")
        }
        return try FileContents.read(descriptor: fd, path: path, limit: limit)
    }

    /// Why the shared object at `path` may not be loaded into this process (dlopen), or nil: it
    /// must be an absolute path whose target, and the directory holding it, belong to root and
    /// are writable by root alone. Code runs with everything the process holds, so the rule is
    /// stricter than for data: this process's own user is not enough.
    package static func problemLoadingCode(_ path: String) -> String? {
        guard path.hasPrefix("/") else { return "is not an absolute path" }
        let real: String
        do { real = try resolve(path) } catch { return "is \(error.reason)" }
        for (file, isDirectory) in [(real, false), (PathString.parent(real), true)] {
            var info = stat()
            guard stat(file, &info) == 0 else { return "cannot be examined: \(String(cString: strerror(errno)))" }
            let kind = info.st_mode & S_IFMT
            if !isDirectory && kind != S_IFREG { return "is not a regular file" }
            let what = isDirectory ? "its directory \(file)" : file == path ? "it" : "its target \(file)"
            if info.st_uid != 0 { return "is refused: \(what) belongs to uid \(info.st_uid), not root" }
            if info.st_mode & (S_IWGRP | S_IWOTH) != 0 { return "is refused: \(what) is writable by others than root (mode \(octal(info.st_mode & 0o7777)))" }
        }
        return nil
    }

    private static func target(of link: String) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let n = readlink(link, &buffer, buffer.count - 1)
        guard n >= 0 else { return nil }
        return String(decoding: buffer[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func octal(_ mode: mode_t) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
