import MRTDCore
import MRTDProtocol
import MRTDSimulation
import Testing

/// TR-03105-5.1 §6.4, EF.DG3 (fingerprints): CFG.DFLT.EAC with DG3 replaced (its SOD hash and the
/// SOD signature made anew, so the document stays authentic), read after Chip and Terminal
/// Authentication. Defects are reported by the `dataGroupStructure` check (`dg3Malformed`, status
/// `invalid`), the way a malformed DG2 is.
@Suite(.statusAsserted) struct LDS_D {
    typealias B = ConformanceBiometrics

    static func read(_ dg3: [UInt8]) async throws -> Conformance.Outcome {
        await Conformance.read(try LDSFileEdits.chip(.eac, replacing: [3: dg3]), try LDSFileEdits.eacOptions())
    }

    /// Fingerprint set 1 (two WSQ) with instance 1 changed by `edit`.
    static func firstInstance(_ edit: (inout ConformanceBiometrics.Instance) -> Void) -> [UInt8] {
        var instances = B.fingerprintSet1
        edit(&instances[0])
        return B.group(.dg(3), instances)
    }

    /// §6.4.1, CFG.EAC.LDS.D01: fingerprint set 2, two JPEG 2000 images (right and left index):
    /// inspection successful.
    @Test func LDS_D_01() async throws {
        let outcome = try await Self.read(B.group(.dg(3), B.fingerprintSet2))
        LDSFileEdits.expectBiometricsRead(outcome, dg: 3, formats: ["JPEG 2000", "JPEG 2000"], positions: ["rightIndex", "leftIndex"])
    }

    /// §6.4.2, CFG.DFLT.EAC as it is: fingerprint set 1, two WSQ images: inspection successful.
    @Test func LDS_D_02() async throws {
        let outcome = try await Conformance.read(.eac, LDSFileEdits.eacOptions())
        #expect(outcome.read.files[.dg(3)] == B.group(.dg(3), B.fingerprintSet1))
        LDSFileEdits.expectBiometricsRead(outcome, dg: 3, formats: ["WSQ", "WSQ"], positions: ["rightIndex", "leftIndex"])
    }

    /// §6.4.3, CFG.EAC.LDS.D03: fingerprint set 3, three WSQ images (right index, left index, right
    /// thumb), instance count 3: inspection successful.
    @Test func LDS_D_03() async throws {
        let outcome = try await Self.read(B.group(.dg(3), B.fingerprintSet3))
        LDSFileEdits.expectBiometricsRead(
            outcome, dg: 3, formats: ["WSQ", "WSQ", "WSQ"], positions: ["rightIndex", "leftIndex", "rightThumb"])
    }

    /// §6.4.4, CFG.EAC.LDS.D04: DG3's outer tag 63 replaced by 64: inspection failed (DG3 malformed).
    @Test func LDS_D_04() async throws {
        let dg3 = LDSFileEdits.withOuterTag(B.group(.dg(3), B.fingerprintSet1), 0x64)
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "0x64")
    }

    /// §6.4.5, CFG.EAC.LDS.D05: DG3's outer length one less than its content: inspection failed.
    /// The IS reads the length the header declares, so the file as read lacks its last byte: DG3
    /// is malformed (its templates run past the end) and its hash no longer matches the SOD.
    @Test func LDS_D_05() async throws {
        let dg3 = try LDSFileEdits.withOuterLength(B.group(.dg(3), B.fingerprintSet1), delta: -1)
        let outcome = try await Self.read(dg3)
        LDSFileEdits.expectBiometricsMalformed(outcome, dg: 3, detail: "DG3", hashValid: false)
        #expect(outcome.result.checks.passiveAuthentication.result == .failed)
    }

    /// §6.4.6, CFG.EAC.LDS.D06: DG3's outer length one more than the bytes present: inspection failed.
    @Test func LDS_D_06() async throws {
        let dg3 = try LDSFileEdits.withOuterLength(B.group(.dg(3), B.fingerprintSet1), delta: 1)
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "DG3")
    }

    /// §6.4.7, CFG.EAC.LDS.D07: the number of instances (02) left out of 7F61: inspection failed.
    @Test func LDS_D_07() async throws {
        let dg3 = B.group(.dg(3), B.fingerprintSet1, withoutInstanceCount: true)
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "number of instances")
    }

    /// §6.4.8, CFG.EAC.LDS.D08: format owner 01FF in instance 1's BHT: inspection failed.
    @Test func LDS_D_08() async throws {
        let dg3 = Self.firstInstance { $0.formatOwner = [0x01, 0xFF] }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "format owner 01FF")
    }

    /// §6.4.9, CFG.EAC.LDS.D09: no format owner (87) in instance 1's BHT: inspection failed.
    @Test func LDS_D_09() async throws {
        let dg3 = Self.firstInstance { $0.formatOwner = nil }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "lacks the format owner")
    }

    /// §6.4.10, CFG.EAC.LDS.D10: format type 0009 (iris) in instance 1's BHT of a finger record:
    /// inspection failed.
    @Test func LDS_D_10() async throws {
        let dg3 = Self.firstInstance { $0.formatType = [0x00, 0x09] }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "format type 0009")
    }

    /// §6.4.11, CFG.EAC.LDS.D11: no format type (88) in instance 1's BHT: inspection failed.
    @Test func LDS_D_11() async throws {
        let dg3 = Self.firstInstance { $0.formatType = nil }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "lacks the format type")
    }

    /// §6.4.12, CFG.EAC.LDS.D12: biometric subtype FE (no finger) in instance 1's BHT: inspection failed.
    @Test func LDS_D_12() async throws {
        let dg3 = Self.firstInstance { $0.subtype = [0xFE] }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "biometric subtype FE")
    }

    /// §6.4.13, CFG.EAC.LDS.D13: no biometric subtype (82) in instance 1's BHT: inspection failed.
    @Test func LDS_D_13() async throws {
        let dg3 = Self.firstInstance { $0.subtype = nil }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "lacks the biometric subtype")
    }

    /// §6.4.14, CFG.EAC.LDS.D14 (profile ISO19794-4): instance 1's finger record starts `PIR\0`
    /// instead of `FIR\0`: inspection failed.
    @Test func LDS_D_14() async throws {
        let dg3 = Self.firstInstance { $0.record?[0] = 0x50 }
        LDSFileEdits.expectBiometricsMalformed(try await Self.read(dg3), dg: 3, detail: "format identifier is 50495200")
    }

    /// §6.4.15, CFG.EAC.LDS.D15: the second 7F60 has no biometric data block 5F2E (instance count
    /// still 2): inspection failed.
    @Test func LDS_D_15() async throws {
        var instances = B.fingerprintSet1
        instances[1].record = nil
        let outcome = try await Self.read(B.group(.dg(3), instances))
        LDSFileEdits.expectBiometricsMalformed(outcome, dg: 3, detail: "template 2")
    }

    /// §6.4.16, CFG.EAC.LDS.D16: two uncompressed (RAW, compression 0) finger images, right and left
    /// index: inspection successful.
    @Test func LDS_D_16() async throws {
        let dg3 = B.group(.dg(3), [B.finger(position: 2, .raw), B.finger(position: 7, .raw)])
        LDSFileEdits.expectBiometricsRead(try await Self.read(dg3), dg: 3, formats: ["raw", "raw"], positions: ["rightIndex", "leftIndex"])
    }
}
