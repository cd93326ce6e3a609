#if canImport(Glibc)
import Glibc
#endif

/// Errors of the benchmark's socket client.
struct DaemonBenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Monotonic time in milliseconds (CLOCK_MONOTONIC).
func monotonicMilliseconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) * 1000 + Double(now.tv_nsec) / 1_000_000
}

/// A blocking `AF_UNIX` stream socket connected to `path`; reads happen only once `poll` reports
/// data, so the load loop never blocks on them.
func connectUnixSocket(_ path: String) throws -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw DaemonBenchError("socket() failed: errno \(errno)") }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    let bytes = Array(path.utf8)
    let capacity = MemoryLayout.size(ofValue: address.sun_path)
    guard bytes.count < capacity else {
        close(fd)
        throw DaemonBenchError("socket path too long: \(path)")
    }
    withUnsafeMutableBytes(of: &address.sun_path) { raw in
        raw.copyBytes(from: bytes)
        raw[bytes.count] = 0
    }
    let result = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
        }
    }
    guard result == 0 else {
        let code = errno
        close(fd)
        throw DaemonBenchError("connect(\(path)) failed: errno \(code)")
    }
    return fd
}

/// Writes all of `bytes` (requests are small, so a Unix socket takes them at once).
func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
        if written < 0 {
            if errno == EINTR { continue }
            throw DaemonBenchError("write failed: errno \(errno)")
        }
        offset += written
    }
}

/// An HTTP/1.1 request as bytes.
func httpRequest(_ method: String, _ target: String, body: [UInt8] = [], close: Bool = false) -> [UInt8] {
    var head = "\(method) \(target) HTTP/1.1\r\nHost: mrtdd\r\n"
    if !body.isEmpty { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
    if close { head += "Connection: close\r\n" }
    head += "\r\n"
    return Array(head.utf8) + body
}

/// One complete HTTP response.
struct HTTPResponse {
    var status: Int
    /// The server will close the connection after this response.
    var closes: Bool
    var body: [UInt8]
}

/// Accumulates bytes of one connection and cuts complete responses out of them (Content-Length or
/// chunked bodies; enough for the daemon's answers).
struct HTTPResponseReader {
    private var buffer: [UInt8] = []

    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        buffer.append(contentsOf: bytes)
    }

    var isEmpty: Bool { buffer.isEmpty }

    /// The next complete response, removed from the buffer; nil while incomplete. Throws on a
    /// response it cannot parse.
    mutating func next() throws -> HTTPResponse? {
        guard let headEnd = Self.find([13, 10, 13, 10], in: buffer, from: 0) else { return nil }
        let head = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        let lines = head.split(separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw DaemonBenchError("malformed status line")
        }
        var length: Int?
        var chunked = false
        var closes = statusParts[0] == "HTTP/1.0"
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimming(" \t").lowercased()
            switch name {
            case "content-length": length = Int(value)
            case "transfer-encoding": chunked = value.contains("chunked")
            case "connection": closes = value.contains("close")
            default: break
            }
        }
        let bodyStart = headEnd + 4
        if chunked {
            var body: [UInt8] = []
            var cursor = bodyStart
            while true {
                guard let lineEnd = Self.find([13, 10], in: buffer, from: cursor) else { return nil }
                let sizeText = String(decoding: buffer[cursor..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
                guard let size = Int(sizeText.trimming(" "), radix: 16) else { throw DaemonBenchError("malformed chunk size") }
                let dataStart = lineEnd + 2
                if size == 0 {
                    // No trailers from the daemon: the terminating CRLF follows.
                    guard buffer.count >= dataStart + 2 else { return nil }
                    buffer.removeFirst(dataStart + 2)
                    return HTTPResponse(status: status, closes: closes, body: body)
                }
                guard buffer.count >= dataStart + size + 2 else { return nil }
                body.append(contentsOf: buffer[dataStart..<(dataStart + size)])
                cursor = dataStart + size + 2
            }
        }
        let count = length ?? 0
        guard buffer.count >= bodyStart + count else { return nil }
        let body = Array(buffer[bodyStart..<(bodyStart + count)])
        buffer.removeFirst(bodyStart + count)
        return HTTPResponse(status: status, closes: closes, body: body)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count >= needle.count, start <= haystack.count - needle.count else { return nil }
        var index = start
        while index <= haystack.count - needle.count {
            if haystack[index] == needle[0] {
                var match = true
                for offset in 1..<needle.count where haystack[index + offset] != needle[offset] {
                    match = false
                    break
                }
                if match { return index }
            }
            index += 1
        }
        return nil
    }
}

private extension Substring {
    func trimming(_ characters: String) -> String {
        var slice = self[...]
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return String(slice)
    }
}

/// Reads what a readable socket has (up to 64 KiB) into `reader`; returns the byte count (0 at EOF).
func readAvailable(_ fd: Int32, into reader: inout HTTPResponseReader, scratch: UnsafeMutableRawBufferPointer) throws -> Int {
    while true {
        let count = read(fd, scratch.baseAddress, scratch.count)
        if count < 0 {
            if errno == EINTR { continue }
            throw DaemonBenchError("read failed: errno \(errno)")
        }
        reader.append(UnsafeRawBufferPointer(rebasing: scratch[0..<count]))
        return count
    }
}
