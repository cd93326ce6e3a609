import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import Testing

/// Unit LDS_K (BSI TR-03105-5.1 v1.5 §6.11): EF.ATR/INFO (Doc 9303-10 §3.11) added to CFG.DFLT.EAC.
/// The reader reads it in the master file and sizes its APDUs by the extended length information
/// `7F66`; the virtual chip enforces the sizes it states (a longer command, or a READ BINARY whose
/// answer would be longer, gets `6700`), so a passing read proves the reader kept to them.
@Suite(.statusAsserted) struct LDS_K {
    /// The chip's sizes in CFG.EAC.LDS.K01/K02: 0x0780 = 1920 bytes each way.
    static let limits = VirtualAPDULimits(maxCommandLength: 0x0780, maxResponseLength: 0x0780)

    /// The default EAC inspection: DG1-DG4, DG14, DG15, with the run's terminal.
    static func options() throws -> ReadOptions {
        try Conformance.options(dataGroups: [1, 2, 3, 4, 14, 15], terminal: true)
    }

    /// CFG.DFLT.EAC with EF.ATR/INFO holding `atrInfo`; with `limits`, the chip enforces them.
    static func chip(atrInfo: [UInt8], enforcing limits: VirtualAPDULimits? = nil) throws -> VirtualChipConfiguration {
        var chip = try ConformanceProfile.eac.document().chip()
        if let limits { chip = chip.with(apduLimits: limits) }
        chip.files[.atrInfo] = atrInfo
        return chip
    }

