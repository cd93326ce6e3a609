#if canImport(Glibc)
import Glibc
#endif

/// What one load run measured.
struct LoadResult {
    /// Per request, from just before its bytes were written (or the connection opened) to the last
    /// byte of the answer, in milliseconds.
    var latenciesMs: [Double] = []
    var statuses: [Int: Int] = [:]
    var seconds: Double = 0

    var sorted: [Double] { latenciesMs.sorted() }

    /// The nearest-rank percentile `q` (0...1) of the latencies.
    func percentile(_ q: Double) -> Double {
        let values = sorted
        guard !values.isEmpty else { return .nan }
        let rank = Int((q * Double(values.count)).rounded(.up)) - 1
        return values[min(values.count - 1, max(0, rank))]
    }
}

/// A closed-loop load generator on one thread: `clients` connections, each with one request in
/// flight at a time, driven by poll(2). One thread and no per-request allocation beyond the
/// response buffer keep the client cheaper than the server it measures.
enum HTTPLoad {
    private struct Slot {
        var fd: Int32 = -1
        var busy = false
        var start = 0.0
        var reader = HTTPResponseReader()
    }

    /// Sends `count` requests through `clients` concurrent connections, client `i` always sending
    /// `requests[i % requests.count]`. With
    /// `keepAlive` each client reuses its connection (as a real client does); otherwise every
    /// request opens a connection (its latency includes connect) and sends `Connection: close`.
    static func run(socket path: String, requests: [[UInt8]], clients: Int, count: Int, keepAlive: Bool,
                    timeoutSeconds: Double = 300) throws -> LoadResult {
        var slots = [Slot](repeating: Slot(), count: clients)
        defer { for slot in slots where slot.fd >= 0 { close(slot.fd) } }
        var result = LoadResult()
        result.latenciesMs.reserveCapacity(count)
        var issued = 0
        var completed = 0
        let began = monotonicMilliseconds()
        let deadline = began + timeoutSeconds * 1000
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { scratch.deallocate() }

        func issue(_ index: Int) throws {
            guard issued < count else { return }
            let start = monotonicMilliseconds()
            if slots[index].fd < 0 { slots[index].fd = try connectUnixSocket(path) }
            if keepAlive { slots[index].start = monotonicMilliseconds() } else { slots[index].start = start }
            try writeAll(slots[index].fd, requests[index % requests.count])
            slots[index].busy = true
            issued += 1
        }

        for index in 0..<clients { try issue(index) }
        var pollSet: [pollfd] = []
        var owners: [Int] = []
        while completed < count {
            pollSet.removeAll(keepingCapacity: true)
            owners.removeAll(keepingCapacity: true)
            for (index, slot) in slots.enumerated() where slot.busy {
                pollSet.append(pollfd(fd: slot.fd, events: Int16(POLLIN), revents: 0))
                owners.append(index)
            }
            let ready = poll(&pollSet, nfds_t(pollSet.count), 1000)
            if ready < 0 && errno != EINTR { throw DaemonBenchError("poll failed: errno \(errno)") }
            if monotonicMilliseconds() > deadline { throw DaemonBenchError("load run timed out after \(completed) of \(count) answers") }
            guard ready > 0 else { continue }
            for (position, entry) in pollSet.enumerated() where entry.revents != 0 {
                let index = owners[position]
                let count = try readAvailable(slots[index].fd, into: &slots[index].reader, scratch: scratch)
                let now = monotonicMilliseconds()
                while let response = try slots[index].reader.next() {
                    result.latenciesMs.append(now - slots[index].start)
                    result.statuses[response.status, default: 0] += 1
                    completed += 1
                    slots[index].busy = false
                    if !keepAlive || response.closes {
                        close(slots[index].fd)
                        slots[index].fd = -1
                        slots[index].reader = HTTPResponseReader()
                    }
                    try issue(index)
                }
                if count == 0 && slots[index].busy {
                    throw DaemonBenchError("the daemon closed a connection before answering")
                }
                if count == 0 && slots[index].fd >= 0 {
                    close(slots[index].fd)
                    slots[index].fd = -1
                }
            }
        }
        result.seconds = (monotonicMilliseconds() - began) / 1000
        return result
    }
}
