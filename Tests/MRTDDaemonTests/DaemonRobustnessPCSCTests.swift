import Foundation
import MRTDCore
import MRTDReaders
import MRTDTesting
import Testing
@testable import MRTDDaemon
import Logging
import MRTDSimulation
import MRTDClient

/// The daemon (in-process, PC/SC backend) against a private pcscd with vsmartcard's vpcd reader,
/// whose card is the virtual chip: pcscd killed and restarted mid-read. Serialized; one pcscd per
/// machine. Skips loudly without pcscd/vpcd, and fails when `CI` is set.
@Suite(.serialized) struct DaemonRobustnessPCSCTests {
    static let reader = PCSCDaemon.readerName
    /// Error codes a read may end with when pcscd dies under it (no other is acceptable).
    static let linkErrors: Set<String> = ["readerUnavailable", "readerServiceFailure", "cardRemoved", "chipTimeout", "timeout"]

    static func unavailable(_ why: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if !Prerequisite.skip("PC/SC daemon robustness test: \(why)") {
            Issue.record("PC/SC daemon robustness test cannot run: \(why)", sourceLocation: sourceLocation)
        }
    }

    /// A private pcscd and an in-process daemon on it, both stopped afterwards (pcscd's log is
    /// printed when `body` throws).
    static func withPCSCDaemon(
        sourceLocation: SourceLocation = #_sourceLocation, _ body: (PCSCDaemon, TestDaemon) async throws -> Void
    ) async throws {
        let pcscd: PCSCDaemon
        do {
            pcscd = try PCSCDaemon()
            try await pcscd.start()
        } catch let why as PCSCDaemon.Unavailable {
            unavailable(why.description, sourceLocation: sourceLocation)
            return
        }
        let backend = PCSCBackend(options: PCSCOptions(retryDelay: .milliseconds(50), maxRetryDelay: .milliseconds(400)))
        let daemon = try await TestDaemon.start(backends: [backend], logLevel: .debug)
        do {
            try await body(pcscd, daemon)
        } catch {
            print("pcscd log:\n\(pcscd.logTail())\nmrtdd log:\n\(daemon.logs.text.suffix(3000))")
            try? await daemon.stop()
            await pcscd.stop()
            throw error
        }
        try await daemon.stop()
        await pcscd.stop()
    }

