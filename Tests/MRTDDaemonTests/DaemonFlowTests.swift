import Foundation
import MRTDCore
import MRTDTesting
import Testing
@testable import MRTDDaemon
import HTTPTypes
import Logging
import MRTDProtocol
import MRTDPlatform
import MRTDSimulation
import MRTDClient

/// End-to-end flows through the Unix socket, daemon in-process.
@Suite(.serialized) struct DaemonFlowTests {
    @Test func aJobCreatedBeforeTheCardArrivesWaitsThenReadsIt() async throws {
        let daemon = try await TestDaemon.start()
        let job = try await daemon.client.createRead(.init(access: Specimens.access))
        #expect(job.state == .waiting)
        // Nothing to wait for here (no card, nothing happens): a pause in which a wrong start would show.
        try await Task.sleep(for: .milliseconds(50))
        #expect(try await daemon.client.job(job.id).state == .waiting)
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.waitFinished(job.id)
        #expect(done.state == .done)
        #expect(done.reader == "R1")
        #expect(done.result?.document?.documentNumber == "L898902C3")
        // The test daemon trusts the TEST-ONLY CSCA that signed the specimen.
        #expect(done.result?.status == .valid)
        #expect(done.progress?.percent == 100)
        try await daemon.stop()
    }

    @Test func aCardAlreadyOnTheReaderIsReadAtOnceAndWaitAnswersWithTheResult() async throws {
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        #expect(done.state == .done)
        #expect(done.result?.dataGroupsRead.contains("DG2") == true)
        let face = try await daemon.client.face(done.id)
        #expect(face.contentType == "image/jpeg")
        #expect(face.bytes.starts(with: [0xFF, 0xD8]))
        try await daemon.stop()
    }

    @Test func twoReadersReadAtTheSameTime() async throws {
        let daemon = try await TestDaemon.start(readers: ["R1", "R2"])
        for name in ["R1", "R2"] {
            daemon.backend.setLatency(.milliseconds(40), reader: name)
            daemon.backend.insert(try Specimens.passport(), into: name)
        }
        async let first = daemon.client.createRead(.init(reader: "R1", access: Specimens.access), wait: true)
        async let second = daemon.client.createRead(.init(reader: "R2", access: Specimens.access), wait: true)
        let (a, b) = try await (first, second)
        #expect(a.state == .done && b.state == .done)
        #expect(a.reader == "R1" && b.reader == "R2")
        // Both reads (8 exchanges of 40 ms each) overlapped: each started before the other finished.
        #expect(try #require(a.startedAt) < (try #require(b.finishedAt)))
        #expect(try #require(b.startedAt) < (try #require(a.finishedAt)))
        try await daemon.stop()
    }

    @Test func aClientThatDisconnectsMidReadLeavesTheJobRunningAndTheResultExpires() async throws {
        let daemon = try await TestDaemon.start { $0.resultRetention = .milliseconds(600) }
        daemon.backend.setLatency(.milliseconds(25), reader: "R1")
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let client = daemon.client
        let waiting = Task { try await client.createRead(.init(access: Specimens.access), wait: true) }
        let jobID = try await eventually("the reader busy with the job") { () -> String? in
            let answer = try await client.send(.get, "/metrics")
            guard String(decoding: answer.body, as: UTF8.self).contains("mrtdd_readers_busy 1") else { return nil }
            return try await Self.onlyJob(daemon)
        }
        waiting.cancel()  // the client goes away mid-read
        let view = try await daemon.waitFinished(jobID)
        #expect(view.state == .done)
        #expect(view.result?.document != nil)
        // Past its retention the result is purged: the job answers jobNotFound.
        let gone = try await eventually("the result purged after its retention") { () -> DaemonClientError? in
            do {
                _ = try await client.job(jobID)
                return nil
            } catch let error as DaemonClientError {
                return error
            }
        }
        #expect(gone.code == .jobNotFound)
        try await daemon.stop()
    }

    /// The id of the one job in the daemon (from the scheduler, as the disconnected client never got it).
    static func onlyJob(_ daemon: TestDaemon) async throws -> String? {
        await daemon.daemon.scheduler.jobIDs().first
    }

