import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting

// scripts/bench builds this in release mode and prints one JSON object (docs/performance.md).
// Flags: --iterations=N (replays and floor samples per variant), --samples=DIR (../shared/samples),
// --replay=VARIANT (only replay that read N times, nothing printed: for a profiler),
// --store-full-reads=N (reads after the daemon's result store is full, default 10,000),
// --daemon-memory-only (only the daemon's memory figures and the binary sizes: a long soak),
// --alloc-counter=PATH (the allocation-counting shim scripts/bench builds: allocations per read),
// --allocations-only (with --alloc-counter: only allocations per read; --replay-harness=PATH and
// --mrtdd=PATH count another build's replays and daemon, to compare with).
let arguments = CommandLine.arguments.dropFirst()
func flag(_ name: String) -> String? {
    arguments.first(where: { $0.hasPrefix("--\(name)=") }).map { String($0.dropFirst(name.count + 3)) }
}
let iterations = max(1, flag("iterations").flatMap { Int($0) } ?? 50)
let started = ContinuousClock.now
if let name = flag("replay") {
    try await ReadBench.replayOnly(name, iterations: iterations)
    exit(0)
}

if arguments.contains("--allocations-only"), let library = flag("alloc-counter") {
    let counter = AllocationCounter(library: library)
    let variants = try AccessVariants.make().map(\.name).sorted()
    let terminal = try counter.terminal(variants: variants, harness: flag("replay-harness"))
    let daemonRead = try DaemonBench.allocationsPerRead(.init(arguments: arguments), counter: counter)
    let json = try JSONSerialization.data(withJSONObject: ["allocationsPerRead": ["terminal": terminal, "daemonRead": daemonRead]],
                                          options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: json, as: UTF8.self))
    exit(0)
}

if arguments.contains("--daemon-memory-only") {
    let memory = DaemonBench.runOrExit(.init(arguments: arguments))
    let json = try JSONSerialization.data(withJSONObject: memory, options: [.prettyPrinted, .sortedKeys])
    print(String(decoding: json, as: UTF8.self))
    exit(0)
}

var report: [String: Any] = [:]
var notes: [String: String] = [:]
let cpuModel = (try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8))?
    .split(separator: "\n").first(where: { $0.hasPrefix("model name") })?
    .split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
report["machine"] = ["cores": ProcessInfo.processInfo.activeProcessorCount,
                     "os": ProcessInfo.processInfo.operatingSystemVersionString,
                     "cpu": cpuModel ?? "unknown"]
report["iterations"] = iterations

// Reads: transport, link model, terminal CPU and its crypto floor (ReadBench, AccessVariants).
let reads = try await ReadBench.run(iterations: iterations)
report.merge(reads.report) { $1 }
let allocationCounter = flag("alloc-counter").map { AllocationCounter(library: $0) }
var allocations: [String: Any] = [:]
if let allocationCounter {
    allocations["terminal"] = try Section.timed("allocations per read (terminal replays)") {
        try allocationCounter.terminal(variants: reads.reads.keys.sorted())
    }
} else {
    notes["allocationsPerRead"] = "not measured: run through scripts/bench, which builds the counting shim (--alloc-counter=PATH)"
}

// Passive authentication of the standard read, and loading the sample master lists.
guard let standard = reads.reads["pace-gm-brainpoolP256r1"] else { throw BenchError.check("no standard read") }
report.merge(try Section.timed("passive authentication") { try PassiveAuthBench.run(files: standard.files, iterations: iterations * 2) }) { $1 }
let trustStore = Section.timed("trust store load") { TrustStoreBench.run(samples: flag("samples")) }
report["trustStoreLoadMs"] = trustStore.value
if let note = trustStore.note { notes["trustStoreLoadMs"] = note }

// The daemon as a separate release process (Daemon/DaemonBench.swift); --skip-daemon leaves it out.
if !arguments.contains("--skip-daemon") {
    report.merge(DaemonBench.runOrExit(.init(arguments: arguments)), uniquingKeysWith: { $1 })
}
if let daemonRead = report.removeValue(forKey: "daemonAllocationsPerRead") { allocations["daemonRead"] = daemonRead }
if !allocations.isEmpty { report["allocationsPerRead"] = allocations }

let total = ContinuousClock.now - started
FileHandle.standardError.write(Data("bench: measurements took \(total.components.seconds) s\n".utf8))
// The harness's own wall time, and the release build's when scripts/bench passes it.
let buildSeconds: Any = flag("build-seconds").flatMap { Int64($0) } ?? NSNull()
report["benchSeconds"] = ["run": total.components.seconds + 1, "build": buildSeconds]
report["targets"] = Targets.evaluate(report)
if !notes.isEmpty { report["notes"] = notes }

let json = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
print(String(decoding: json, as: UTF8.self))
// More allocations per read than Benchmarks/allocation-thresholds.json allows fails the bench.
if let target = (report["targets"] as? [String: Any])?["allocationsPerRead"] as? [String: Any], target["met"] as? Bool == false {
    FileHandle.standardError.write(Data("bench: allocations per read above Benchmarks/allocation-thresholds.json: \(target["exceeded"] ?? "")\n".utf8))
    exit(3)
}
