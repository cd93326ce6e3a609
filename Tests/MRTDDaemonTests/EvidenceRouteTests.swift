import Foundation
import MRTDCore
import MRTDCrypto
import HTTPTypes
import MRTDTesting
import MRTDVerification
import Testing

@testable import MRTDDaemon
import MRTDClient
import MRTDSimulation

/// Issue 29 through the daemon: `aaChallenge` on `POST /v1/reads`, `GET /v1/reads/{id}/evidence`
/// (owner rule, disclosure, wiped with the job) and the bundle re-verified offline.
@Suite(.serialized) struct EvidenceRouteTests {
    static let challenge = "8899AABBCCDDEEFF"

    /// The specimen passport with Active Authentication (ECDSA P-256) and Chip Authentication.
    static func passportWithAA() throws -> VirtualChipConfiguration {
        let fixture = try AuthenticationFixture.make(
            chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)],
            activeAuthentication: .ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true))
        var configuration = VirtualChipConfiguration(files: try fixture.specimen().files, accessKey: try MRZ(SpecimenDocument.erikssonMRZ).accessKey)
        configuration.authentication = fixture.chip
        return configuration
    }

    @Test func aReadWithTheCallersChallengeGivesEvidenceThatReverifiesOffline() async throws {
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(try Self.passportWithAA(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access, aaChallenge: Self.challenge), wait: true)
        let aa = try #require(done.result?.checks.activeAuthentication)
        #expect(done.result?.status == .valid)
        #expect(aa.result == CheckResult.passed)
        #expect(aa.challenge == Self.challenge)
        #expect(aa.challengeSource == "caller")

        let answer = try await daemon.client.send(.get, "/v1/reads/\(done.id)/evidence")
        #expect(answer.status == 200)
        #expect(answer.header("content-type") == "application/json")
        #expect(answer.header("cache-control") == "no-store")
        let bundle = try EvidenceBundle.decode(answer.body)
        #expect(bundle.software.name == "mrtdd")
        #expect(Set(bundle.files.keys) == ["EF_COM", "EF_SOD", "DG1", "DG2", "DG14", "DG15"])
        let body = String(decoding: answer.body, as: UTF8.self)
        #expect(!body.contains("L898902C3<740812"), "no access key in a bundle")
        let result = try EvidenceVerification.verify(
            bundle, trustStore: try testTrustStore(), expectedChallenge: [UInt8](hex: Self.challenge))
        #expect(result.status == .valid)
        #expect(result.checks.activeAuthentication.result == CheckResult.passed)
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "valid")

        // Disclosure: DG1 only; DG2 as its hash; the rest still verifies.
        let partial = try EvidenceBundle.decode(try await daemon.client.evidence(done.id, disclose: [1]))
        #expect(partial.files["DG2"] == nil)
        #expect(partial.withheld?["DG2"] != nil)
        #expect(try EvidenceVerification.verify(partial, trustStore: try testTrustStore()).status == .valid)

        try await daemon.stop()
    }

    @Test func badChallengesAndDisclosuresAreRefusedWithTheirCodes() async throws {
        let daemon = try await TestDaemon.start()
        for bad in ["0011", "00112233445566778", "001122334455667G", ""] {
            let body = #"{"access":{"mrzKey":{"documentNumber":"L898902C3","dateOfBirth":"740812","dateOfExpiry":"120415"}},"aaChallenge":"\#(bad)"}"#
            let answer = try await daemon.client.send(.post, "/v1/reads", json: Array(body.utf8))
            #expect(answer.status == 400, "\(bad)")
            #expect(DaemonClientError.from(answer).code == .invalidChallenge)
        }
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access, keepEvidence: true), wait: true)
        for bad in ["0", "17", "1,x", "DG1;2"] {
            let answer = try await daemon.client.send(.get, "/v1/reads/\(done.id)/evidence?disclose=\(bad)")
            #expect(answer.status == 400, "\(bad)")
            #expect(DaemonClientError.from(answer).code == .invalidDisclosure)
        }
        // A passport without DG15: evidence without AA, and the read's own challenge is none.
        let bundle = try EvidenceBundle.decode(try await daemon.client.evidence(done.id))
        #expect(bundle.activeAuthentication == nil)
        try await daemon.stop()
    }

    @Test func evidenceFollowsTheResultsOwnerRuleAndGoesWithTheJob() async throws {
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access, keepEvidence: true), wait: true)
        await #expect(throws: SchedulerError.jobNotFound) {
            _ = try await daemon.daemon.scheduler.evidence(id: done.id, peer: PeerCredentials(pid: 1, uid: 4242, gid: 4242))
        }
        let asRoot = try await daemon.daemon.scheduler.evidence(id: done.id, peer: .rootForTests)
        #expect(asRoot?.files[.sod] != nil)

        _ = try await daemon.client.send(.delete, "/v1/reads/\(done.id)")
        let gone = try await daemon.client.send(.get, "/v1/reads/\(done.id)/evidence")
        #expect(gone.status == 404)
        #expect(DaemonClientError.from(gone).code == .jobNotFound)

        // A failed read has no evidence.
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let failed = try await daemon.client.createRead(.init(access: Specimens.wrongAccess), wait: true)
        #expect(failed.state == .failed)
        let none = try await daemon.client.send(.get, "/v1/reads/\(failed.id)/evidence")
        #expect(none.status == 404)
        #expect(DaemonClientError.from(none).code == .evidenceNotAvailable)

        // A read that asked for no evidence (no keepEvidence, no aaChallenge) keeps no raw file.
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let plain = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        #expect(plain.state == .done)
        #expect(try await daemon.daemon.scheduler.evidence(id: plain.id, peer: .rootForTests) == nil)
        let notKept = try await daemon.client.send(.get, "/v1/reads/\(plain.id)/evidence")
        #expect(notKept.status == 404)
        #expect(DaemonClientError.from(notKept).code == .evidenceNotAvailable)
        try await daemon.stop()
    }
}
