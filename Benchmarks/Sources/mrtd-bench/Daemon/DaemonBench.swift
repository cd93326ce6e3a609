import Foundation

/// The daemon figures of docs/performance.md ("Daemon"), measured against a release `mrtdd
/// --simulate` running as a separate process, as systemd runs it.
enum DaemonBench {
    struct Options {
        /// The mrtdd executable; by default the one next to mrtd-bench (scripts/bench builds both).
        var executable: String
        var clients = 50
        var latencyRequests = 5000
        var newConnectionRequests = 2000
        var reads = 1000
        var readClients = 4
        var subscribers = 100
        var fanOutRounds = 20
        /// Reads after the result store is full (`--store-full-reads=N`, whole thousands).
        var storeFullReads = 10_000
        /// `--daemon-memory-only`: the memory figures alone (a long `--store-full-reads` run).
        var memoryOnly = false
        /// `--alloc-counter=PATH` (scripts/bench passes it): the allocation-counting shim.
        var allocationCounter: AllocationCounter?

        init(arguments: some Sequence<String>) {
            let own = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            executable = URL(fileURLWithPath: own).deletingLastPathComponent().appendingPathComponent("mrtdd").path
            for argument in arguments where argument.hasPrefix("--mrtdd=") {
                executable = String(argument.dropFirst("--mrtdd=".count))
            }
            for argument in arguments where argument.hasPrefix("--store-full-reads=") {
                storeFullReads = max(2000, Int(argument.dropFirst("--store-full-reads=".count)) ?? storeFullReads)
            }
            memoryOnly = arguments.contains("--daemon-memory-only")
            for argument in arguments where argument.hasPrefix("--alloc-counter=") {
                allocationCounter = AllocationCounter(library: String(argument.dropFirst("--alloc-counter=".count)))
            }
        }
    }

    /// The daemon's flags: two virtual readers (the BAC passport and the PACE-CAM ID card), room
    /// for 100 event streams, and results capped at 1,000 so that the second 1,000 reads run with
    /// a full, steady result store (the default cap is 2,000 with a 5 min retention).
    static let daemonArguments = [
        "--simulate", "--sim-readers", "2", "--config", "/dev/null",
        "--set", "max-event-streams=128", "--set", "max-results=1000",
    ]

