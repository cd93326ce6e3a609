import Foundation

/// Allocations per read (docs/performance.md, "Memory yardsticks"): heap allocations counted by the
/// LD_PRELOAD shim of Benchmarks/AllocationCounter, which scripts/bench compiles and passes as
/// `--alloc-counter=PATH`. Two figures, each compared with Benchmarks/allocation-thresholds.json:
///
/// - `terminal`: the terminal side of each recorded read (the same replay as `cpuMsPerRead`), from
///   two child runs of this harness (`--replay=VARIANT`) with different replay counts, so that what
///   both runs do alike (start-up, recording the read against the virtual chip) cancels out. The
///   replay is deterministic: the figure is exact.
/// - `daemonRead`: one `POST /v1/reads?wait=true` through a release `mrtdd --simulate` of its own,
///   virtual chip included (it runs in the daemon's process), over 1,000 reads after 200 warm-up
///   ones; it moves by a few allocations from run to run (timers, trims, connection handling).
struct AllocationCounter {
    /// The shim, a shared library.
    let library: String

    /// The counters a process started with `environment(file)` has written: allocations and frees.
    static func read(_ file: String) -> (allocations: Int, frees: Int) {
        guard let data = FileManager.default.contents(atPath: file), data.count >= 16 else { return (0, 0) }
        let words = data.withUnsafeBytes { raw in (0..<2).map { Int(UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: $0 * 8, as: UInt64.self))) } }
        return (words[0], words[1])
    }

    /// A fresh counter file (the shim creates it when the process starts).
    static func freshFile(_ label: String) -> String {
        let file = NSTemporaryDirectory() + "mrtd-bench-allocations-\(getpid())-\(label)"
        unlink(file)
        return file
    }

    /// The environment entries that load the shim and point it at `file`.
    func environment(_ file: String) -> [String] { ["LD_PRELOAD=\(library)", "MRTD_ALLOC_COUNTER=\(file)"] }

    /// Allocations of one terminal-side replay of each variant, replayed by `harness` (by default
    /// this executable; another build of mrtd-bench to compare with).
    func terminal(variants: [String], harness: String? = nil) throws -> [String: Int] {
        let own = harness ?? (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        let few = 5, many = 25
        var perRead: [String: Int] = [:]
        for name in variants {
            var counts: [Int] = []
            for iterations in [few, many] {
                let file = Self.freshFile("\(name)-\(iterations)")
                defer { unlink(file) }
                let process = Process()
                process.executableURL = URL(fileURLWithPath: own)
                process.arguments = ["--replay=\(name)", "--iterations=\(iterations)"]
                var environment = ProcessInfo.processInfo.environment
                for entry in self.environment(file) {
                    let parts = entry.split(separator: "=", maxSplits: 1)
                    environment[String(parts[0])] = String(parts[1])
                }
                process.environment = environment
                try process.run()
                process.waitUntilExit()
                guard process.terminationStatus == 0 else { throw BenchError.check("replay of \(name) under the allocation counter exited with \(process.terminationStatus)") }
                counts.append(Self.read(file).allocations)
            }
            perRead[name] = Int((Double(counts[1] - counts[0]) / Double(many - few)).rounded())
        }
        return perRead
    }

    /// The checked-in thresholds: `terminal` by variant, and `daemonRead`.
    struct Thresholds: Decodable {
        var terminal: [String: Int]
        var daemonRead: Int

        /// Benchmarks/allocation-thresholds.json (mrtd-bench runs from Benchmarks/.build/<triple>/release).
        static var path: String {
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
                .appendingPathComponent("allocation-thresholds.json").path
        }

        static func load() throws -> Thresholds {
            guard let data = FileManager.default.contents(atPath: path) else { throw BenchError.check("no \(path)") }
            return try JSONDecoder().decode(Thresholds.self, from: data)
        }
    }
}
