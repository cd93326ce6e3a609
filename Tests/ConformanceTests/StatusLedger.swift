import MRTDCore
import Synchronization
import Testing

/// The matrix scores what a user gets: the overall `status` of the default configuration. Every
/// read a conformance test makes must have its overall status asserted, exactly
/// (``Conformance/expectStatus(_:_:_:sourceLocation:)``), never only a sub-check or `!= failed`.
/// The suites carry the trait ``StatusAsserted``, which counts a test's reads and its status
/// assertions and records an issue when a read went unasserted.
final class StatusLedger: Sendable {
    @TaskLocal static var current: StatusLedger?

    private let counts = Mutex<(reads: Int, asserted: Int)>((0, 0))

    func read() { counts.withLock { $0.reads += 1 } }
    func asserted() { counts.withLock { $0.asserted += 1 } }
    var unasserted: Int { counts.withLock { $0.reads - $0.asserted } }
    var reads: Int { counts.withLock { $0.reads } }
}

/// Runs each test of a suite with a fresh ``StatusLedger`` and fails it when it read a document and
/// asserted fewer overall statuses than it made reads.
struct StatusAsserted: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let ledger = StatusLedger()
        try await StatusLedger.$current.withValue(ledger) { try await function() }
        if ledger.reads == 0 || ledger.unasserted > 0 {
            Issue.record("\(test.name): \(ledger.reads) read(s), \(ledger.unasserted) without an assertion of the overall status (Conformance.expectStatus)")
        }
    }
}

extension Trait where Self == StatusAsserted {
    /// Every read of the test has its overall status asserted.
    static var statusAsserted: Self { StatusAsserted() }
}

extension Conformance {
    /// Asserts the overall `status` of a read: what a user of the default configuration acts on.
    static func expectStatus(
        _ result: ReadResult, _ expected: ReadResult.Status, _ comment: Comment? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        StatusLedger.current?.asserted()
        let context = "\(result.status) (expected \(expected)) \(comment?.rawValue ?? "") \(result.error?.message ?? "") \(result.warnings)"
        #expect(result.status == expected, Comment(rawValue: context), sourceLocation: sourceLocation)
    }
}
