import Foundation
import MRTDCore
import MRTDTesting
import Testing

@testable import MRTDDaemon
import HTTPTypes
import MRTDSimulation
import MRTDClient

/// The further data groups through the daemon: read when `dataGroups` asks, reported in the result,
/// images served by name to the job's owner only, nothing personal in the logs.
@Suite struct LDSImageRouteTests {
    @Test func imagesAreServedByNameAndTheDetailsReported() async throws {
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(try Specimens.fullPassport(), into: "R1")
        let done = try await daemon.client.createRead(
            .init(access: Specimens.access, dataGroups: [5, 7, 11, 12, 13, 16]), wait: true)
        let result = try #require(done.result)
        #expect(result.status == .valid)
        #expect(result.personalDetails?.fullName == SpecimenDocument.Details.fullName)
        #expect(result.documentDetails?.issuingAuthority == SpecimenDocument.Details.issuingAuthority)
        #expect(result.personsToNotify?.count == 1)
        #expect(result.images?.map(\.name) == ["portrait-1", "signature-1", "document-front", "document-rear"])

        let portrait = try await daemon.client.image(done.id, name: "portrait-1")
        #expect(portrait.contentType == "image/jpeg")
        #expect(portrait.bytes == SpecimenDocument.faceImageBytes(.jpeg))
        let rear = try await daemon.client.image(done.id, name: "document-rear")
        #expect(rear.contentType == "image/jp2")
        #expect(rear.bytes == SpecimenDocument.faceImageBytes(.jpeg2000))
        let noStore = try await daemon.client.send(.get, "/v1/reads/\(done.id)/images/signature-1")
        #expect(noStore.header("cache-control") == "no-store")

        let missing = try await daemon.client.send(.get, "/v1/reads/\(done.id)/images/finger-1")
        #expect(missing.status == 404)
        #expect(DaemonClientError.from(missing).code == .noImage)
        let traversal = try await daemon.client.send(.get, "/v1/reads/\(done.id)/images/..%2Fface")
        // An encoded path separator never reaches a route (the canonical-path rule of the API).
        #expect(traversal.status == 400)
        #expect(DaemonClientError.from(traversal).code == .nonCanonicalPath)
        let unknownJob = try await daemon.client.send(.get, "/v1/reads/unknown/images/portrait-1")
        #expect(DaemonClientError.from(unknownJob).code == .jobNotFound)

        // Another non-root uid sees no such job (the face route's rule); root does.
        await #expect(throws: SchedulerError.jobNotFound) {
            try await daemon.daemon.scheduler.image(
                id: done.id, name: "portrait-1", peer: PeerCredentials(pid: 1, uid: 4242, gid: 4242))
        }
        let asRoot = try await daemon.daemon.scheduler.image(
            id: done.id, name: "portrait-1", peer: PeerCredentials(pid: 1, uid: 0, gid: 0))
        #expect(asRoot.mimeType == "image/jpeg")

        // Deleting the result wipes its images with it.
        _ = try await daemon.client.send(.delete, "/v1/reads/\(done.id)")
        let gone = try await daemon.client.send(.get, "/v1/reads/\(done.id)/images/portrait-1")
        #expect(DaemonClientError.from(gone).code == .jobNotFound)

        let logs = daemon.logs.text
        #expect(logs.contains("read finished"))
        for secret in [SpecimenDocument.Details.fullName, SpecimenDocument.Details.personalNumber,
                       SpecimenDocument.Details.address, SpecimenDocument.Details.issuingAuthority, "ERIKSSON"] {
            #expect(!logs.contains(secret), "logs contain '\(secret)'")
        }
        try await daemon.stop()
    }

    @Test func withoutDataGroupsTheDefaultsReadNoneAndServeNoImages() async throws {
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(try Specimens.fullPassport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        #expect(done.result?.status == .valid)
        #expect(done.result?.dataGroupsRead.contains("DG11") == false)
        #expect(done.result?.images == nil)
        let answer = try await daemon.client.send(.get, "/v1/reads/\(done.id)/images/portrait-1")
        #expect(answer.status == 404)
        #expect(DaemonClientError.from(answer).code == .noImage)
        try await daemon.stop()
    }
}