    /// Waits until `GET /v1/readers` shows the vpcd reader with (or without) a card.
    static func waitForReader(_ daemon: TestDaemon, cardPresent: Bool, timeout: Duration = .seconds(20)) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let readers = (try? await daemon.client.readers()) ?? []
            if readers.contains(where: { $0.name == reader && $0.cardPresent == cardPresent }) { return }
            try await Task.sleep(for: .milliseconds(25))
        }
        throw TestFailure("the daemon never showed \(reader) with cardPresent=\(cardPresent)")
    }

    static func card() throws -> VPCDCard {
        VPCDCard(chip: VirtualChip(configuration: try Specimens.passport()))
    }

    @Test func pcscdKilledAndRestartedMidReadNeverGivesWrongDataAndTheNextReadSucceeds() async throws {
        try await Self.withPCSCDaemon { pcscd, daemon in
            let first = try Self.card()
            try await first.insert()
            try await Self.waitForReader(daemon, cardPresent: true)
            let clean = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
            #expect(clean.state == .done && clean.result?.status == .valid, "\(String(describing: clean.error))")
            let face = try await daemon.client.face(clean.id).bytes
            let apdus = try #require(clean.result?.transport.apdus)
            await first.remove()
            try await Self.waitForReader(daemon, cardPresent: false)

            // The chip holds an exchange in the middle of the read until pcscd is dead.
            let held = try Self.card()
            try await held.insert(holdAt: apdus / 2)
            try await Self.waitForReader(daemon, cardPresent: true)
            let job = try await daemon.client.createRead(.init(access: Specimens.access))
            let deadline = ContinuousClock.now + .seconds(15)
            while !held.isHolding {
                guard ContinuousClock.now < deadline else { throw TestFailure("the read never reached exchange \(apdus / 2)") }
                try await Task.sleep(for: .milliseconds(2))
            }
            await pcscd.kill()
            held.releaseHold()
            // pcscd back 300 ms later; vpcd's card went with it and is presented again.
            try await Task.sleep(for: .milliseconds(300))
            try await pcscd.start()
            let again = try Self.card()
            try await again.insert()

            let view = try await daemon.waitFinished(job.id, timeout: .seconds(45))
            switch (view.state, view.result?.status) {
            case (.done, .valid?):
                #expect(try await daemon.client.face(view.id).bytes == face, "valid, but the face differs from the card's")
                #expect(view.result?.transport.recoveries.isEmpty == false, "a read across a pcscd restart reports its recovery")
                #expect(view.result?.checks.passiveAuthentication.dataGroupHashes?.values.allSatisfy { $0 == "valid" } == true)
            case (.failed, _):
                #expect(Self.linkErrors.contains(view.error?.error.rawValue ?? "-"), "\(String(describing: view.error))")
            default:
                Issue.record("pcscd restart mid-read ended \(view.state) \(String(describing: view.result?.status)): \(String(describing: view.error))")
            }
            print("FIGURES daemon, pcscd killed at exchange \(apdus / 2) and restarted: job \(view.state) "
                + "\(view.result?.status.rawValue ?? view.error?.error.rawValue ?? "-"), recoveries \(view.result?.transport.recoveries.map(\.kind) ?? [])")

            // The reader monitor recovered: the reader is back with its card, and the next read succeeds.
            try await Self.waitForReader(daemon, cardPresent: true)
            let next = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
            #expect(next.state == .done && next.result?.status == .valid, "\(String(describing: next.error))")
            #expect(try await daemon.client.face(next.id).bytes == face)
            let stats = await daemon.daemon.scheduler.stats()
            #expect(stats.activeJobs == 0 && stats.busyReaders == 0, "\(stats)")
            await again.remove()
        }
    }

    /// The card pulled through vpcd at a sample of exchanges of a daemon read, and presented again
    /// 2 s later (after pcscd has seen it gone): each job ends `valid` with the same face after a
    /// link recovery, and leaves no job or busy reader behind. Presented again after only 200 ms,
    /// pcscd may never see the card gone (vpcd's presence is polled): the old handle reaches the
    /// fresh chip, which the read meets as a length or secure-messaging fault; it must still end
    /// `valid` with the same face.
    @Test func aCardPulledThroughVpcdAtSampledExchangesAndPresentedAgainEndsValid() async throws {
        try await Self.withPCSCDaemon { _, daemon in
            let first = try Self.card()
            try await first.insert()
            try await Self.waitForReader(daemon, cardPresent: true)
            let clean = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
            #expect(clean.result?.status == .valid)
            let face = try await daemon.client.face(clean.id).bytes
            let apdus = try #require(clean.result?.transport.apdus)
            await first.remove()
            try await Self.waitForReader(daemon, cardPresent: false)
            var slowest = Duration.zero
            var fastSwaps: [String] = []
            let cases = Set([0, 2, apdus / 2, apdus - 1]).sorted().map { ($0, Duration.seconds(2)) }
                + [(0, Duration.milliseconds(200)), (apdus - 1, Duration.milliseconds(200))]
            for (index, delay) in cases {
                let pulled = try Self.card()
                try await pulled.insert(removeAfter: index)
                try await Self.waitForReader(daemon, cardPresent: true)
                let again = try Self.card()
                let presenter = Task {
                    await pulled.waitUntilRemoved()
                    try await Task.sleep(for: delay)
                    try await again.insert()
                }
                let start = ContinuousClock.now
                let job = try await daemon.client.createRead(.init(access: Specimens.access))
                let view = try await daemon.waitFinished(job.id, timeout: .seconds(30))
                slowest = max(slowest, ContinuousClock.now - start)
                try await presenter.value
                #expect(pulled.apdusServed == index, "the card was pulled at exchange \(index)")
                #expect(view.state == .done && view.result?.status == .valid, "exchange \(index): \(String(describing: view.error))")
                if view.state == .done {
                    #expect(try await daemon.client.face(view.id).bytes == face, "exchange \(index): face differs")
                }
                let kinds = view.result?.transport.recoveries.map(\.kind) ?? []
                #expect(!kinds.isEmpty, "exchange \(index): no recovery reported")
                if delay >= .seconds(1) {
                    // pcscd reports a card pulled mid-command as removed or, at times, as SCARD_F_COMM_ERROR.
                    #expect(kinds.first.map { ["cardRemoved", "readerServiceFailure", "readerUnavailable"].contains($0) } == true,
                            "exchange \(index): \(kinds)")
                } else {
                    fastSwaps.append("\(index): \(kinds)")
                }
                let stats = await daemon.daemon.scheduler.stats()
                #expect(stats.activeJobs == 0 && stats.busyReaders == 0, "exchange \(index): \(stats)")
                await again.remove()
                try await Self.waitForReader(daemon, cardPresent: false)
            }
            print("FIGURES daemon over pcscd+vpcd, card pulled at sampled exchanges of \(apdus), presented again after 2 s "
                + "or 200 ms: slowest read \(slowest); recoveries of the 200 ms swaps \(fastSwaps)")
        }
    }

    /// pcscd killed mid-read and only restarted after the job gave up: a specific error, in bounded
    /// time, and the next read after pcscd is back succeeds.
    @Test func pcscdDeadForTheWholeRecoveryEndsTheJobWithASpecificError() async throws {
        try await Self.withPCSCDaemon { pcscd, daemon in
            let held = try Self.card()
            try await held.insert(holdAt: 5)
            try await Self.waitForReader(daemon, cardPresent: true)
            let job = try await daemon.client.createRead(.init(access: Specimens.access, timeoutSeconds: 6))
            let deadline = ContinuousClock.now + .seconds(15)
            while !held.isHolding {
                guard ContinuousClock.now < deadline else { throw TestFailure("the read never reached exchange 5") }
                try await Task.sleep(for: .milliseconds(2))
            }
            await pcscd.kill()
            held.releaseHold()
            let view = try await daemon.waitFinished(job.id, timeout: .seconds(15))
            #expect(view.state == .failed)
            #expect(Self.linkErrors.contains(view.error?.error.rawValue ?? "-"), "\(String(describing: view.error))")
            #expect(view.result?.document == nil)
            print("FIGURES daemon, pcscd dead through the recovery: job \(view.state) \(view.error?.error.rawValue ?? "-")")

            try await pcscd.start()
            let card = try Self.card()
            try await card.insert()
            try await Self.waitForReader(daemon, cardPresent: true)
            let next = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
            #expect(next.state == .done && next.result?.status == .valid, "\(String(describing: next.error))")
            await card.remove()
        }
    }
}
