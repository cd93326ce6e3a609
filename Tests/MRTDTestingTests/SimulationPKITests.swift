import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Testing
import MRTDSimulation

/// `--simulate`'s PKI is made per process (MRTDSimulation.SimulationPKI), never the fixed TEST-ONLY keys:
/// its specimen verifies against the session CSCA only, and `--trust-test` finds the session CSCA.
@Suite struct SimulationPKITests {
    func read(_ document: SpecimenDocument, trust: TrustStore) async throws -> ReadResult {
        let key = try MRZ(SpecimenDocument.erikssonMRZ).accessKey
        let chip = VirtualChip(configuration: VirtualChipConfiguration(files: document.files, accessKey: key))
        return await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: .mrz(key), trustStore: trust)).result
    }

    @Test func theSimulatedSpecimenVerifiesAgainstTheSessionCSCAAndNothingElse() async throws {
        let specimen = try SpecimenDocument.make(signer: SimulationPKI.signer())
        let valid = try await read(specimen, trust: SimulationPKI.trustStore())
        #expect(valid.status == .valid)
        #expect(valid.checks.passiveAuthentication.result == .passed)
        #expect(valid.checks.passiveAuthentication.warnings?.contains("testTrustAnchor") == true)
        #expect(valid.checks.passiveAuthentication.csca?.subject.contains("mrtdd Simulation CSCA") == true)

        // The fixed TEST-ONLY CSCA of certs/test does not vouch for it: the keys differ.
        var fixed = TrustStore()
        fixed.addAnchor(try Certificate(derEncoded: TestPKI.csca().derBytes), source: "certs/test", isTestMaterial: true)
        let untrusted = try await read(specimen, trust: fixed)
        #expect(untrusted.status == .invalid)
        #expect(untrusted.checks.passiveAuthentication.reason == "cscaNotFound")
    }

    @Test func oneSignerPerProcessAndFreshKeysEachTime() throws {
        let first = try SimulationPKI.signer(), again = try SimulationPKI.signer()
        #expect(first.csca.derBytes == again.csca.derBytes)
        #expect(try first.privateKey.subjectPublicKeyInfo() == again.privateKey.subjectPublicKeyInfo())
        let other = try SimulationPKI.makeSigner()
        #expect(try other.privateKey.subjectPublicKeyInfo() != first.privateKey.subjectPublicKeyInfo())
        #expect(try other.privateKey.subjectPublicKeyInfo() != TestPKI.dscKey().subjectPublicKeyInfo())
        #expect(try first.privateKey.subjectPublicKeyInfo() != TestPKI.dscKey().subjectPublicKeyInfo())
    }

    @Test func trustTestFindsThePublishedSessionCSCA() throws {
        let csca = try SimulationPKI.signer().csca
        #expect(SimulationPKI.publishedCSCAs().contains { $0.der == csca.derBytes },
                "the session CSCA is not in \(SimulationPKI.publishedCSCADirectory)")
        var store = TrustStore()
        try SimulationTrust.addAnchors(to: &store)
        let anchors = store.anchors.map(\.certificate.derBytes)
        #expect(anchors.contains(csca.derBytes))
        #expect(anchors.contains(try TestPKI.csca().derBytes))
    }

    @Test func theSessionEACSetIsFreshAndBesideCertsTestEAC() throws {
        let session = try SimulationPKI.eac()
        #expect(session.cvca.holderReference == "UTCVCA00002")
        #expect(session.inspectionSystem.holderReference == "UTISTEST00002")
        #expect(try session.isKey.subjectPublicKeyInfo() != EACTestSet.fixture().isKey.subjectPublicKeyInfo())
        var configuration = VirtualChipConfiguration(files: [:], accessKey: try MRZ(SpecimenDocument.erikssonMRZ).accessKey)
        try SimulationPKI.equipEAC(&configuration, chipDate: CVDate(year: 2026, month: 1, day: 1))
        #expect(configuration.eac?.trustPoints.map(\.holderReference) == ["UTCVCA00002", "UTCVCA00001"])
        #expect(configuration.files[.cvca] != nil)
    }
}