    /// The positive cases' common expectation: a valid read whose every APDU kept to 1920 bytes,
    /// the sizes reported and used, no length refusal, and extended-length reads up to the limit.
    static func expectReadWithinLimits(_ outcome: Conformance.Outcome, atrInfo: [UInt8]) {
        let result = outcome.result
        Conformance.expectStatus(result, .valid, "\(result.status): \(result.error?.message ?? "") \(result.warnings)")
        #expect(result.checks.passiveAuthentication.result == .passed)
        #expect(result.checks.chipAuthentication.result == .passed)
        #expect(result.checks.terminalAuthentication?.result == .passed)
        #expect(result.checks.atrInfo?.result == .passed)
        #expect(outcome.read.files[.atrInfo] == atrInfo)
        #expect(result.atrInfo == ReadResult.ATRInfoReport(
            status: "read", maxCommandLength: 1920, maxResponseLength: 1920, objects: ["7F66"], applied: true))
        #expect(outcome.exchanges.allSatisfy { $0.command.count <= 1920 }, "a command longer than the chip takes")
        #expect(outcome.exchanges.allSatisfy { $0.response.count <= 1920 }, "a response longer than the chip sends")
        #expect(!outcome.exchanges.contains { $0.response == [0x67, 0x00] }, "the chip refused a length")
        #expect(result.transport.extendedLength, "extended length, within the chip's sizes")
        #expect(result.transport.maxReadLength > 0xDF && result.transport.maxReadLength <= 1920 - 2)
        // EF.ATR/INFO is read once, in the master file, before the eMRTD application is selected.
        let selectAID = outcome.commands.firstIndex { $0.count > 4 && $0[1] == 0xA4 && $0[2] == 0x04 } ?? -1
        let atrRead = outcome.commands.firstIndex { $0.count > 3 && $0[1] == 0xB0 && $0[2] == 0x81 } ?? Int.max
        #expect(atrRead < selectAID)
    }

    /// CFG.EAC.LDS.K01: `7F66` with two-byte lengths (1920/1920). Expected: inspection procedure
    /// passed; the reader keeps to the chip's sizes (plan §6.11.1).
    @Test func LDS_K_01() async throws {
        let atrInfo: [UInt8] = [0x7F, 0x66, 0x08, 0x02, 0x02, 0x07, 0x80, 0x02, 0x02, 0x07, 0x80]
        #expect(Self.limits.atrInfo(lengthBytes: 2) == atrInfo)
        let outcome = await Conformance.read(try Self.chip(atrInfo: atrInfo, enforcing: Self.limits), try Self.options())
        Self.expectReadWithinLimits(outcome, atrInfo: atrInfo)

        // The enforcement is real: a reader that does not know the sizes (the same chip, its
        // EF.ATR/INFO gone) meets 6700 at its first "everything" READ BINARY.
        var blind = try Self.chip(atrInfo: atrInfo, enforcing: Self.limits)
        blind.files[.atrInfo] = nil
        let chip = VirtualChip(configuration: blind)
        let unaware = await DocumentReader.read(transport: chip, options: try Self.options())
        #expect(await chip.apduLimitRefusals > 0, "the chip enforces its sizes")
        #expect(unaware.result.atrInfo?.status == "absent")
    }

    /// CFG.EAC.LDS.K02: `7F66` with three-byte lengths (`02 03 00 07 80`, our reconstruction: the
    /// plan's content row is lost in v1.5). Expected: inspection procedure passed (plan §6.11.2).
    @Test func LDS_K_02() async throws {
        let atrInfo: [UInt8] = [0x7F, 0x66, 0x0A, 0x02, 0x03, 0x00, 0x07, 0x80, 0x02, 0x03, 0x00, 0x07, 0x80]
        #expect(Self.limits.atrInfo(lengthBytes: 3) == atrInfo)
        let outcome = await Conformance.read(try Self.chip(atrInfo: atrInfo, enforcing: Self.limits), try Self.options())
        Self.expectReadWithinLimits(outcome, atrInfo: atrInfo)
    }

    /// CFG.EAC.LDS.K03: `7F66` with the command length only. Expected: inspection procedure failed
    /// (plan §6.11.3): the atrInfo check fails with `extendedLengthInfoMalformed`, the status is
    /// `invalid`; the chip is still read, with the reader's own sizes (the malformed ones unused).
    @Test func LDS_K_03() async throws {
        let atrInfo: [UInt8] = [0x7F, 0x66, 0x04, 0x02, 0x02, 0x07, 0x80]
        let outcome = await Conformance.read(try Self.chip(atrInfo: atrInfo), try Self.options())
        let result = outcome.result
        Conformance.expectStatus(result, .invalid)
        #expect(result.checks.atrInfo?.result == .failed)
        #expect(result.checks.atrInfo?.reason == "extendedLengthInfoMalformed")
        #expect(result.checks.atrInfo?.detail?.contains("maximum response APDU length is missing") == true)
        #expect(result.checks.passiveAuthentication.result == .passed, "the document itself is authentic")
        #expect(result.atrInfo?.status == "read")
        #expect(result.atrInfo?.applied == false)
        #expect(result.warnings.contains { $0.hasPrefix("EF.ATR/INFO:") })
        #expect(outcome.read.files[.dg(2)] != nil, "the read went on")
    }

    /// CFG.EAC.LDS.K04: `7F65` where `7F66` belongs, no `7F66`. Expected: inspection procedure failed
    /// (plan §6.11.4): the atrInfo check fails with `atrInfoUnknownObject`, the status is `invalid`.
    @Test func LDS_K_04() async throws {
        let atrInfo: [UInt8] = [0x7F, 0x65, 0x08, 0x02, 0x02, 0x07, 0x80, 0x02, 0x02, 0x07, 0x80]
        let outcome = await Conformance.read(try Self.chip(atrInfo: atrInfo), try Self.options())
        let result = outcome.result
        Conformance.expectStatus(result, .invalid)
        #expect(result.checks.atrInfo?.result == .failed)
        #expect(result.checks.atrInfo?.reason == "atrInfoUnknownObject")
        #expect(result.checks.atrInfo?.detail?.contains("7F65") == true)
        #expect(result.checks.passiveAuthentication.result == .passed, "the document itself is authentic")
        #expect(result.atrInfo?.applied == false)
        #expect(result.atrInfo?.maxCommandLength == nil)
        #expect(outcome.read.files[.dg(2)] != nil, "the read went on")
    }
}
