import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Testing
import MRTDSimulation

/// Chip and active authentication are decided by passive authentication of the key's file
/// (Doc 9303-11 §6; ARCHITECTURE pitfalls): never a bare `passed` for a key PA did not cover.
@Suite struct AuthenticationGatingTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey
    static let ca = ChipAuthenticationKeySpec(domainParameterID: 13, cipher: .aes128)
    static let aa = ActiveAuthenticationKeySpec.ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true)

    static func testTrust() throws -> TrustStore {
        var store = TrustStore()
        _ = store.addAnchor(try TestPKI.csca(), source: "test CSCA", isTestMaterial: true)
        return store
    }

    static func read(files: [LDSFile: [UInt8]], chip: VirtualChipAuthentication, trust: TrustStore?) async -> ReadResult {
        var configuration = VirtualChipConfiguration(files: files, accessKey: key)
        configuration.authentication = chip
        let options = ReadOptions(accessKey: .mrz(key), access: .bac, trustStore: trust)
        return await DocumentReader.read(transport: VirtualChip(configuration: configuration), options: options).result
    }

    @Test func keysCoveredByPassiveAuthenticationPass() async throws {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [Self.ca], activeAuthentication: Self.aa)
        let result = await Self.read(files: try fixture.specimen().files, chip: fixture.chip, trust: try Self.testTrust())
        #expect(result.status == .valid)
        #expect(result.checks.chipAuthentication.result == .passed)
        #expect(result.checks.chipAuthentication.keyFile == "DG14")
        #expect(result.checks.activeAuthentication.result == .passed)
        #expect(result.checks.activeAuthentication.keyFile == "DG15")
    }

    @Test func withoutPassiveAuthenticationTheKeysStayUnverified() async throws {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [Self.ca], activeAuthentication: Self.aa)
        let result = await Self.read(files: try fixture.specimen().files, chip: fixture.chip, trust: nil)
        #expect(result.status == .unverified)
        #expect(result.checks.chipAuthentication.result == .passedUnverifiedKey)
        #expect(result.checks.activeAuthentication.result == .passedUnverifiedKey)
    }

    @Test func anUntrustedSignerLeavesTheKeysUnverified() async throws {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [Self.ca], activeAuthentication: Self.aa)
        // A trust store without the test CSCA: the chain cannot be built.
        let result = await Self.read(files: try fixture.specimen().files, chip: fixture.chip, trust: TrustStore())
        #expect(result.status == .invalid)
        #expect(result.checks.chipAuthentication.result == .passedUnverifiedKey)
        let reason = result.checks.chipAuthentication.reason ?? ""
        #expect(reason.hasPrefix("passiveAuthenticationNotPassed") || reason.hasPrefix("keyFileUnverified"))
        #expect(result.checks.activeAuthentication.result == .passedUnverifiedKey)
    }

    @Test func aCloneWithItsOwnChipKeyFailsChipAuthentication() async throws {
        // The genuine document's files, but DG14 and the chip key of another chip: the clone proves
        // possession of its own key, whose DG14 the SOD does not cover.
        let genuine = try AuthenticationFixture.make(chipAuthentication: [Self.ca])
        let clone = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 12, cipher: .aes128)])
        var files = try genuine.specimen().files
        files[.dg(14)] = clone.dg14
        let result = await Self.read(files: files, chip: clone.chip, trust: try Self.testTrust())
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG14"] == "invalid")
        #expect(result.checks.chipAuthentication.result == .failed)
        #expect(result.checks.chipAuthentication.reason == "keyFileHashMismatch: DG14")
    }

    @Test func paceCAMIsGatedOnEFCardSecurity() async throws {
        let specimen = try SpecimenDocument.make()
        let info = PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)
        let configuration = try VirtualChipConfiguration.paceChip(
            document: specimen, accessKey: Self.key, infos: [info], bac: false)
        let options = ReadOptions(accessKey: .mrz(Self.key), access: .pace, trustStore: try Self.testTrust())
        let result = await DocumentReader.read(transport: VirtualChip(configuration: configuration), options: options).result
        #expect(result.access?.mapping == "CAM")
        #expect(result.checks.chipAuthentication.result == .passed)
        #expect(result.checks.chipAuthentication.keyFile == "EF_CardSecurity")
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["EF_CardSecurity"] == "valid")
    }
}
