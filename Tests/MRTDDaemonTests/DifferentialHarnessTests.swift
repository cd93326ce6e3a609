import Foundation
import MRTDClient
import MRTDCore
import MRTDCrypto
import MRTDVerification
import MRTDProtocol
import MRTDSimulation
import MRTDTesting
import Testing
@testable import MRTDDaemon

/// The four failure cases of the public emrtd-differential-harness (kazuru-chidumbwe, 2026), which
/// scores how a reader tells a caller that a security step failed: 0 when a caller checking only the
/// session's outcome is not told, 1 when it shows only in trace or detail fields, 2 when the caller
/// must handle it. Each case here runs in the default configuration through the daemon's API, as a
/// service reads it, and asserts score 2: `status` is not `valid` (or, for the allowed PACE to BAC
/// fallback, the downgrade is in `warnings` and `statusDetail`). docs/conformance.md has the table.
@Suite(.serialized) struct DifferentialHarnessTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    /// Reads `chip` through a daemon (the TEST-ONLY CSCA trusted; `terminal` as `terminal-directory`).
    static func read(
        _ chip: VirtualChipConfiguration, dataGroups: [Int]? = nil, terminal: TerminalCredentials? = nil
    ) async throws -> ReadResult {
        var engine = StandardReadEngine(store: try testTrustStore(), summary: TrustStoreSummary(paths: ["test"], testOnly: true))
        engine.terminal = terminal
        let daemon = try await TestDaemon.start(engine: engine)
        daemon.backend.insert(chip, into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access, dataGroups: dataGroups), wait: true)
        try await daemon.stop()
        return try #require(done.result, "\(done)")
    }

    /// The specimen with a Chip Authentication key (DG14) and an Active Authentication key (DG15).
    static func authenticatingChip(_ change: (inout VirtualChipAuthentication) -> Void = { _ in }) throws -> VirtualChipConfiguration {
        let fixture = try AuthenticationFixture.make(
            chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)],
            activeAuthentication: .rsa(bits: 2048, digest: .sha256))
        var chip = VirtualChipConfiguration(files: try fixture.specimen().files, accessKey: key)
        chip.authentication = fixture.chip
        change(&chip.authentication!)
        return chip
    }

    @Test func theHarnessChipsReadValidWhenNothingIsInjected() async throws {
        let result = try await Self.read(try Self.authenticatingChip())
        #expect(result.status == .valid, "\(String(describing: result.statusDetail))")
        #expect(result.checks.chipAuthentication.result == .passed)
        #expect(result.checks.activeAuthentication.result == .passed)
    }

    /// TC-AC-01: PACE offered in EF.CardAccess, the first PACE command (MSE:Set AT) answered 6FFF,
    /// BAC works. Doc 9303 allows the fallback, so the read goes on with BAC; the downgrade is at the
    /// top of the result: `access.fallback`, the warning `paceFallback`, and `statusDetail`.
    @Test func tcAC01PACEFailsAndTheBACFallbackIsSurfaced() async throws {
        var chip = try VirtualChipConfiguration.paceChip(
            document: try SpecimenDocument.make(), accessKey: Self.key,
            infos: [PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)])
        chip.pace?.conformance.setATStatus = StatusWord(rawValue: 0x6FFF)
        let result = try await Self.read(chip)
        #expect(result.access?.protocol == "BAC")
        #expect(result.access?.fallback?.from == "PACE")
        #expect(result.warnings.contains { $0.hasPrefix(ReadResult.paceFallback + ": ") }, "\(result.warnings)")
        #expect(result.statusDetail?.contains("opened with BAC after PACE failed") == true, "\(String(describing: result.statusDetail))")
    }

    /// TC-AC-01 under `accessPolicy: pace`: the downgrade is refused, the read fails.
    @Test func tcAC01UnderAPACEPolicyTheReadFails() async throws {
        var chip = try VirtualChipConfiguration.paceChip(
            document: try SpecimenDocument.make(), accessKey: Self.key,
            infos: [PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)])
        chip.pace?.conformance.setATStatus = StatusWord(rawValue: 0x6FFF)
        let daemon = try await TestDaemon.start()
        daemon.backend.insert(chip, into: "R1")
        let done = try await daemon.client.createRead(.init(access: Specimens.access, accessPolicy: .pace), wait: true)
        try await daemon.stop()
        #expect(done.result?.status == .failed, "\(done)")
        #expect(done.result?.access == nil)
    }

    /// TC-CA-01: the Chip Authentication command (MSE:Set AT) refused with each status word of the
    /// harness's sweep: Chip Authentication failed, the document `invalid`.
    @Test(arguments: [0x6FFF, 0x6300, 0x6982, 0x6A88, 0x6A80] as [UInt16])
    func tcCA01ARefusedChipAuthenticationIsInvalid(_ sw: UInt16) async throws {
        let result = try await Self.read(try Self.authenticatingChip { $0.chipAuthenticationRefusal = StatusWord(rawValue: sw) })
        #expect(result.status == .invalid, "\(String(describing: result.statusDetail))")
        #expect(result.checks.chipAuthentication.result == .failed, "\(result.checks.chipAuthentication)")
        #expect(result.statusDetail?.hasPrefix("failed: chipAuthentication") == true, "\(String(describing: result.statusDetail))")
    }

    /// TC-AA-01: INTERNAL AUTHENTICATE answered 6982, DG15 present and signed: Active
    /// Authentication failed, the document `invalid`.
    @Test func tcAA01ARefusedActiveAuthenticationIsInvalid() async throws {
        let result = try await Self.read(try Self.authenticatingChip { $0.activeAuthenticationRefusal = .securityStatusNotSatisfied })
        #expect(result.status == .invalid, "\(String(describing: result.statusDetail))")
        #expect(result.checks.activeAuthentication.result == .failed)
        #expect(result.checks.activeAuthentication.reason?.hasPrefix("activeAuthenticationRefused") == true,
                "\(String(describing: result.checks.activeAuthentication.reason))")
    }

    /// TC-TA-01: the first PSO:Verify Certificate answered 6982, with terminal credentials
    /// configured and DG3/DG4 asked for: Terminal Authentication failed on the chip's side, the
    /// inspection asked for failed: `invalid`; DG3/DG4 not read.
    @Test func tcTA01ARefusedTerminalCertificateIsInvalid() async throws {
        let set = try EACTestSet.fixture()
        let fixture = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)])
        let specimen = try SpecimenDocument.make(
            extraDataGroups: fixture.extraDataGroups.merging(EACTestSet.biometricDataGroups) { a, _ in a })
        var chip = VirtualChipConfiguration(files: specimen.files, accessKey: Self.key)
        chip.authentication = fixture.chip
        set.equip(&chip, chipDate: CVDate(Date()))
        let accepted = try await Self.read(chip, dataGroups: [3, 4, 14], terminal: set.credentials())
        #expect(accepted.status == .valid, "without the refusal TA passes: \(String(describing: accepted.checks.terminalAuthentication))")
        chip.eac?.certificateRefusal = .securityStatusNotSatisfied
        let result = try await Self.read(chip, dataGroups: [3, 4, 14], terminal: set.credentials())
        #expect(result.status == .invalid, "\(String(describing: result.statusDetail))")
        #expect(result.checks.terminalAuthentication?.result == .failed)
        #expect(result.checks.terminalAuthentication?.reason == ErrorCode.terminalCertificateRejectedByChip.rawValue)
        #expect(!result.dataGroupsRead.contains("DG3") && !result.dataGroupsRead.contains("DG4"))
    }
}
