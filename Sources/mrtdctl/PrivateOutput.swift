import FoundationEssentials
import Glibc
import MRTDCore
import MRTDPlatform

/// Where `read` and `result` write what the chip held (`--face`, `--images`, `--dump`, `--record`):
/// personal data, DG1 even the BAC key. Another local user may have planted a symbolic link, a
/// hard link or a directory of their own at the path, so every file is
/// created 0600 without following a link, and every directory is 0700 and this user's own,
/// whatever the umask:
///
/// - a directory is created with mkdir (missing parents too, each 0700); one that is already there
///   is used only when it is a real directory (not a link) owned by this user that no one else can
///   write to;
/// - a file is created with O_CREAT|O_EXCL|O_NOFOLLOW; one that is already there (the same command
///   run again) is overwritten only when it is a regular file of this user with one link, else refused;
/// - a file's own directory (`--face FILE`, `--evidence FILE`) follows the directory rules: reached
///   without following a link on the way, this user's own, writable by no one else; else a file
///   in another user's 0777 directory could be moved away, or a planted link could take it elsewhere.
enum PrivateOutput {
    struct Refused: Error, CustomStringConvertible {
        var path: String
        var reason: String
        var description: String { "refusing to write \(path): \(reason)" }
    }

    /// Writes `bytes` to the file `path`, in a directory that follows the rules above.
    static func write(_ bytes: some Collection<UInt8>, toFile path: String) throws(Refused) {
        let (directory, name) = try openParent(of: path)
        defer { close(directory) }
        try write(bytes, name: name, in: directory, shown: path)
    }

    /// The directory `path` lies in, opened one component at a time without following a link
    /// (from `/`, or from the working directory for a relative path), and checked as an output
    /// directory is (this user's own, writable by no one else); and the file's name in it.
    private static func openParent(of path: String) throws(Refused) -> (Int32, String) {
        let slash = path.lastIndex(of: "/")
        let name = String(slash.map { path[path.index(after: $0)...] } ?? path[...])
        guard !name.isEmpty else { throw Refused(path: path, reason: "a file name is needed, not a directory") }
        let parent = String(slash.map { path[..<$0] } ?? "")
        let absolute = path.hasPrefix("/")
        var fd = open(absolute ? "/" : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Refused(path: path, reason: reason(errno)) }
        var walked = absolute ? "" : "."
        for component in parent.split(separator: "/") where component != "." {
            walked += "/" + component
            let next = openat(fd, String(component), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            let code = errno
            close(fd)
            guard next >= 0 else {
                var info = stat()
                let link = lstat(walked, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
                throw Refused(path: walked, reason: link ? "a symbolic link on the way to \(path) (possibly planted by another user); give a path without links" : reason(code))
            }
            fd = next
        }
        return (try checkedDirectory(fd, shown: parent.isEmpty ? (absolute ? "/" : ".") : parent), name)
    }

    /// `fd` (an open directory, or -1) when it is this user's own and writable by no one else;
    /// closed and refused otherwise.
    private static func checkedDirectory(_ fd: Int32, shown: String) throws(Refused) -> Int32 {
        guard fd >= 0 else { throw Refused(path: shown, reason: reason(errno)) }
        var info = stat()
        let uid = geteuid()
        var problem: String?
        if fstat(fd, &info) != 0 {
            problem = reason(errno)
        } else if info.st_uid != uid {
            problem = "the directory belongs to uid \(info.st_uid), not to you (uid \(uid)); write into a directory of your own"
        } else if info.st_mode & 0o022 != 0 {
            problem = "the directory is writable by group or others (mode \(String(info.st_mode & 0o777, radix: 8))); use a directory of your own with mode 0700"
        }
        if let problem {
            close(fd)
            throw Refused(path: shown, reason: problem)
        }
        return fd
    }

    /// Writes each file into the directory `path`. Names come from this program (`DG1.bin`,
    /// `portrait-1.jpg`), never from the chip.
    static func write(_ files: [(name: String, bytes: [UInt8])], toDirectory path: String) throws(Refused) {
        let directory = try openDirectory(path)
        defer { close(directory) }
        for file in files {
            try write(file.bytes, name: file.name, in: directory, shown: "\(path)/\(file.name)")
        }
    }

    /// The directory `path`, open; see the type's rules.
    private static func openDirectory(_ path: String) throws(Refused) -> Int32 {
        // "dir/" would follow a link named dir despite O_NOFOLLOW.
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        let created = makeDirectory(path)
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        var info = stat()
        guard fd >= 0 else {
            // O_DIRECTORY|O_NOFOLLOW on a link fails with ENOTDIR: say which it is.
            let code = errno
            throw Refused(path: path, reason: reason(lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK ? ELOOP : code))
        }
        if created && fchmod(fd, 0o700) != 0 {
            let code = errno
            close(fd)
            throw Refused(path: path, reason: reason(code))
        }
        return try checkedDirectory(fd, shown: path)
    }

    /// mkdir 0700, creating missing parents the same way; whether `path` itself was created.
    /// An existing path is left to `openDirectory` to judge.
    private static func makeDirectory(_ path: String) -> Bool {
        if mkdir(path, 0o700) == 0 { return true }
        guard errno == ENOENT, let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return false }
        _ = makeDirectory(String(path[..<slash]))
        return mkdir(path, 0o700) == 0
    }

    private static func write(_ bytes: some Collection<UInt8>, name: String, in directory: Int32, shown: String) throws(Refused) {
        let fd = try openFile(name, in: directory, shown: shown)
        defer { close(fd) }
        if let failure = FileContents.write(bytes, descriptor: fd) { throw Refused(path: shown, reason: reason(failure)) }
    }

    /// Creates the file 0600, or reopens this user's own earlier one (regular, one link) and empties it.
    private static func openFile(_ name: String, in directory: Int32, shown: String) throws(Refused) -> Int32 {
        // O_NONBLOCK: a FIFO planted at the path must not hang the open (it is refused below).
        let flags = O_WRONLY | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC | O_NONBLOCK
        var fd = openat(directory, name, flags | O_CREAT | O_EXCL, 0o600)
        if fd < 0 && errno == EEXIST {
            fd = openat(directory, name, flags)
            var info = stat()
            if fd >= 0 && (fstat(fd, &info) != 0 || info.st_mode & S_IFMT != S_IFREG || info.st_uid != geteuid() || info.st_nlink != 1) {
                close(fd)
                throw Refused(path: shown, reason: "it exists and is not a regular file of yours with a single link (remove it, or choose another path)")
            }
            if fd >= 0 && ftruncate(fd, 0) != 0 {
                let code = errno
                close(fd)
                throw Refused(path: shown, reason: reason(code))
            }
        }
        guard fd >= 0 else { throw Refused(path: shown, reason: reason(errno)) }
        // The umask never widens 0600, but an earlier file may have had any mode.
        guard fchmod(fd, 0o600) == 0 else {
            let code = errno
            close(fd)
            throw Refused(path: shown, reason: reason(code))
        }
        return fd
    }

    private static func reason(_ code: Int32) -> String {
        switch code {
        case ELOOP: "it is a symbolic link (possibly planted by another user); give a path that is not a link"
        case ENOTDIR: "not a directory"
        case ENXIO: "it is not a regular file (a FIFO or a socket)"
        default: String(cString: strerror(code))
        }
    }
}
