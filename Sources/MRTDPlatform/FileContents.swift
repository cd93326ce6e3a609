import Glibc

/// Whole files by path with read(2): regular files, and also what FoundationEssentials' `Data(contentsOf:)`
/// refuses with EACCES, character devices and pipes (`--config /dev/null`, `mrtdctl replay /dev/stdin`,
/// `verify <(...)`, a PIN from a FIFO).
package enum FileContents {
    package struct Failure: Error, CustomStringConvertible, Equatable {
        package var path: String
        /// strerror(3)'s words, or why the size was refused.
        package var reason: String
        package var description: String { "\(path): \(reason)" }
    }

    /// The bytes of `path`; more than `limit` bytes is an error rather than an unbounded read.
    package static func read(_ path: String, limit: Int = 256 << 20) throws(Failure) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { close(fd) }
        return try read(descriptor: fd, path: path, limit: limit)
    }

    /// The rest of an open descriptor (`path` names it in errors); more than `limit` bytes is an error.
    package static func read(descriptor fd: Int32, path: String, limit: Int) throws(Failure) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return out }
            if n < 0 {
                if errno == EINTR { continue }
                throw Failure(path: path, reason: String(cString: strerror(errno)))
            }
            guard out.count + n <= limit else { throw Failure(path: path, reason: "larger than \(limit) bytes") }
            out.append(contentsOf: chunk[0..<n])
        }
    }

    /// Writes all of `bytes` to an open descriptor (short writes and EINTR retried); the errno of
    /// the write that failed, or nil.
    package static func write(_ bytes: some Collection<UInt8>, descriptor fd: Int32) -> Int32? {
        Array(bytes).withUnsafeBytes { raw -> Int32? in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno
                }
                offset += n
            }
            return nil
        }
    }

    /// The file as UTF-8 text; bytes that are not UTF-8 are an error.
    package static func text(_ path: String, limit: Int = 256 << 20) throws(Failure) -> String {
        let bytes = try read(path, limit: limit)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw Failure(path: path, reason: "not UTF-8 text") }
        return text
    }
}
