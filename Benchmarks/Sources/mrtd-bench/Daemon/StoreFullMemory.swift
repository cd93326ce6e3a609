import Foundation

/// The daemon's memory with its result store full: 1,000 reads fill the store (`max-results=1000`),
/// then `reads` more run in steps of 1,000 with the daemon's memory sampled after each step. With
/// the store full, everything a read keeps by design is dropped when a later read's result pushes
/// it out, so any growth is memory that outlives its read.
struct StoreFullMemory {
    /// Memory after start (one request answered).
    var idle: ProcessMemory
    /// After the first 1,000 reads: the store is full from here on.
    var afterFill: ProcessMemory
    /// After each further 1,000 reads.
    var steps: [ProcessMemory]
    /// Reads per second of each step (the fill first).
    var readsPerSecond: [Double]
    var readLatencyP50Ms: [Double]
    static let step = 1000

    /// Runs the fill and `reads` more reads (rounded up to whole steps) on the daemon behind `socket`.
    static func measure(socket: String, pid: pid_t, reads: Int, clients: Int, requests: [[UInt8]]) throws -> StoreFullMemory {
        let idle = try ProcessMemory(pid: pid)
        var runs: [LoadResult] = []
        func batch() throws {
            let run = try HTTPLoad.run(socket: socket, requests: requests, clients: clients, count: step, keepAlive: true)
            guard run.statuses[200] == step else { throw DaemonBenchError("reads answered \(run.statuses), expected \(step) × 200") }
            runs.append(run)
        }
        try batch()
        let afterFill = try ProcessMemory(pid: pid)
        var steps: [ProcessMemory] = []
        let count = max(2, (reads + step - 1) / step)
        let started = monotonicMilliseconds()
        for index in 0..<count {
            try batch()
            steps.append(try ProcessMemory(pid: pid))
            if count > 20, (index + 1) % 10 == 0 {
                let seconds = Int((monotonicMilliseconds() - started) / 1000)
                FileHandle.standardError.write(Data(
                    "bench: \((index + 1) * step) reads with the store full, RssAnon \(ProcessMemory.mib(steps.last!.rssAnon)) MB, \(seconds) s\n".utf8))
            }
        }
        return StoreFullMemory(
            idle: idle, afterFill: afterFill, steps: steps,
            readsPerSecond: runs.map { rounded(Double(step) / $0.seconds, 1) },
            readLatencyP50Ms: runs.map { rounded($0.percentile(0.5), 2) })
    }

    var reads: Int { steps.count * Self.step }

    /// RssAnon growth from the full store to the last step, MiB: the figure that says "no growth".
    var rssAnonGrowthMB: Double { ProcessMemory.mib(steps.last!.rssAnon - afterFill.rssAnon) }

    /// RssAnon growth from the first step (1,000 reads with the store full: the heap has settled
    /// around the full store) to the last, MiB.
    var rssAnonGrowthAfterSettlingMB: Double { ProcessMemory.mib(steps.last!.rssAnon - steps[0].rssAnon) }

    /// Least-squares slope of RssAnon over the steps, bytes per read: a leak is a steady slope,
    /// the allocator settling is not.
    var rssAnonBytesPerRead: Double {
        let points = [afterFill] + steps
        let xs = points.indices.map { Double($0 * Self.step) }
        let ys = points.map { Double($0.rssAnon) * 1024 }
        let mx = xs.reduce(0, +) / Double(xs.count), my = ys.reduce(0, +) / Double(ys.count)
        let sxy = zip(xs, ys).reduce(0) { $0 + ($1.0 - mx) * ($1.1 - my) }
        let sxx = xs.reduce(0) { $0 + ($1 - mx) * ($1 - mx) }
        return sxx == 0 ? 0 : sxy / sxx
    }

    var json: [String: Any] {
        [
            "readsWithStoreFull": reads, "maxResults": 1000,
            "rssAnonGrowthMB": rssAnonGrowthMB,
            "rssAnonGrowthAfterSettlingMB": rssAnonGrowthAfterSettlingMB,
            "vmRSSGrowthMB": ProcessMemory.mib(steps.last!.vmRSS - afterFill.vmRSS),
            "rssAnonBytesPerRead": rounded(rssAnonBytesPerRead, 1),
            "rssAnonPerStepMB": steps.map { ProcessMemory.mib($0.rssAnon) },
            "rssAnonGrowthPer1000ReadsMB": zip([afterFill] + steps, steps).map { ProcessMemory.mib($1.rssAnon - $0.rssAnon) },
            "vmRSSPerStepMB": steps.map { ProcessMemory.mib($0.vmRSS) },
            "afterFill": afterFill.json, "atEnd": steps.last!.json,
            "definition": "the first 1,000 reads fill the result store (max-results=1000); then RssAnon after every further 1,000 reads; growth = last step minus the full store",
        ]
    }
}

/// Sizes of the executables scripts/bench built next to mrtd-bench: as linked, and stripped of
/// symbols (`strip -o` into a temporary file: what `scripts/package` ships).
enum BinarySizes {
    static func measure(directory: String, names: [String]) -> [String: Any] {
        var out: [String: Any] = [:]
        for name in names {
            let path = directory + "/" + name
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  let size = attributes[.size] as? Int else {
                out[name] = NSNull()
                continue
            }
            var entry: [String: Any] = ["path": path, "mb": mib(size)]
            let stripped = NSTemporaryDirectory() + "mrtd-bench-stripped-\(getpid())-\(name)"
            let strip = Process()
            strip.executableURL = URL(fileURLWithPath: "/usr/bin/strip")
            strip.arguments = ["-o", stripped, path]
            if (try? strip.run()) != nil {
                strip.waitUntilExit()
                if strip.terminationStatus == 0, let size = (try? FileManager.default.attributesOfItem(atPath: stripped))?[.size] as? Int {
                    entry["strippedMB"] = mib(size)
                }
                try? FileManager.default.removeItem(atPath: stripped)
            }
            out[name] = entry
        }
        return out
    }

    static func mib(_ bytes: Int) -> Double { (Double(bytes) / 1_048_576 * 10).rounded() / 10 }
}
