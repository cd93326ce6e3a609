import MRTDCore
import MRTDProtocol
import MRTDSimulation
import Testing

/// TR-03105-5.1 §6.5, EF.DG4 (irises): CFG.DFLT.EAC with DG4 replaced (its SOD hash and the SOD
/// signature made anew), read after Chip and Terminal Authentication. Defects are reported by the
/// `dataGroupStructure` check (`dg4Malformed`, status `invalid`), the way a malformed DG2 is.
@Suite(.statusAsserted) struct LDS_E {
    typealias B = ConformanceBiometrics

    static func read(_ dg4: [UInt8]) async throws -> Conformance.Outcome {
        await Conformance.read(try LDSFileEdits.chip(.eac, replacing: [4: dg4]), try LDSFileEdits.eacOptions())
    }

    /// Iris set 1 (two RAW) with instance 1 changed by `edit`.
    static func firstInstance(_ edit: (inout ConformanceBiometrics.Instance) -> Void) -> [UInt8] {
        var instances = B.irisSet1
        edit(&instances[0])
        return B.group(.dg(4), instances)
    }

    /// §6.5.1, CFG.EAC.LDS.E01: iris set 2, two JPEG 2000 images (right and left eye): inspection successful.
    @Test func LDS_E_01() async throws {
        let outcome = try await Self.read(B.group(.dg(4), B.irisSet2))
        LDSFileEdits.expectBiometricsRead(outcome, dg: 4, formats: ["JPEG 2000", "JPEG 2000"], positions: ["rightEye", "leftEye"])
    }

    /// §6.5.2, CFG.DFLT.EAC as it is: iris set 1, two RAW images: inspection successful.
    @Test func LDS_E_02() async throws {
        let outcome = try await Conformance.read(.eac, LDSFileEdits.eacOptions())
        #expect(outcome.read.files[.dg(4)] == B.group(.dg(4), B.irisSet1))
        LDSFileEdits.expectBiometricsRead(outcome, dg: 4, formats: ["raw", "raw"], positions: ["rightEye", "leftEye"])
    }

    /// §6.5.3, CFG.EAC.LDS.E03: DG4's outer tag 76 replaced by 77: inspection failed (DG4 malformed).
    @Test func LDS_E_03() async throws {
        let dg4 = LDSFileEdits.withOuterTag(B.group(.dg(4), B.irisSet1), 0x77)
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "0x77")
    }

    /// §6.5.4, CFG.EAC.LDS.E04: DG4's outer length one less than its content: inspection failed. The
    /// IS reads the length the header declares: the file as read lacks its last byte (malformed, and
    /// its hash no longer matches the SOD).
    @Test func LDS_E_04() async throws {
        let dg4 = try LDSFileEdits.withOuterLength(B.group(.dg(4), B.irisSet1), delta: -1)
        let outcome = try await Self.read(dg4)
        LDSFileEdits.expectBiometricsMalformed(outcome, dg: 4, detail: "DG4", hashValid: false)
        #expect(outcome.result.checks.passiveAuthentication.result == .failed)
    }

    /// §6.5.5, CFG.EAC.LDS.E05: DG4's outer length one more than the bytes present: inspection failed.
    @Test func LDS_E_05() async throws {
        let dg4 = try LDSFileEdits.withOuterLength(B.group(.dg(4), B.irisSet1), delta: 1)
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "DG4")
    }

    /// §6.5.6, CFG.EAC.LDS.E06: the number of instances (02) left out of 7F61: inspection failed.
    @Test func LDS_E_06() async throws {
        let dg4 = B.group(.dg(4), B.irisSet1, withoutInstanceCount: true)
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "number of instances")
    }

    /// §6.5.7, CFG.EAC.LDS.E07: format owner 01FF in instance 1's BHT: inspection failed.
    @Test func LDS_E_07() async throws {
        let dg4 = Self.firstInstance { $0.formatOwner = [0x01, 0xFF] }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "format owner 01FF")
    }

    /// §6.5.8, CFG.EAC.LDS.E08: no format owner (87) in instance 1's BHT: inspection failed.
    @Test func LDS_E_08() async throws {
        let dg4 = Self.firstInstance { $0.formatOwner = nil }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "lacks the format owner")
    }

    /// §6.5.9, CFG.EAC.LDS.E09: format type 000F (no iris record format) in instance 1's BHT: inspection failed.
    @Test func LDS_E_09() async throws {
        let dg4 = Self.firstInstance { $0.formatType = [0x00, 0x0F] }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "format type 000F")
    }

    /// §6.5.10, CFG.EAC.LDS.E10: no format type (88) in instance 1's BHT: inspection failed.
    @Test func LDS_E_10() async throws {
        let dg4 = Self.firstInstance { $0.formatType = nil }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "lacks the format type")
    }

    /// §6.5.11, CFG.EAC.LDS.E11: biometric subtype FE (no eye) in instance 1's BHT: inspection failed.
    @Test func LDS_E_11() async throws {
        let dg4 = Self.firstInstance { $0.subtype = [0xFE] }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "biometric subtype FE")
    }

    /// §6.5.12, CFG.EAC.LDS.E12: no biometric subtype (82) in instance 1's BHT: inspection failed.
    @Test func LDS_E_12() async throws {
        let dg4 = Self.firstInstance { $0.subtype = nil }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "lacks the biometric subtype")
    }

    /// §6.5.13, CFG.EAC.LDS.E13 (profile ISO19794-6): instance 1's iris record starts `FIS\0`
    /// instead of `IIR\0`: inspection failed.
    @Test func LDS_E_13() async throws {
        let dg4 = Self.firstInstance { $0.record?.replaceSubrange(0..<4, with: [0x46, 0x49, 0x53, 0x00]) }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg4), dg: 4, detail: "format identifier is 46495300")
    }

    /// §6.5.14, CFG.EAC.LDS.E14: the second 7F60 has no iris image 5F2E (instance count still 2):
    /// inspection failed.
    @Test func LDS_E_14() async throws {
        var instances = B.irisSet1
        instances[1].record = nil
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(B.group(.dg(4), instances)), dg: 4, detail: "template 2")
    }
}
