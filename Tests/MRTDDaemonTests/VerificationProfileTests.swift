import Foundation
import Logging
import MRTDClient
import MRTDCore
import MRTDCrypto
import MRTDSimulation
import MRTDVerification
import Testing
@testable import MRTDDaemon

/// `verification-profile` (mrtdd.conf; applied with the trust store at start and on reload): a
/// passport whose document signer's keyUsage is not critical (Doc 9303-12 §7.1.1.3; BSI TR-03105-5.1
/// LDS_H_62) reads `invalid` (`dscKeyUsageInvalid`) under `strict` (the default), and `valid` with the warning
/// `dscNonConforming` under `tolerate-sod-deviations`, through the daemon.
@Suite struct VerificationProfileTests {
    /// The specimen passport's EF.SOD signed again by a DSC whose keyUsage is not critical, and a
    /// trust directory holding that DSC's CSCA.
    static func nonConformingPassport() throws -> (chip: VirtualChipConfiguration, trust: URL) {
        let p256 = PrivateKey.Generation.ec(curve: "prime256v1", explicitParameters: false)
        let chain = try SimulationPKI.Chain.make(
            cscaKey: p256, dscKey: p256, certificateScheme: .ecdsa(.sha256), label: "profile", country: "UT")
            .withDSC { $0.keyUsageCritical = false }
        var chip = try Specimens.passport()
        let signer = DocumentSigner(
            csca: try Certificate(derEncoded: chain.csca), certificate: try Certificate(derEncoded: chain.dsc), privateKey: chain.dscKey)
        chip.files[.sod] = try signer.signSOD(over: chip.files)
        let trust = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-profile-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: trust, withIntermediateDirectories: true)
        try Data(chain.csca).write(to: trust.appendingPathComponent("csca.der"))
        return (chip, trust)
    }

    @Test func theConfiguredProfileDecidesTheVerdictAndAReloadChangesIt() async throws {
        let (chip, trust) = try Self.nonConformingPassport()
        defer { try? FileManager.default.removeItem(at: trust) }
        var configuration = DaemonConfiguration()
        try configuration.apply(file: "trust-store = \(trust.path)\ndefault-trust = no\nverification-profile = strict\n")
        #expect(configuration.verificationProfile == .strict)
        let manager = TrustManager(configuration: configuration, logger: Logger(label: "trust"))
        #expect(manager.store?.verificationProfile == .strict)
        let backend = VirtualReaderBackend(readers: ["R1"])
        backend.insert(chip, into: "R1")
        let daemon = try await TestDaemon.start(backends: [backend], engine: StandardReadEngine(trust: manager)) {
            $0.trustStorePaths = [trust.path]
            $0.defaultTrust = false
        }

        let strict = try await daemon.client.createRead(.init(reader: "R1", access: Specimens.access), wait: true)
        #expect(strict.result?.status == .invalid)
        #expect(strict.result?.checks.passiveAuthentication.result == .failed)
        #expect(strict.result?.checks.passiveAuthentication.reason == "dscKeyUsageInvalid")

        configuration.verificationProfile = .tolerateSODDeviations
        #expect(manager.reload(configuration: configuration).succeeded)
        let standard = try await daemon.client.createRead(.init(reader: "R1", access: Specimens.access), wait: true)
        #expect(standard.result?.status == .valid)
        #expect(standard.result?.checks.passiveAuthentication.result == .passed)
        let warnings = standard.result?.checks.passiveAuthentication.warnings ?? []
        #expect(warnings.contains { $0.hasPrefix("dscNonConforming: ") }, "\(warnings)")
        try await daemon.stop()
    }

    @Test func anUnknownProfileIsRefusedWithItsLine() {
        var configuration = DaemonConfiguration()
        #expect(throws: ConfigurationError.syntax(file: "mrtdd.conf", line: 2, "invalid value 'lenient' for 'verification-profile'")) {
            try configuration.apply(file: "default-trust = no\nverification-profile = lenient\n")
        }
        #expect(configuration.verificationProfile == .strict)
    }

    /// The default is strict; the tolerant profile's former name `standard` is still read.
    @Test func strictIsTheDefaultAndTheFormerNameStandardStillReads() throws {
        #expect(DaemonConfiguration().verificationProfile == .strict)
        var configuration = DaemonConfiguration()
        try configuration.apply(file: "verification-profile = standard\n")
        #expect(configuration.verificationProfile == .tolerateSODDeviations)
        try configuration.apply(file: "verification-profile = tolerate-sod-deviations\n")
        #expect(configuration.verificationProfile == .tolerateSODDeviations)
    }
}
