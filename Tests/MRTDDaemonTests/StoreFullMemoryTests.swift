import Foundation
import MRTDCore
import Testing
@testable import MRTDDaemon
import HTTPTypes
import MRTDClient

/// Issue 14, "flat memory": once the result store is full, a read must leave nothing behind. The
/// bench measures it over 10,000 release reads (`storeFullMemory`); this is the bounded soak of the
/// suite, against `mrtdd --simulate` as its own process (debug build, two readers read in parallel).
///
/// The daemon runs with `read-timeout = 10m`: per-read state that lives until the job's deadline
/// (the per-job timer task this issue removed: a cancelled `clock.sleep` keeps its timer until the
/// original deadline) then stays for the whole test and shows as steady growth, instead of
/// levelling off after 60 s. Measured with the per-job timers: RssAnon +1.1 KB per read.
@Suite(.serialized) struct StoreFullMemoryTests {
    /// Results kept at once: small, so the store is full early in the warm-up.
    static let maxResults = 50
    /// Reads before the measurement: the store fills after 50, then the heap settles.
    static let warmUpReads = 600
    /// Measured reads: eight windows of 300.
    static let measuredReads = 2400
    static let windows = 8
    /// Growth allowed between the first four windows and the last four (1,200 reads apart), on the
    /// mean of their RssAnon floors: 384 KiB, about 0.3 KB per read. A leak raises every floor (the
    /// per-job timers this issue removed: 1.1 KB per read, 988 KiB over 1,200 reads); the heap's
    /// settling does not. A floor is the lowest RssAnon of a window, sampled every 10 ms: the daemon
    /// trims its heap every 500 changes under load and RssAnon rises between trims as free chunks are
    /// reused. Over 6,000 reads (20 windows, debug, `max-results=50`) the floors stayed in a band
    /// 300-400 KiB wide with no trend, on one malloc arena (5,960-6,376 KiB) as on two (6,000-6,300).
    /// Until the fourth round the test compared the sample after the last of four batches of 300
    /// reads with the one after warm-up, against 256 KiB; on one arena (as shipped since) that failed in CI at 392 and,
    /// with floors, at 564 KiB: the two ends of the band.
    static let rssAnonBound = 384 * 1024

    /// The lowest RssAnon of `pid` while `work` runs, sampled every 10 ms, and what `work` returns.
    static func floor<T: Sendable>(of pid: Int32, during work: () async throws -> T) async throws -> (T, Int) {
        let sampler = Task.detached { () -> Int in
            var lowest = Int.max
            while !Task.isCancelled {
                if let now = rssAnon(of: pid) { lowest = min(lowest, now) }
                try? await Task.sleep(for: .milliseconds(10))
            }
            return lowest
        }
        let value: T
        do {
            value = try await work()
        } catch {
            sampler.cancel()
            throw error
        }
        sampler.cancel()
        let lowest = min(await sampler.value, rssAnon(of: pid) ?? .max)
        guard lowest < .max else { throw TestFailure("cannot read /proc/\(pid)/status") }
        return (value, lowest)
    }

    /// `RssAnon` of `pid` (/proc/PID/status), in bytes: the daemon's own memory, without the
    /// mapped, shared code of the binary and its libraries.
    static func rssAnon(of pid: Int32) -> Int? {
        ProcStatus.kiB("RssAnon", of: pid).map { $0 * 1024 }
    }

