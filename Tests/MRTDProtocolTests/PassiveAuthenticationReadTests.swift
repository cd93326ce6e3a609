import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Testing
import MRTDSimulation

/// A read with a trust store runs passive authentication and sets the status by its verdict.
@Suite struct PassiveAuthenticationReadTests {
    func read(trustStore: TrustStore?, files: [LDSFile: [UInt8]]? = nil) async throws -> ReadResult {
        let specimen = try SpecimenDocument.make()
        let key = try MRZ(SpecimenDocument.erikssonMRZ).accessKey
        let chip = VirtualChip(configuration: VirtualChipConfiguration(files: files ?? specimen.files, accessKey: key))
        let options = ReadOptions(accessKey: .mrz(key), trustStore: trustStore)
        return await DocumentReader.read(transport: chip, options: options).result
    }

    func testStore() throws -> TrustStore {
        var store = TrustStore()
        store.addAnchor(try TestPKI.csca(), source: "test", isTestMaterial: true)
        return store
    }

    @Test func specimenReadAgainstTheTestCSCAIsValid() async throws {
        let result = try await read(trustStore: try testStore())
        #expect(result.status == .valid)
        #expect(result.checks.passiveAuthentication.result == .passed)
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG1"] == "valid")
        #expect(result.checks.passiveAuthentication.warnings?.contains("testTrustAnchor") == true)
    }

    @Test func specimenReadAgainstAnEmptyStoreIsInvalid() async throws {
        let result = try await read(trustStore: TrustStore())
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.reason == "cscaNotFound")
    }

    @Test func readWithoutTrustStoreIsUnverified() async throws {
        let result = try await read(trustStore: nil)
        #expect(result.status == .unverified)
        #expect(result.checks.passiveAuthentication.reason == "noTrustStore")
    }

    @Test func alteredDG1OnTheChipMakesTheReadInvalid() async throws {
        var files = try SpecimenDocument.make().files
        var dg1 = try #require(files[.dg(1)])
        dg1[dg1.count - 3] ^= 0x01
        files[.dg(1)] = dg1
        let result = try await read(trustStore: try testStore(), files: files)
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.reason == "dataGroupHashMismatch")
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG1"] == "invalid")
    }
}
