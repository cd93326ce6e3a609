import MRTDCore
import MRTDProtocol
import MRTDSimulation
import Testing

/// TR-03105-5.1 §6.7, EF.CVCA (not hashed in the SOD): CFG.DFLT.EAC with EF.CVCA changed. The
/// inspection system cannot choose a trust point: "inspection procedure failed" is the
/// `terminalAuthentication` check `failed` with a specific reason, DG3 and DG4 not read (skipped);
/// TA asked for and failed on the chip's side is a failed inspection: `invalid` (docs/verification.md).
@Suite(.statusAsserted) struct LDS_G {
    static func expectTerminalAuthenticationFailed(
        _ outcome: Conformance.Outcome, reason: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let r = outcome.result
        // TA was asked for and the chip's EF.CVCA is wrong: the inspection failed (`invalid`).
        Conformance.expectStatus(r, .invalid, sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(r.checks.terminalAuthentication?.result == .failed, "\(String(describing: r.checks.terminalAuthentication))",
                sourceLocation: sourceLocation)
        #expect(r.checks.terminalAuthentication?.reason == reason, "\(String(describing: r.checks.terminalAuthentication))",
                sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(3)] == nil && outcome.read.files[.dg(4)] == nil, sourceLocation: sourceLocation)
        #expect(Set(r.dataGroupsSkipped.map(\.file)) == ["DG3", "DG4"], "\(r.dataGroupsSkipped)", sourceLocation: sourceLocation)
        // No certificate presented for a trust point the chip did not name (no PSO:Verify Certificate).
        #expect(outcome.commands(ins: 0x2A).isEmpty, sourceLocation: sourceLocation)
    }

    /// §6.7.1, CFG.EAC.LDS.G01: EF.CVCA's one CAR with tag 00 instead of 42: inspection failed.
    @Test func LDS_G_01() async throws {
        var chip = try ConformanceProfile.eac.document().chip()
        var cvca = try #require(chip.files[.cvca])
        #expect(cvca.first == 0x42)
        cvca[0] = 0x00
        chip.files[.cvca] = cvca
        Self.expectTerminalAuthenticationFailed(
            await Conformance.read(chip, try LDSFileEdits.eacOptions()), reason: "terminalEFCVCAInvalid")
    }

    /// §6.7.2, CFG.EAC.LDS.G02: EF.CVCA all 00 (no CAR) and no trust point in the chip: inspection failed.
    @Test func LDS_G_02() async throws {
        var chip = try ConformanceProfile.eac.document().chip()
        let size = try #require(chip.files[.cvca]).count
        chip.files[.cvca] = [UInt8](repeating: 0, count: size)
        chip.eac?.trustPoints = []
        Self.expectTerminalAuthenticationFailed(
            await Conformance.read(chip, try LDSFileEdits.eacOptions()), reason: "terminalEFCVCAInvalid")
    }
}
