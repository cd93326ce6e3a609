import Foundation
import MRTDClient
import MRTDCore
import Testing
@testable import MRTDDaemon

/// The scheduler answers domain snapshots; the API layer alone makes the wire views of them: the
/// job's path and its times as RFC 3339 strings in UTC with milliseconds (issue 30).
@Suite struct APIViewsTests {
    @Test func aJobSnapshotBecomesItsViewWithPathAndDateStrings() {
        let created = Date(timeIntervalSince1970: 1_795_270_560.5)
        let snapshot = ReadJobSnapshot(
            id: "0f1e2d3c-aaaa-bbbb-cccc-001122334455", state: .failed, reader: "R1", created: created,
            started: created.addingTimeInterval(1), finished: created.addingTimeInterval(2), expires: created.addingTimeInterval(302),
            progress: ReadProgress(phase: .verifying, percent: 100), error: JobFailure(.cancelled, message: "cancelled by request"),
            result: nil, hasFace: false)
        let view = ReadJobView(snapshot)
        #expect(view.id == snapshot.id)
        #expect(view.state == .failed)
        #expect(view.location == "/v1/reads/0f1e2d3c-aaaa-bbbb-cccc-001122334455")
        #expect(view.reader == "R1")
        #expect(view.createdAt == "2026-11-21T14:16:00.500Z")
        #expect(view.startedAt == "2026-11-21T14:16:01.500Z")
        #expect(view.finishedAt == "2026-11-21T14:16:02.500Z")
        #expect(view.expiresAt == "2026-11-21T14:21:02.500Z")
        #expect(view.progress == ReadProgress(phase: .verifying, percent: 100))
        #expect(view.error == APIErrorBody(error: .cancelled, message: "cancelled by request"))
        #expect(view.result == nil)
    }

    @Test func aWaitingJobHasNoTimesBesidesItsCreation() {
        let snapshot = ReadJobSnapshot(
            id: "j", state: .waiting, reader: nil, created: Date(timeIntervalSince1970: 0), started: nil, finished: nil,
            expires: nil, progress: nil, error: nil, result: nil, hasFace: false)
        let view = ReadJobView(snapshot)
        #expect(view.createdAt == "1970-01-01T00:00:00.000Z")
        #expect(view.startedAt == nil && view.finishedAt == nil && view.expiresAt == nil && view.error == nil)
        #expect(view.location == "/v1/reads/j")
    }

    @Test func aReaderSnapshotBecomesItsView() {
        let capabilities = TransportCapabilities(extendedLength: true, maxCommandLength: 261, maxResponseLength: 65538)
        let view = ReaderView(ReaderSnapshot(name: "R1", backend: .pcsc, capabilities: capabilities, cardPresent: true, busy: false))
        #expect(view == ReaderView(name: "R1", backend: .pcsc, capabilities: capabilities, cardPresent: true, busy: false))
    }
}
