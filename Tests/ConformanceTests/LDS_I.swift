import MRTDCore
import MRTDProtocol
import MRTDSimulation
import Testing

/// TR-03105-5.1 §6.9, EF.DG15: CFG.DFLT.EACAA with DG15's outer tag or length damaged (its SOD hash
/// and the SOD signature made anew). The inspection system cannot take the Active Authentication
/// key from it: "inspection procedure failed" is the `activeAuthentication` check `failed`
/// (`activeAuthenticationKeyInvalid`), no INTERNAL AUTHENTICATE sent with a key it could not read;
/// passive authentication still decides `status` (docs/verification.md).
@Suite(.statusAsserted) struct LDS_I {
    static func read(_ dg15: [UInt8]) async throws -> Conformance.Outcome {
        await Conformance.read(try LDSFileEdits.chip(.eacAA, replacing: [15: dg15]), try LDSFileEdits.eacOptions())
    }

    static func defaultDG15() throws -> [UInt8] {
        let dg15 = try LDSFileEdits.dataGroup(.eacAA, 15)
        #expect(dg15.first == 0x6F)
        return dg15
    }

    static func expectActiveAuthenticationFailed(
        _ outcome: Conformance.Outcome, hashValid: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let r = outcome.result
        // A failed Active Authentication is a failed inspection (a possible clone): `invalid`.
        Conformance.expectStatus(r, .invalid, sourceLocation: sourceLocation)
        #expect(r.checks.activeAuthentication.result == .failed, "\(r.checks.activeAuthentication)", sourceLocation: sourceLocation)
        #expect(r.checks.activeAuthentication.reason == "activeAuthenticationKeyInvalid", "\(r.checks.activeAuthentication)",
                sourceLocation: sourceLocation)
        #expect(outcome.commands(ins: 0x88).isEmpty, "no INTERNAL AUTHENTICATE", sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(r.checks.passiveAuthentication.result == (hashValid ? .passed : .failed), sourceLocation: sourceLocation)
    }

    /// §6.9.1, CFG.EAC.LDS.I01: DG15's outer tag 6F replaced by 70: inspection failed.
    @Test func LDS_I_01() async throws {
        Self.expectActiveAuthenticationFailed(try await Self.read(LDSFileEdits.withOuterTag(try Self.defaultDG15(), 0x70)))
    }

    /// §6.9.2, CFG.EAC.LDS.I02: DG15's outer length one less than its content (first byte 6F; the
    /// plan's 67 is a typo): inspection failed. DG15 as read (the declared length) lacks its last
    /// byte: no key, and a hash that does not match the SOD.
    @Test func LDS_I_02() async throws {
        let outcome = try await Self.read(try LDSFileEdits.withOuterLength(try Self.defaultDG15(), delta: -1))
        Self.expectActiveAuthenticationFailed(outcome, hashValid: false)
    }

    /// §6.9.3, CFG.EAC.LDS.I03: DG15's outer length one more than the bytes present: inspection failed.
    @Test func LDS_I_03() async throws {
        Self.expectActiveAuthenticationFailed(try await Self.read(try LDSFileEdits.withOuterLength(try Self.defaultDG15(), delta: 1)))
    }
}