    /// The repository's certs/masterlists: mrtd-bench runs from Benchmarks/.build/<triple>/release.
    static var shippedMasterLists: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("certs/masterlists").path
    }

    /// A second daemon as a kiosk runs it (PC/SC, the shipped master lists trusted), idle one second
    /// after one `GET /v1/readers`: whether pcscd runs changes nothing here but a log line.
    static func idleWithShippedTrust(_ options: Options) throws -> ProcessMemory {
        let daemon = try DaemonProcess(executable: options.executable, arguments: [
            "--backends", "pcsc", "--config", "/dev/null", "--set", "default-trust-path=\(shippedMasterLists)",
        ])
        defer { daemon.stop() }
        let readers = try HTTPLoad.run(socket: daemon.socket, requests: [httpRequest("GET", "/v1/readers")], clients: 1, count: 1, keepAlive: false)
        guard readers.statuses[200] == 1 else { throw DaemonBenchError("GET /v1/readers answered \(readers.statuses)") }
        usleep(1_000_000)
        return try ProcessMemory(pid: daemon.pid)
    }

    static let passportRead = Array(#"{"reader":"Virtual Reader 0","access":{"mrzKey":{"documentNumber":"L898902C3","dateOfBirth":"740812","dateOfExpiry":"120415"}}}"#.utf8)
    static let idCardRead = Array(#"{"reader":"Virtual Reader 1","access":{"can":"123456"}}"#.utf8)

    /// `run`, or a one-line message on stderr and exit status 1 (the daemon already stopped and its
    /// directory removed by then).
    static func runOrExit(_ options: Options) -> [String: Any] {
        do {
            return try run(options)
        } catch {
            FileHandle.standardError.write(Data("mrtd-bench: daemon figures failed: \(error)\n".utf8))
            exit(1)
        }
    }

    /// Allocations of one read through the daemon (``AllocationCounter``): a daemon of its own with
    /// the counting shim, 200 warm-up reads, then 1,000 counted.
    static func allocationsPerRead(_ options: Options, counter: AllocationCounter) throws -> Int {
        let file = AllocationCounter.freshFile("daemon")
        defer { unlink(file) }
        let daemon = try DaemonProcess(executable: options.executable, arguments: daemonArguments, environment: counter.environment(file))
        defer { daemon.stop() }
        let reads = [httpRequest("POST", "/v1/reads?wait=true", body: passportRead), httpRequest("POST", "/v1/reads?wait=true", body: idCardRead)]
        let warmUp = try HTTPLoad.run(socket: daemon.socket, requests: reads, clients: options.readClients, count: 200, keepAlive: true)
        let before = AllocationCounter.read(file).allocations
        let counted = try HTTPLoad.run(socket: daemon.socket, requests: reads, clients: options.readClients, count: 1000, keepAlive: true)
        let after = AllocationCounter.read(file).allocations
        guard warmUp.statuses[200] == 200, counted.statuses[200] == 1000 else {
            throw DaemonBenchError("reads under the allocation counter answered \(warmUp.statuses), \(counted.statuses)")
        }
        return Int((Double(after - before) / 1000).rounded())
    }

    static func run(_ options: Options) throws -> [String: Any] {
        // The daemon in a memory cgroup of its own when the machine allows it (MemoryCgroup).
        let cgroup = MemoryCgroup(name: "mrtd-bench-\(getpid())")
        defer { cgroup?.remove() }
        let daemon = try DaemonProcess(executable: options.executable, arguments: daemonArguments, cgroup: cgroup)
        defer { daemon.stop() }
        let socket = daemon.socket
        var report: [String: Any] = [:]

        // Memory first, on a fresh daemon: idle after one request, then 1,000 reads that fill the
        // result store, then `storeFullReads` more in steps of 1,000 (StoreFullMemory).
        let readers = try HTTPLoad.run(socket: socket, requests: [httpRequest("GET", "/v1/readers")], clients: 1, count: 1, keepAlive: false)
        guard readers.statuses[200] == 1 else { throw DaemonBenchError("GET /v1/readers answered \(readers.statuses)") }
        usleep(300_000)
        let idleCharge = cgroup?.bytes
        let reads = [httpRequest("POST", "/v1/reads?wait=true", body: passportRead), httpRequest("POST", "/v1/reads?wait=true", body: idCardRead)]
        let memory = try Section.timed("daemon memory over \(options.storeFullReads) reads with the store full") {
            try StoreFullMemory.measure(socket: socket, pid: daemon.pid, reads: options.storeFullReads, clients: options.readClients, requests: reads)
        }
        let idle = memory.idle, afterFirst = memory.afterFill, afterSecond = memory.steps[0], afterThird = memory.steps[1]
        let retained = try metric("mrtdd_results_retained", socket: socket)
        report["idleRssMB"] = ProcessMemory.mib(idle.vmRSS)
        report["rssAfter1000ReadsMB"] = ProcessMemory.mib(afterFirst.vmRSS)
        report["rssAfter2000ReadsMB"] = ProcessMemory.mib(afterSecond.vmRSS)
        report["rssAfter3000ReadsMB"] = ProcessMemory.mib(afterThird.vmRSS)
        report["rssGrowthAfter1000ReadsMB"] = ProcessMemory.mib(afterSecond.vmRSS - afterFirst.vmRSS)
        report["idleRssAnonMB"] = ProcessMemory.mib(idle.rssAnon)
        report["rssAnonGrowthStoreFullMB"] = memory.rssAnonGrowthMB
        report["storeFullMemory"] = memory.json
        let storeFullCharge = cgroup?.bytes
        report["memoryCurrentMB"] = [
            "idle": idleCharge.map { ProcessMemory.mib($0 / 1024) } ?? NSNull(),
            "afterStoreFullReads": storeFullCharge.map { ProcessMemory.mib($0 / 1024) } ?? NSNull(),
            "cgroup": cgroup?.directory ?? NSNull(),
            "note": "the daemon's cgroup memory charge, what systemd reports as MemoryCurrent (null: no writable memory cgroup here)",
        ] as [String: Any]
        report["daemonMemory"] = [
            "idle": idle.json, "after1000Reads": afterFirst.json, "after2000Reads": afterSecond.json, "after3000Reads": afterThird.json,
            "readsPerRun": StoreFullMemory.step, "readClients": options.readClients,
            "readsPerSecond": memory.readsPerSecond, "readLatencyP50Ms": memory.readLatencyP50Ms,
            "resultsRetained": retained ?? -1, "maxResults": 1000,
            "note": "VmRSS = RssAnon (the daemon's own: heap, stacks, relocated library data) + RssFile (mapped library code, shared with other Swift processes) + RssShmem, MiB",
        ] as [String: Any]
        let trusting = try Section.timed("idle daemon with the shipped master lists") { try idleWithShippedTrust(options) }
        report["idleRssShippedTrustMB"] = ProcessMemory.mib(trusting.vmRSS)
        report["idleRssAnonShippedTrustMB"] = ProcessMemory.mib(trusting.rssAnon)
        report["idleShippedTrust"] = [
            "memory": trusting.json,
            "daemon": "mrtdd --backends pcsc --set default-trust-path=certs/masterlists (the DE and NL lists, about 630 CSCAs): what a kiosk runs",
        ] as [String: Any]
        let directory = URL(fileURLWithPath: options.executable).deletingLastPathComponent().path
        let sizes = BinarySizes.measure(directory: directory, names: ["mrtdd", "mrtdctl"])
        report["binarySizes"] = sizes
        if let mrtdd = sizes["mrtdd"] as? [String: Any] { report["mrtddBinaryMB"] = mrtdd["mb"] }
        if let mrtdctl = sizes["mrtdctl"] as? [String: Any] { report["mrtdctlBinaryMB"] = mrtdctl["mb"] }
        if options.memoryOnly { return report }

        if let counter = options.allocationCounter {
            report["daemonAllocationsPerRead"] = try Section.timed("allocations per daemon read") { try allocationsPerRead(options, counter: counter) }
        }

        // API latency: keep-alive (what mrtdctl and HTTP client libraries do), then a new
        // connection per request.
        let readersRequest = [httpRequest("GET", "/v1/readers")]
        _ = try HTTPLoad.run(socket: socket, requests: readersRequest, clients: options.clients, count: 1000, keepAlive: true)
        var cpu = try processCPUMilliseconds(pid: daemon.pid)
        let kept = try HTTPLoad.run(socket: socket, requests: readersRequest, clients: options.clients, count: options.latencyRequests, keepAlive: true)
        let keptCPU = try processCPUMilliseconds(pid: daemon.pid) - cpu
        cpu = try processCPUMilliseconds(pid: daemon.pid)
        let fresh = try HTTPLoad.run(
            socket: socket, requests: [httpRequest("GET", "/v1/readers", close: true)], clients: options.clients,
            count: options.newConnectionRequests, keepAlive: false)
        let freshCPU = try processCPUMilliseconds(pid: daemon.pid) - cpu
        for run in [kept, fresh] where run.statuses[200] != run.latenciesMs.count {
            throw DaemonBenchError("GET /v1/readers answered \(run.statuses)")
        }
        report["apiLatencyP50Ms"] = rounded(kept.percentile(0.5), 3)
        report["apiLatencyP99Ms"] = rounded(kept.percentile(0.99), 3)
        report["apiLatency"] = [
            "request": "GET /v1/readers", "clients": options.clients, "requests": options.latencyRequests, "keepAlive": true,
            "client": "mrtd-bench: one thread, poll(2) over the 50 Unix-socket connections, one request in flight per connection",
            "p50Ms": rounded(kept.percentile(0.5), 3), "p90Ms": rounded(kept.percentile(0.9), 3),
            "p99Ms": rounded(kept.percentile(0.99), 3), "maxMs": rounded(kept.percentile(1), 3),
            "requestsPerSecond": rounded(Double(kept.latenciesMs.count) / kept.seconds, 0),
            "daemonCpuUsPerRequest": rounded(keptCPU * 1000 / Double(kept.latenciesMs.count), 1),
            "newConnectionPerRequest": [
                "requests": options.newConnectionRequests, "p50Ms": rounded(fresh.percentile(0.5), 3),
                "p99Ms": rounded(fresh.percentile(0.99), 3), "maxMs": rounded(fresh.percentile(1), 3),
                "requestsPerSecond": rounded(Double(fresh.latenciesMs.count) / fresh.seconds, 0),
                "daemonCpuUsPerRequest": rounded(freshCPU * 1000 / Double(fresh.latenciesMs.count), 1),
            ] as [String: Any],
        ] as [String: Any]

        // SSE fan-out: the first round warms up and is left out.
        let samples = try EventFanOut.measure(
            socket: socket, subscribers: options.subscribers, rounds: options.fanOutRounds + 1,
            readRequest: httpRequest("POST", "/v1/reads?wait=true", body: passportRead)).dropFirst()
        let fanOut = samples.map(\.fanOutMs).sorted()
        let spread = samples.map(\.spreadMs).sorted()
        report["sseFanoutMs"] = rounded(fanOut[fanOut.count / 2], 3)
        report["sseFanout"] = [
            "subscribers": options.subscribers, "reads": fanOut.count,
            "medianMs": rounded(fanOut[fanOut.count / 2], 3), "maxMs": rounded(fanOut.last ?? 0, 3),
            "spreadMedianMs": rounded(spread[spread.count / 2], 3),
            "definition": "from the first sign at the client that the read finished (first subscriber's read.finished or the wait=true answer) to the 100th subscriber's read.finished; median over the reads",
        ] as [String: Any]

        let afterAll = try ProcessMemory(pid: daemon.pid)
        // procfs files report size 0, so they are read to EOF rather than with String(contentsOfFile:).
        let maps = DaemonProcess.contents(of: "/proc/\(daemon.pid)/maps")
        let load = DaemonProcess.contents(of: "/proc/loadavg").split(separator: " ").first.flatMap { Double($0) }
        let status = daemon.stop()
        report["daemonRun"] = [
            "executable": options.executable, "arguments": daemonArguments,
            "vmHWMMB": ProcessMemory.mib(afterAll.vmHWM), "rssAtEndMB": ProcessMemory.mib(afterAll.vmRSS),
            "exitStatusAfterSIGTERM": status.map { Int($0) } ?? -1,
            // Linked with --static-swift-stdlib (as README installs it) or against the toolchain's .so files.
            "swiftRuntime": maps.contains("libswiftCore.so") ? "shared" : "static",
            "sharedFoundation": maps.contains("libFoundation.so"),
            "loadAverage1mAtEnd": load ?? -1,
        ] as [String: Any]
        guard status == 0 else { throw DaemonBenchError("mrtdd did not exit cleanly after SIGTERM (status \(status.map(String.init) ?? "killed"))") }
        return report
    }

    /// One value of the Prometheus text at /metrics.
    static func metric(_ name: String, socket: String) throws -> Int? {
        var value: Int?
        let fd = try connectUnixSocket(socket)
        defer { close(fd) }
        try writeAll(fd, httpRequest("GET", "/metrics", close: true))
        var reader = HTTPResponseReader()
        let scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { scratch.deallocate() }
        while true {
            if let response = try reader.next() {
                for line in String(decoding: response.body, as: UTF8.self).split(separator: "\n") where line.hasPrefix(name + " ") {
                    value = Double(line.split(separator: " ").last ?? "").map { Int($0) }
                }
                return value
            }
            guard try readAvailable(fd, into: &reader, scratch: scratch) > 0 else { return nil }
        }
    }
}
