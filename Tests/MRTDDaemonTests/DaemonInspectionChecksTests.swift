import Foundation
import MRTDCore
import MRTDTesting
import Testing
@testable import MRTDDaemon
import MRTDSimulation
import MRTDClient

/// The TR-03135 checks in results served by the daemon (in-process, over its Unix socket).
@Suite(.serialized) struct DaemonInspectionChecksTests {
    @Test func theDaemonsResultCarriesTheInspectionChecks() async throws {
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access), wait: true)
        let checks = try #require(done.result?.checks)
        #expect(checks.issuingCountry?.result == .passed)
        #expect(checks.accessKeyMatch?.result == .passed)
        #expect(checks.dataGroupStructure?.result == .passed)
        #expect(checks.revocation?.result == .undetermined)
        // The ICAO specimen expired in 2012: named, but the chip still verifies.
        #expect(checks.documentExpiry?.reason == "documentExpired")
        #expect(done.result?.warnings.contains("documentExpired") == true)
        #expect(done.result?.status == .valid)
        try await daemon.stop()
    }

    /// A chip whose BAC key is not derived from its own DG1 (DG1 differs from the printed MRZ that
    /// opens it): passive authentication passes, the document is not valid.
    @Test func aChipWhoseDG1IsNotTheMRZThatOpenedItIsInvalid() async throws {
        let daemon = try await TestDaemon.start()
        let document = try SpecimenDocument.make()
        let printed = try MRZKey(documentNumber: "L898902C4", dateOfBirth: "740812", dateOfExpiry: "120415")
        daemon.backend.insert(VirtualChipConfiguration(files: document.files, accessKey: printed), into: "R1")
        let access = ReadJobRequest.Access(mrzKey: .init(documentNumber: "L898902C4", dateOfBirth: "740812", dateOfExpiry: "120415"))
        let done = try await daemon.client.createRead(.init(access: access), wait: true)
        #expect(done.result?.checks.passiveAuthentication.result == .passed)
        #expect(done.result?.checks.accessKeyMatch?.result == .failed)
        #expect(done.result?.checks.accessKeyMatch?.reason == "mrzMismatch")
        #expect(done.result?.checks.accessKeyMatch?.detail?.contains("L898902C4") == false)
        #expect(done.result?.status == .invalid)
        try await daemon.stop()
    }
}