    @Test func withTheResultStoreFullTheDaemonProcessesOwnMemoryDoesNotGrowWithReads() async throws {
        // No MALLOC_ARENA_MAX here: mrtdd runs on one glibc arena of its own accord (a second arena was
        // a one-off step of about 1 MB of RssAnon; ReleaseStoreFullTests), so this runs as shipped.
        let daemon = try await SimulatedDaemonProcess(
            executable: try DaemonProcessTests.executable("mrtdd"),
            settings: "max-results = \(Self.maxResults)\nread-timeout = 10m\n", mallocArenaMax: nil)
        defer { daemon.stop() }
        let pid = daemon.pid

        // DG1 only: a short read (no 20 KB face, no CA/AA), so that many jobs fit in the time, and
        // small results, so that the heap's own noise stays small next to what a job might leave.
        // What a job leaves behind does not depend on what it read; the bench's reads are full ones.
        let requests: [ReadJobRequest] = [
            .init(reader: "Virtual Reader 0", access: Specimens.access, dataGroups: [1]),
            .init(reader: "Virtual Reader 1", access: .init(can: "123456"), dataGroups: [1]),
        ]
        // Two clients, one per reader, `count` reads each: both readers busy all the time. What
        // did not end `done`, by state and error.
        func reads(_ count: Int) async throws -> [String: Int] {
            try await daemon.reads(requests, clients: requests.count, each: count).filter { !$0.key.hasPrefix("done ") }
        }
        let clock = ContinuousClock()
        let start = clock.now
        var failures = try await reads(Self.warmUpReads / 2)
        var floors: [Int] = []
        for _ in 0..<Self.windows {
            let (batch, lowest) = try await Self.floor(of: pid) { try await reads(Self.measuredReads / Self.windows / 2) }
            failures.merge(batch, uniquingKeysWith: +)
            floors.append(lowest)
        }
        let elapsed = clock.now - start
        let metrics = String(decoding: try await daemon.client.send(.get, "/metrics").body, as: UTF8.self)
        let stats = metrics.split(separator: "\n").first { $0.hasPrefix("mrtdd_results_retained ") }
            .flatMap { $0.split(separator: " ").last }.flatMap { Double($0) }
        let half = Self.windows / 2
        let growth = floors[half...].reduce(0, +) / half - floors[..<half].reduce(0, +) / half
        let readsApart = Self.measuredReads / 2

        #expect(failures.isEmpty, "\(failures)")
        #expect(stats == Double(Self.maxResults), "the result store should be full (max-results \(Self.maxResults)): \(String(describing: stats))")
        #expect(growth < Self.rssAnonBound, """
            mrtdd's RssAnon floors grew \(growth / 1024) KiB over \(readsApart) reads with the store full \
            (bound \(Self.rssAnonBound / 1024) KiB): \(floors.map { $0 / 1024 }) KiB
            """)
        print("""
            FIGURES store-full soak against the mrtdd process: \(Self.warmUpReads) warm-up + \(Self.measuredReads) reads in \(elapsed); \
            lowest RssAnon of each \(Self.measuredReads / Self.windows) reads \(floors.map { $0 / 1024 }) KiB \
            (growth of the mean of the last \(half) over the first \(half): \(growth / 1024) KiB, \
            \(String(format: "%.0f", Double(growth) / Double(readsApart))) B per read, bound \(Self.rssAnonBound / 1024) KiB)
            """)
        daemon.process.terminate()
        #expect(try await DaemonProcessTests.waitForExit(daemon.process) == 0)
    }

    /// The jobs' timeouts share one timer task: a job created later with a shorter timeout still
    /// ends at its own deadline (the timer is moved earlier), the longer one keeps waiting, and
    /// once no job is left to time out the timer is gone.
    @Test func aLaterJobWithAShorterTimeoutTimesOutFirstAndTheTimerIsGoneWithTheJobs() async throws {
        let daemon = try await TestDaemon.start()
        let long = try await daemon.client.createRead(.init(access: Specimens.access, timeoutSeconds: 30))
        let clock = ContinuousClock()
        let start = clock.now
        let short = try await daemon.client.createRead(.init(access: Specimens.access, timeoutSeconds: 0.3))
        let shortView = try await daemon.waitFinished(short.id)
        let elapsed = clock.now - start
        #expect(shortView.state == .failed && shortView.error?.error == .timeout, "\(String(describing: shortView.error))")
        #expect(elapsed >= .milliseconds(300) && elapsed < .seconds(5), "the 0.3 s job ended after \(elapsed)")
        #expect(try await daemon.client.job(long.id).state == .waiting, "the 30 s job must still wait")
        #expect(await daemon.daemon.scheduler.deadlineTimerPending, "the 30 s job still needs the timer")
        _ = try await daemon.client.cancel(long.id)
        // The timer left without jobs fires at the 30 s deadline at the latest; it is not waited for
        // here: what matters is that no job is left to expire and there is one timer, not one per job.
        let stats = await daemon.daemon.scheduler.stats()
        #expect(stats.activeJobs == 0, "\(stats)")
        try await daemon.stop()
        #expect(await daemon.daemon.scheduler.deadlineTimerPending == false, "shutdown cancels the timer")
    }
}

/// `mrtdd --simulate --sim-readers 2` as its own process on a private socket, answering, with
/// `settings` (configuration lines) after `log-level = notice`, its stderr discarded, and
/// MALLOC_ARENA_MAX set to `mallocArenaMax` (nil: unset, mrtdd's own choice).
final class SimulatedDaemonProcess {
    let process = Process()
    let directory: URL
    let client: DaemonClient
    var pid: Int32 { process.processIdentifier }

    init(executable: String, settings: String, mallocArenaMax: String?) async throws {
        directory = try DaemonProcessTests.temporaryDirectory()
        let socket = directory.appendingPathComponent("mrtdd.sock").path
        let config = directory.appendingPathComponent("mrtdd.conf")
        try ("log-level = notice\nsocket-group = \n" + settings).write(to: config, atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = ["--config", config.path, "--simulate", "--sim-readers", "2", "--socket", socket]
        process.standardError = FileHandle.nullDevice
        var environment = ProcessInfo.processInfo.environment
        environment["MALLOC_ARENA_MAX"] = mallocArenaMax
        process.environment = environment
        client = DaemonClient(socketPath: socket)
        try process.run()
        do {
            try await DaemonProcessTests.waitForSocket(socket, client: client)
        } catch {
            stop()
            throw error
        }
    }

    /// `clients` clients at once, client `i` sending `requests[i % requests.count]` `each` times with
    /// `wait=true`: how the reads ended, counted by state and result status (or error code).
    func reads(_ requests: [ReadJobRequest], clients: Int, each: Int) async throws -> [String: Int] {
        let client = self.client
        return try await withThrowingTaskGroup(of: [String: Int].self) { group in
            for index in 0..<clients {
                let request = requests[index % requests.count]
                group.addTask {
                    var outcomes: [String: Int] = [:]
                    for _ in 0..<each {
                        let view = try await client.createRead(request, wait: true)
                        outcomes["\(view.state.rawValue) \(view.result?.status.rawValue ?? view.error?.error.rawValue ?? "-")", default: 0] += 1
                    }
                    return outcomes
                }
            }
            return try await group.reduce(into: [:]) { all, outcomes in all.merge(outcomes, uniquingKeysWith: +) }
        }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }
}