    @Test func cancellingAWaitingJobAndARunningJob() async throws {
        let daemon = try await TestDaemon.start()
        let waiting = try await daemon.client.createRead(.init(access: Specimens.access))
        let cancelled = try #require(try await daemon.client.cancel(waiting.id))
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.error?.error == .cancelled)

        daemon.backend.setLatency(.milliseconds(30), reader: "R1")
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let running = try await daemon.client.createRead(.init(access: Specimens.access))
        try await waitUntil("the job reading") { try await daemon.client.job(running.id).state == .reading }
        let stopped = try #require(try await daemon.client.cancel(running.id))
        #expect(stopped.state == .cancelled)
        #expect(stopped.result == nil)
        // The reader is free again: the next job reads.
        daemon.backend.setLatency(.zero, reader: "R1")
        let next = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        #expect(next.state == .done)
        // DELETE of a finished job purges it.
        #expect(try await daemon.client.cancel(next.id) == nil)
        let gone = try await daemon.client.send(.get, "/v1/reads/\(next.id)")
        #expect(gone.status == 404)
        try await daemon.stop()
    }

    @Test func aWrongMRZFailsWithAccessDenied() async throws {
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let failed = try await daemon.client.createRead(.init(access: Specimens.wrongAccess), wait: true)
        #expect(failed.state == .failed)
        #expect(failed.error?.error == .accessDenied)
        #expect(failed.result?.status == .failed)
        #expect(failed.result?.document == nil)
        try await daemon.stop()
    }

    @Test func aJobWithNoCardTimesOut() async throws {
        let daemon = try await TestDaemon.start()
        let job = try await daemon.client.createRead(.init(access: Specimens.access, timeoutSeconds: 0.2))
        let view = try await daemon.waitFinished(job.id)
        #expect(view.state == .failed)
        #expect(view.error?.error == .timeout)
        try await daemon.stop()
    }

    @Test func aCANWithTheBACPolicyIsRefused() async throws {
        let daemon = try await TestDaemon.start()
        let answer = try await daemon.client.send(
            .post, "/v1/reads", json: Array(#"{"access":{"can":"123456"},"accessPolicy":"bac"}"#.utf8))
        #expect(answer.status == 400)
        #expect(DaemonClientError.from(answer).code == .canNeedsPACE)
        try await daemon.stop()
    }

    @Test func theEventStreamShowsReaderCardAndProgressEventsInOrder() async throws {
        let daemon = try await TestDaemon.start(readers: [])
        let opened = Locked(false)
        let stream = daemon.client.events { opened.withValue { $0 = true } }
        let collector = Task {
            var seen: [DaemonClient.Event] = []
            for try await event in stream {
                seen.append(event)
                if event.type == "read.finished" || event.type == "read.failed" { break }
            }
            return seen
        }
        try await waitUntil("the event stream open") { opened.current }
        daemon.backend.addReader("R9")
        let job = try await daemon.client.createRead(.init(access: Specimens.access))
        daemon.backend.insert(try Specimens.passport(), into: "R9")
        let events = try await collector.value
        let types = events.map(\.type)
        let added = try #require(types.firstIndex(of: "reader.added"))
        let inserted = try #require(types.firstIndex(of: "card.inserted"))
        let firstProgress = try #require(types.firstIndex(of: "read.progress"))
        let finished = try #require(types.firstIndex(of: "read.finished"))
        #expect(added < inserted && inserted < firstProgress && firstProgress < finished)
        let progress = events.filter { $0.type == "read.progress" }.compactMap {
            try? JSONDecoder().decode(EventPayload.Progress.self, from: Data($0.data.utf8))
        }
        #expect(progress.count >= 5)
        #expect(progress.allSatisfy { $0.id == job.id && $0.reader == "R9" })
        #expect(progress.map(\.percent) == progress.map(\.percent).sorted())
        #expect(progress.map(\.phase).contains(.authenticating))
        #expect(progress.contains { $0.file == "DG2" })
        let ids = events.compactMap { $0.id.flatMap(UInt64.init) }
        #expect(ids == ids.sorted())
        try await daemon.stop()
    }

    @Test func aJPEG2000FaceIsConvertedToPNGAndAJPEGFaceIsNot() async throws {
        let daemon = try await TestDaemon.start(readers: ["J2", "JP"])
        daemon.backend.insert(try Specimens.passport(face: .jpeg2000), into: "J2")
        daemon.backend.insert(try Specimens.passport(face: .jpeg), into: "JP")
        let j2 = try await daemon.client.createRead(.init(reader: "J2", access: Specimens.access), wait: true)
        let stored = try await daemon.client.face(j2.id)
        #expect(stored.contentType == "image/jp2" || stored.contentType == "image/j2k")
        if FileManager.default.isExecutableFile(atPath: DaemonConfiguration().faceDecoder) {
            let png = try await daemon.client.face(j2.id, png: true)
            #expect(png.contentType == "image/png")
            #expect(png.bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]))
        } else {
            #expect(Prerequisite.skip("opj_decompress is not installed (apt-get install libopenjp2-tools); PNG conversion untested"))
            let answer = try await daemon.client.send(.get, "/v1/reads/\(j2.id)/face?format=png")
            #expect(answer.status == 501)
        }
        let jpeg = try await daemon.client.createRead(.init(reader: "JP", access: Specimens.access), wait: true)
        let refused = try await daemon.client.send(.get, "/v1/reads/\(jpeg.id)/face?format=png")
        #expect(refused.status == 415)
        #expect(DaemonClientError.from(refused).code == .faceConversionUnsupported)
        try await daemon.stop()
    }

    /// NFCPassportReader 2.3.1 (docs/field-quirks.md, "Signed data"): the face taken from a DG2 whose
    /// JPEG 2000 image is followed by padding is the image alone, and it decodes.
    @Test func aPaddedJPEG2000FaceIsHandedOutWithoutThePaddingAndDecodes() async throws {
        let (files, image) = try SpecimenDocument.withPaddedJPEG2000Face(padding: [UInt8](repeating: 0xFF, count: 48))
        let dg2 = try #require(files[.dg(2)])
        let face = try #require(try DG2(rawBytes: dg2).faces.first)
        #expect(face.imageData == image)
        #expect(face.trailingPadding == 48)
        let converter = FaceConverter(decoder: DaemonConfiguration().faceDecoder)
        guard converter.isAvailable else {
            #expect(Prerequisite.skip("opj_decompress is not installed; the padded JPEG 2000 face is not decoded"))
            return
        }
        let png = try await converter.png(fromJPEG2000: face.imageData, mimeType: face.mimeType)
        #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
    }

    @Test func aHostileJPEG2000FaceFailsInTheChildProcessNotTheDaemon() async throws {
        let converter = FaceConverter(decoder: DaemonConfiguration().faceDecoder)
        guard converter.isAvailable else {
            #expect(Prerequisite.skip("opj_decompress is not installed; the hostile JPEG 2000 face is untested"))
            return
        }
        // A JP2 signature box followed by garbage.
        let hostile: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A] + Array(repeating: 0xFF, count: 4096)
        await #expect(throws: FaceConverter.Failure.undecodable) {
            try await converter.png(fromJPEG2000: hostile, mimeType: "image/jp2")
        }
    }

    @Test func aDebugLevelRunLogsNoPersonalData() async throws {
        let daemon = try await TestDaemon.start(logLevel: .trace)
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        _ = try await daemon.client.createRead(.init(access: .init(mrz: SpecimenDocument.erikssonMRZ)), wait: true)
        _ = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        _ = try await daemon.client.createRead(.init(access: Specimens.wrongAccess), wait: true)
        _ = try await daemon.client.send(.post, "/v1/reads", json: Array(#"{"access":{"can":"123456"}}"#.utf8))
        try await daemon.stop()
        let logs = daemon.logs.text
        #expect(logs.contains("read finished"), "the capture saw the run")
        for secret in ["L898902C", "740812", "120415", "ERIKSSON", "ANNA", "MARIA", "UTO", "123456", "P<UTO"] {
            #expect(!logs.contains(secret), "logs contain '\(secret)'")
        }
    }
}
