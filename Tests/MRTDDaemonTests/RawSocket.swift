import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain blocking Unix socket for sending deliberately broken HTTP.
final class RawSocket: @unchecked Sendable {
    let fd: Int32

    init(path: String, receiveTimeout: Double = 30) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.prefix(raw.count - 1).enumerated() { raw[i] = b }
        }
        try Self.connect(fd, to: address)
        setReceiveTimeout(receiveTimeout)
    }

    /// A TCP connection to 127.0.0.1:`port` (the console). `receiveBuffer` sets SO_RCVBUF before
    /// connecting: a small window for a client that stops reading.
    init(tcpPort port: Int, receiveTimeout: Double = 30, receiveBuffer: Int32? = nil) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket() failed") }
        if var size = receiveBuffer {
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        try Self.connect(fd, to: address)
        setReceiveTimeout(receiveTimeout)
    }

    /// connect(2) to a `sockaddr_un` or `sockaddr_in`; closes `fd` when it fails.
    private static func connect<Address>(_ fd: Int32, to address: Address) throws {
        var address = address
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            throw TestFailure("connect() failed: \(code)")
        }
    }

    /// The local port (of a TCP connection).
    var localPort: Int {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func setReceiveTimeout(_ seconds: Double) {
        var timeout = timeval(tv_sec: Int(seconds), tv_usec: Int((seconds - Double(Int(seconds))) * 1e6))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { close(fd) }

    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Everything until the peer closes or the timeout passes.
    func receiveAll() -> String { receiveUntilEnd().text }

    /// Everything until the peer closes or the timeout passes, and which of the two ended it
    /// (`closed`: end of stream or a reset).
    func receiveUntilEnd() -> (text: String, closed: Bool) {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 {
                let closed = n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK)
                return (String(decoding: out, as: UTF8.self), closed)
            }
            out += buffer[0..<n]
        }
    }

    /// The first answer's status code and body (reads until the body of Content-Length is complete).
    func receiveAnswer() -> (status: Int, body: String)? {
        var out: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let text = String(decoding: out, as: UTF8.self)
            if let end = text.range(of: "\r\n\r\n") {
                let head = text[..<end.lowerBound]
                let length = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) } ?? 0
                let body = text[end.upperBound...]
                if body.utf8.count >= length {
                    let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
                    return (status, String(body))
                }
            }
            let n = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n <= 0 { return nil }
            out += buffer[0..<n]
        }
    }
}
