#if canImport(Glibc)
import Glibc
#endif

/// Counts occurrences of a byte pattern in a stream that arrives in arbitrary pieces.
struct PatternCounter {
    let pattern: [UInt8]
    private var carry: [UInt8] = []
    private(set) var count = 0

    init(_ text: String) { pattern = Array(text.utf8) }

    mutating func feed(_ bytes: UnsafeRawBufferPointer) {
        let window = carry + bytes
        var from = 0
        while let hit = HTTPResponseReader.find(pattern, in: window, from: from) {
            count += 1
            from = hit + pattern.count
        }
        let keep = min(pattern.count - 1, window.count - from)
        carry = keep > 0 ? Array(window[(window.count - keep)...]) : []
    }
}

/// One read observed by every subscriber of `GET /v1/events`.
struct FanOutSample {
    /// From the first sign at the client that the read finished (the first subscriber's
    /// `read.finished` or the `wait=true` answer, whichever came first) to the last subscriber's
    /// `read.finished`, in milliseconds.
    var fanOutMs: Double
    /// From the first to the last subscriber's `read.finished`.
    var spreadMs: Double
}

/// `subscribers` connections follow `GET /v1/events` while a further connection runs `rounds`
/// reads with `POST /v1/reads?wait=true`; one poll(2) loop timestamps every arrival.
enum EventFanOut {
    static func measure(socket path: String, subscribers: Int, rounds: Int, readRequest: [UInt8],
                        timeoutSeconds: Double = 120) throws -> [FanOutSample] {
        var fds: [Int32] = []
        defer { for fd in fds { close(fd) } }
        let subscribe = httpRequest("GET", "/v1/events")
        for _ in 0..<subscribers {
            let fd = try connectUnixSocket(path)
            fds.append(fd)
            try writeAll(fd, subscribe)
        }
        let trigger = try connectUnixSocket(path)
        defer { close(trigger) }
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { scratch.deallocate() }
        let deadline = monotonicMilliseconds() + timeoutSeconds * 1000

        // Every stream starts with the daemon's comment line once its subscription is registered.
        var opened = [PatternCounter](repeating: PatternCounter(": mrtdd event stream"), count: subscribers)
        var finished = [PatternCounter](repeating: PatternCounter("event: read.finished\n"), count: subscribers)
        var refused = [PatternCounter](repeating: PatternCounter("HTTP/1.1 4"), count: subscribers)
        func pump(_ fd: Int32, _ index: Int) throws {
            let count = read(fd, scratch.baseAddress, scratch.count)
            guard count > 0 else { throw DaemonBenchError("an event stream ended (read returned \(count), errno \(errno))") }
            let bytes = UnsafeRawBufferPointer(rebasing: scratch[0..<count])
            opened[index].feed(bytes)
            finished[index].feed(bytes)
            refused[index].feed(bytes)
            if refused[index].count > 0 { throw DaemonBenchError("the daemon refused an event stream (raise max-event-streams)") }
        }
        var pollSet = fds.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
        while opened.contains(where: { $0.count == 0 }) {
            guard monotonicMilliseconds() < deadline else { throw DaemonBenchError("event streams did not open") }
            guard poll(&pollSet, nfds_t(pollSet.count), 1000) > 0 else { continue }
            for (index, entry) in pollSet.enumerated() where entry.revents != 0 { try pump(entry.fd, index) }
        }

        var samples: [FanOutSample] = []
        pollSet.append(pollfd(fd: trigger, events: Int16(POLLIN), revents: 0))
        for round in 1...rounds {
            var answer = HTTPResponseReader()
            var answeredAt: Double?
            var arrivals = [Double?](repeating: nil, count: subscribers)
            try writeAll(trigger, readRequest)
            while answeredAt == nil || arrivals.contains(where: { $0 == nil }) {
                guard monotonicMilliseconds() < deadline else { throw DaemonBenchError("read.finished did not reach every subscriber") }
                guard poll(&pollSet, nfds_t(pollSet.count), 1000) > 0 else { continue }
                let now = monotonicMilliseconds()
                for (index, entry) in pollSet.enumerated() where entry.revents != 0 {
                    if entry.fd == trigger {
                        guard try readAvailable(trigger, into: &answer, scratch: scratch) > 0 else {
                            throw DaemonBenchError("the daemon closed the read connection")
                        }
                        if let response = try answer.next() {
                            guard response.status == 200 else { throw DaemonBenchError("read answered \(response.status)") }
                            answeredAt = now
                        }
                    } else {
                        try pump(entry.fd, index)
                        if arrivals[index] == nil && finished[index].count >= round { arrivals[index] = now }
                    }
                }
            }
            let times = arrivals.compactMap { $0 }
            guard let first = times.min(), let last = times.max() else { continue }
            samples.append(FanOutSample(fanOutMs: last - min(first, answeredAt ?? first), spreadMs: last - first))
        }
        return samples
    }
}
