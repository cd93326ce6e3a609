import Foundation
import MRTDCrypto

/// CPU time of the whole process (all threads), in milliseconds. The harness runs one thing at a
/// time, so this is the CPU the measured code used, whichever cooperative threads ran it.
func processCPUMilliseconds() -> Double {
    processCPUMicroseconds() / 1000
}

/// Runs `body` `iterations` times after `warmup` runs and returns the median CPU milliseconds per run.
func medianCPUSync(iterations: Int, warmup: Int = 2, _ body: () throws -> Void) rethrows -> Double {
    for _ in 0..<warmup { try body() }
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let start = processCPUMilliseconds()
        try body()
        samples.append(processCPUMilliseconds() - start)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// The median of `values` (not empty).
func median(_ values: [Double]) -> Double {
    values.sorted()[values.count / 2]
}

func rounded(_ value: Double, _ places: Int = 3) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (value * scale).rounded() / scale
}

/// Wall-clock timing of the harness's sections, printed to stderr (the JSON goes to stdout).
enum Section {
    static func timed<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        let start = ContinuousClock.now
        defer { report(name, since: start) }
        return try body()
    }

    static func timedAsync<T>(_ name: String, _ body: () async throws -> T) async rethrows -> T {
        let start = ContinuousClock.now
        defer { report(name, since: start) }
        return try await body()
    }

    private static func report(_ name: String, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        FileHandle.standardError.write(Data("bench: \(name) took \(String(format: "%.1f", seconds)) s\n".utf8))
    }
}
