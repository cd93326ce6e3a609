import MRTDCore
import MRTDProtocol
import MRTDSimulation
import Testing

/// TR-03105-5.1 §6.6, EF.DG14: CFG.DFLT.EAC with DG14 damaged (its SOD hash and the SOD signature
/// made anew, so the document stays authentic). The inspection system cannot perform Chip
/// Authentication with it: "inspection procedure failed" is the `chipAuthentication` check `failed`
/// with a specific reason (the product's verdict rule: passive authentication decides `status`, a
/// failed Chip Authentication is its own failed check, docs/verification.md), and without Chip
/// Authentication no Terminal Authentication: DG3 and DG4 are not read.
@Suite(.statusAsserted) struct LDS_F {
    static func read(_ dg14: [UInt8]) async throws -> Conformance.Outcome {
        await Conformance.read(try LDSFileEdits.chip(.eac, replacing: [14: dg14]), try LDSFileEdits.eacOptions())
    }

    static func defaultDG14() throws -> [UInt8] { try LDSFileEdits.dataGroup(.eac, 14) }

    /// Chip Authentication failed for `reason`, so the inspection failed (`invalid`: the read went on,
    /// the chip is not shown genuine), nothing behind EAC read, no CA command (MSE:Set AT / KAT or
    /// GENERAL AUTHENTICATE) sent with a key from the broken DG14.
    static func expectChipAuthenticationFailed(
        _ outcome: Conformance.Outcome, reason: String, hashValid: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let r = outcome.result
        Conformance.expectStatus(r, .invalid, sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.result == .failed, "\(r.checks.chipAuthentication)", sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.reason == reason, "\(r.checks.chipAuthentication)", sourceLocation: sourceLocation)
        #expect(r.checks.terminalAuthentication?.result != .passed, sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(3)] == nil && outcome.read.files[.dg(4)] == nil, sourceLocation: sourceLocation)
        #expect(outcome.commands(ins: 0x86).isEmpty, "no GENERAL AUTHENTICATE", sourceLocation: sourceLocation)
        #expect(r.checks.passiveAuthentication.result == (hashValid ? .passed : .failed), sourceLocation: sourceLocation)
    }

    /// §6.6.1, CFG.EAC.LDS.F01: DG14's outer tag 6E replaced by 6F: inspection failed (DG14 unusable).
    @Test func LDS_F_01() async throws {
        let outcome = try await Self.read(LDSFileEdits.withOuterTag(try Self.defaultDG14(), 0x6F))
        Self.expectChipAuthenticationFailed(outcome, reason: "chipAuthenticationDG14Malformed")
    }

    /// §6.6.2, CFG.EAC.LDS.F02: DG14's outer length one less than its content: inspection failed. The
    /// IS reads what the header declares, so DG14 as read lacks its last byte: it does not parse, and
    /// its hash does not match the SOD.
    @Test func LDS_F_02() async throws {
        let outcome = try await Self.read(try LDSFileEdits.withOuterLength(try Self.defaultDG14(), delta: -1))
        Self.expectChipAuthenticationFailed(outcome, reason: "chipAuthenticationDG14Malformed", hashValid: false)
    }

    /// §6.6.3, CFG.EAC.LDS.F03: DG14's outer length one more than the bytes present: inspection failed.
    @Test func LDS_F_03() async throws {
        let outcome = try await Self.read(try LDSFileEdits.withOuterLength(try Self.defaultDG14(), delta: 1))
        Self.expectChipAuthenticationFailed(outcome, reason: "chipAuthenticationDG14Malformed")
    }

    /// §6.6.4, CFG.EAC.LDS.F04: the ChipAuthenticationPublicKeyInfo's protocol OID replaced by
    /// 0.4.0.127.0.7.2.2.1.3 (nothing under id-PK): no usable key for the ChipAuthenticationInfo,
    /// inspection failed.
    @Test func LDS_F_04() async throws {
        let dg14 = try LDSFileEdits.editDG14(try Self.defaultDG14()) { elements in
            let index = try #require(elements.firstIndex { LDSFileEdits.isPublicKeyInfo($0) })
            elements[index] = try LDSFileEdits.editElement(elements[index]) { children in
                children[0] = TLV.encode(tag: 0x06, value: [0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x01, 0x03])
            }
        }
        Self.expectChipAuthenticationFailed(try await Self.read(dg14), reason: "chipAuthenticationDG14Malformed")
    }

    /// §6.6.5, CFG.EAC.LDS.F05: the ChipAuthenticationPublicKeyInfo's protocol OID removed (the
    /// SEQUENCE starts with the key): not a SecurityInfo, inspection failed.
    @Test func LDS_F_05() async throws {
        let dg14 = try LDSFileEdits.editDG14(try Self.defaultDG14()) { elements in
            let index = try #require(elements.firstIndex { LDSFileEdits.isPublicKeyInfo($0) })
            elements[index] = try LDSFileEdits.editElement(elements[index]) { $0.removeFirst() }
        }
        Self.expectChipAuthenticationFailed(try await Self.read(dg14), reason: "chipAuthenticationDG14Malformed")
    }

    /// §6.6.6, CFG.EAC.LDS.F06: ChipAuthenticationInfo.version 10 (only 1 and 2 are defined):
    /// inspection failed.
    @Test func LDS_F_06() async throws {
        let dg14 = try LDSFileEdits.editDG14(try Self.defaultDG14()) { elements in
            let index = try #require(elements.firstIndex { LDSFileEdits.isChipAuthenticationInfo($0) })
            elements[index] = try LDSFileEdits.editElement(elements[index]) { $0[1] = TLV.encode(tag: 0x02, value: [10]) }
        }
        Self.expectChipAuthenticationFailed(try await Self.read(dg14), reason: "chipAuthenticationDG14Malformed")
    }

    /// §6.6.7, CFG.EAC.LDS.F07: ChipAuthenticationInfo without its version: inspection failed.
    @Test func LDS_F_07() async throws {
        let dg14 = try LDSFileEdits.editDG14(try Self.defaultDG14()) { elements in
            let index = try #require(elements.firstIndex { LDSFileEdits.isChipAuthenticationInfo($0) })
            elements[index] = try LDSFileEdits.editElement(elements[index]) { $0.removeSubrange(1...) }
        }
        Self.expectChipAuthenticationFailed(try await Self.read(dg14), reason: "chipAuthenticationDG14Malformed")
    }
}
