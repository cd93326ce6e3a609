import Testing
@testable import MRTDDaemon

/// When the daemon trims its heap (MemoryTrimService): the schedule's rule, period by period.
@Suite struct TrimScheduleTests {
    /// Runs `periods` periods with the given counts; the periods (1-based) that trimmed.
    static func run(_ schedule: inout TrimSchedule, periods: Int, changes: (Int) -> Int) -> [Int] {
        (1...periods).filter { schedule.next(changes: changes($0)) }
    }

    @Test func anIdleDaemonTrimsOnceAfterStartUpThenNothing() {
        var schedule = TrimSchedule()
        #expect(Self.run(&schedule, periods: 6, changes: { _ in 0 }) == [1])
    }

    @Test func aReadThenIdleIsTrimmedAtTheNextPeriodOnly() {
        var schedule = TrimSchedule()
        _ = Self.run(&schedule, periods: 1, changes: { _ in 0 })
        // A read concludes (one change) during the second period.
        #expect(Self.run(&schedule, periods: 3, changes: { _ in 1 }) == [1])
        #expect(schedule.trimmedAt == 1)
    }

    @Test func readsGoingOnAreTrimmedOncePerPeriod() {
        var schedule = TrimSchedule()
        #expect(Self.run(&schedule, periods: 5, changes: { $0 * 100 }) == [1, 2, 3, 4, 5])
    }
}
