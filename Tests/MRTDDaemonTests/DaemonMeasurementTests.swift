import Foundation
import Testing
@testable import MRTDDaemon
import MRTDCore
import HTTPTypes
import Logging
import MRTDTesting
import MRTDPlatform
import MRTDClient
import MRTDSimulation

/// Numbers, printed (scripts/demo measures the daemon as a separate process).
@Suite(.serialized) struct DaemonMeasurementTests {
    /// Timing under whatever else the machine runs is noise, so only on request (MRTDD_MEASURE=1).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["MRTDD_MEASURE"] != nil, "set MRTDD_MEASURE=1 to measure"))
    func readersLatencyWithFiftyConcurrentClients() async throws {
        let daemon = try await TestDaemon.start(readers: ["R1", "R2"], logLevel: .info)
        let client = daemon.client
        let clock = ContinuousClock()
        let samples = try await withThrowingTaskGroup(of: [Double].self) { group in
            for _ in 0..<50 {
                group.addTask {
                    var mine: [Double] = []
                    for _ in 0..<10 {
                        let start = clock.now
                        let answer = try await client.send(.get, "/v1/readers")
                        guard answer.status == 200 else { throw TestFailure("status \(answer.status)") }
                        mine.append((clock.now - start).seconds * 1000)
                    }
                    return mine
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }.sorted()
        }
        #expect(samples.count == 500)
        let p50 = samples[samples.count / 2], p99 = samples[samples.count * 99 / 100]
        print("MEASURE GET /v1/readers, 50 concurrent clients, new connection per request, in-process: p50 \(String(format: "%.2f", p50)) ms, p99 \(String(format: "%.2f", p99)) ms")
        try await daemon.stop()
    }

    @Test func eventFanOutToOneHundredSubscribers() async throws {
        let daemon = try await TestDaemon.start(readers: ["R1"], logLevel: .info) { $0.maxEventSubscribers = 128 }
        let client = daemon.client
        let opened = Locked(0)
        let clock = ContinuousClock()
        let finishedAt = Locked<[ContinuousClock.Instant]>([])
        var followers: [Task<Void, any Error>] = []
        for _ in 0..<100 {
            let stream = client.events { opened.withValue { $0 += 1 } }
            followers.append(Task {
                for try await event in stream where event.type == "read.finished" {
                    finishedAt.withValue { $0.append(clock.now) }
                    return
                }
            })
        }
        try await waitUntil("100 event streams open") { opened.current >= 100 }
        #expect(opened.current == 100)
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await client.createRead(.init(access: Specimens.access), wait: true)
        let published = clock.now
        for follower in followers { try await follower.value }
        let times = finishedAt.current
        #expect(times.count == 100)
        let last = try #require(times.max())
        let lag = (last - published).seconds * 1000
        print("MEASURE read.finished reached all 100 SSE subscribers " + (lag <= 0
            ? "before the waiting client had its answer"
            : String(format: "%.2f ms after the waiting client had its answer", lag)) + " (read \(done.result?.durationMs ?? 0) ms)")
        try await daemon.stop()
    }
}
