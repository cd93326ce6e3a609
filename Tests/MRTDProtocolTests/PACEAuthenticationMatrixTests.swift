import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// Chip Authentication and Active Authentication after PACE (GM, IM; 3DES and AES session ciphers):
/// CA replaces the PACE session keys, every later read uses the CA keys; with PACE-CAM the DG14 CA
/// is skipped and the CAM verdict stands.
@Suite struct PACEAuthenticationMatrixTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    struct Case: Sendable, CustomTestStringConvertible {
        var pace: PACEProtocol
        var parameterID: Int
        var ca: ChipAuthenticationKeySpec
        var testDescription: String { "\(pace.name) #\(parameterID) then CA \(ca)" }
    }

    static let cases: [Case] = [
        Case(pace: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13,
             ca: .init(domainParameterID: 13, cipher: .aes128)),
        Case(pace: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes256)!, parameterID: 18,
             ca: .init(domainParameterID: 13, cipher: .tripleDES)),
        Case(pace: PACEProtocol(mapping: .im, keyAgreement: .ecdh, cipher: .tripleDES)!, parameterID: 12,
             ca: .init(domainParameterID: 2, cipher: .aes256)),
        Case(pace: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 2,
             ca: .init(domainParameterID: 1, cipher: .tripleDES)),
        Case(pace: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes192)!, parameterID: 16,
             ca: .init(domainParameterID: 16, cipher: .aes192, keyID: 3, version: 2)),
    ]

    @Test(arguments: cases)
    func chipAuthenticationAfterPACEReplacesItsKeys(_ c: Case) async throws {
        let fixture = try AuthenticationFixture.make(
            chipAuthentication: [c.ca], activeAuthentication: .ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true))
        let specimen = try fixture.specimen()
        var config = try VirtualChipConfiguration.paceChip(
            document: specimen, accessKey: Self.key, infos: [PACEInfo(protocol: c.pace, parameterID: c.parameterID)], bac: false)
        config.authentication = fixture.chip
        let chip = VirtualChip(configuration: config)
        let read = await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: .mrz(Self.key), access: .pace))
        #expect(read.result.error == nil, "\(read.result.error?.message ?? "")")
        #expect(read.result.access?.protocol == "PACE")
        #expect(read.result.checks.chipAuthentication.result == .passedUnverifiedKey)
        #expect(read.result.checks.chipAuthentication.protocol?.hasPrefix(
            ChipAuthenticationProtocol(keyAgreement: c.ca.keyAgreement, cipher: c.ca.cipher).name) == true)
        #expect(read.result.checks.activeAuthentication.result == .passedUnverifiedKey)
        for file in [LDSFile.dg(1), .dg(2), .dg(14), .dg(15)] {
            #expect(read.files[file] == specimen.files[file], "\(file.name)")
        }
        let underCA = await chip.commandsUnderChipAuthenticationKeys
        #expect(underCA.contains(0x88) && underCA.filter { $0 == 0xB0 }.count >= 3)
    }

    @Test func withPACECAMTheDG14ChipAuthenticationIsNotRun() async throws {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)])
        let specimen = try fixture.specimen()
        let cam = PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!
        var config = try VirtualChipConfiguration.paceChip(
            document: specimen, accessKey: Self.key, infos: [PACEInfo(protocol: cam, parameterID: 13)], bac: false)
        config.authentication = fixture.chip
        let chip = VirtualChip(configuration: config)
        let read = await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: .mrz(Self.key), access: .pace))
        #expect(read.result.error == nil)
        #expect(read.result.checks.chipAuthentication.result == CheckResult.passedUnverifiedKey)
        #expect(read.files[.dg(14)] == specimen.files[.dg(14)])
        #expect(await !chip.chipAuthenticationCompleted, "no second chip authentication after CAM")
    }
}
