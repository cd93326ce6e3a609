import Testing
@testable import MRTDDaemon

/// When the daemon trims its heap and releases its read-only mappings (MemoryTrimService, issue 14):
/// the schedule's rules tick by tick.
@Suite struct TrimScheduleTests {
    /// Runs `ticks` ticks with the same counts; the ticks (1-based) that trimmed and that released.
    static func run(_ schedule: inout TrimSchedule, ticks: Int, changes: (Int) -> Int, activeJobs: (Int) -> Int = { _ in 0 })
        -> (trims: [Int], releases: [Int]) {
        var trims: [Int] = [], releases: [Int] = []
        for tick in 1...ticks {
            let action = schedule.next(changes: changes(tick), activeJobs: activeJobs(tick))
            if action.trim { trims.append(tick) }
            if action.release { releases.append(tick) }
        }
        return (trims, releases)
    }

    @Test func anIdleDaemonTrimsAndReleasesOnceAfterStartUpThenNothing() {
        var schedule = TrimSchedule()
        let done = Self.run(&schedule, ticks: 60, changes: { _ in 0 })
        #expect(done.trims == [10])
        #expect(done.releases == [10])
    }

    @Test func aReadThenIdleIsTrimmedAndReleasedAtTheNextPeriodNotBefore() {
        var schedule = TrimSchedule()
        _ = Self.run(&schedule, ticks: 10, changes: { _ in 0 })
        // A read runs during ticks 11-12 and concludes (one change) at tick 13.
        let done = Self.run(&schedule, ticks: 30, changes: { $0 >= 3 ? 1 : 0 }, activeJobs: { $0 < 3 ? 1 : 0 })
        #expect(done.trims == [10])
        #expect(done.releases == [10])
    }

    @Test func sustainedLoadTrimsEvery500ChangesAndNeverReleasesUntilIdle() {
        var schedule = TrimSchedule()
        // 300 changes a tick (150 reads a second with the store full), one job always running,
        // for 40 ticks; then idle.
        let busy = Self.run(&schedule, ticks: 40, changes: { $0 * 300 }, activeJobs: { _ in 1 })
        // Every other tick crosses 500 since the last trim, whatever the periodic ticks did.
        #expect(busy.trims.count >= 19 && busy.trims.count <= 21, "\(busy.trims)")
        #expect(busy.releases.isEmpty)
        // Load over: changes stay at 12,000. The last load trim already counted them, yet the
        // daemon is idle and has run reads since its last release: the next periodic tick releases.
        let idle = Self.run(&schedule, ticks: 20, changes: { _ in 12_000 })
        #expect(idle.releases.count == 1, "\(idle)")
        #expect(idle.trims.count <= 1)
        #expect(schedule.releasedAt == 12_000)
    }

    @Test func aTrickleOfReadsBelowTheLoadThresholdIsTrimmedByThePeriod() {
        var schedule = TrimSchedule()
        // 10 changes a tick: never 500 in a period of 10 ticks, so only the periodic rule trims.
        let done = Self.run(&schedule, ticks: 50, changes: { $0 * 10 }, activeJobs: { _ in 1 })
        #expect(done.trims == [10, 20, 30, 40, 50])
        #expect(done.releases.isEmpty)
    }
}
