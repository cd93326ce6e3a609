import Foundation
import MRTDCrypto

/// CPU time of the whole process (all threads), in milliseconds. The harness runs one thing at a
/// time, so this is the CPU the measured code used, whichever cooperative threads ran it.
func processCPUMilliseconds() -> Double {
    processCPUMicroseconds() / 1000
}

/// Runs `body` `iterations` times after `warmup` runs and returns the median CPU milliseconds per run.
func medianCPU(iterations: Int, warmup: Int = 2, _ body: () async throws -> Void) async rethrows -> Double {
    for _ in 0..<warmup { try await body() }
    var samples: [Double] = []
    samples.reserveCapacity(iterations)
    for _ in 0..<iterations {
        let start = processCPUMilliseconds()
        try await body()
        samples.append(processCPUMilliseconds() - start)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// Synchronous variant for the OpenSSL floor measurements.
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

func rounded(_ value: Double, _ places: Int = 3) -> Double {
    var scale = 1.0
    for _ in 0..<places { scale *= 10 }
    return (value * scale).rounded() / scale
}
