import Foundation
import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import MRTDVerification
import Testing

/// BSI TR-03105 Part 5.1, unit ISO7816_E, the Terminal Authentication cases: TA after PACE (5.5.31)
/// and the chip's trust-point update by CVCA link certificates (5.5.32 to 5.5.34). The other cases of
/// the unit are in `ISO7816_E`.
@Suite(.statusAsserted) struct ISO7816_E_TerminalAuthentication {
    /// Reads `chip` and keeps it, to look at its trust points afterwards.
    static func read(_ chip: VirtualChipConfiguration, _ options: ReadOptions) async -> (Conformance.Outcome, VirtualChip) {
        let virtual = VirtualChip(configuration: chip)
        let recorder = RecordingTransport(virtual)
        let read = await DocumentReader.read(transport: recorder, options: options)
        return (Conformance.Outcome(read: read, exchanges: recorder.exchanges), virtual)
    }

    /// CFG.DFLT.EAC's chip, trusting only `trustPoints` (EF.CVCA names them).
    static func eacChip(trusting trustPoints: [CVCertificate]) throws -> VirtualChipConfiguration {
        var chip = try ConformanceProfile.eac.document().chip()
        let eac = VirtualEAC(trustPoints: trustPoints, currentDate: CVDate(Date()))
        chip.eac = eac
        chip.files[.cvca] = eac.efCVCA
        return chip
    }

    static func options(_ credentials: TerminalCredentials) throws -> ReadOptions {
        var options = try Conformance.options(dataGroups: [1, 2, 3, 4, 14])
        options.terminal = credentials
        return options
    }

    /// "Inspection procedure successful" with TA: valid, PA, CA and TA passed, DG3 and DG4 read.
    static func expectSuccessfulWithTA(_ outcome: Conformance.Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        let r = outcome.result
        Conformance.expectStatus(r, .valid, "\(r.status) \(String(describing: r.error)) \(r.warnings)", sourceLocation: sourceLocation)
        #expect(r.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(r.checks.chipAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(r.checks.terminalAuthentication?.result == .passed, "\(String(describing: r.checks.terminalAuthentication))",
                sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(3)] == EACTestSet.biometricDataGroups[3], sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(4)] == EACTestSet.biometricDataGroups[4], sourceLocation: sourceLocation)
        #expect(r.dataGroupsSkipped.isEmpty, "\(r.dataGroupsSkipped)", sourceLocation: sourceLocation)
    }

    /// MSE:Set DST (`22 81B6`) commands sent, under secure messaging.
    static func setDST(_ outcome: Conformance.Outcome) -> Int {
        outcome.commands(ins: 0x22).filter { $0[2] == 0x81 && $0[3] == 0xB6 }.count
    }

    /// 5.5.31: CFG.DFLT.EACPACE with BAC switched off on the chip: the inspection system must open
    /// it with PACE, then run CA and TA; TA's `ID_PICC` is Comp() of the chip's ephemeral PACE key
    /// (TR-03110-1 §4.4), which the virtual chip checks the signature against. Expected: successful.
    @Test func ISO7816_E_31() async throws {
        var document = try ConformanceProfile.eacPACE.document()
        document.access = .paceOnly
        let outcome = await Conformance.read(
            try document.chip(), try Conformance.options(dataGroups: [1, 2, 3, 4, 14], terminal: true))
        Self.expectSuccessfulWithTA(outcome)
        #expect(outcome.result.access?.protocol == "PACE")
        #expect(outcome.result.access?.fallback == nil)
        // No BAC attempted (GET CHALLENGE in plain), exactly one TA signature (EXTERNAL AUTHENTICATE under SM).
        #expect(outcome.commands(ins: 0x84).filter { $0[0] & 0x0C == 0 }.isEmpty)
        #expect(outcome.commands(ins: 0x82).filter { $0[0] & 0x0C == 0x0C }.count == 1)
    }

    /// 5.5.32: the chip trusts the old CVCA only; the terminal's DV hangs under a new CVCA that a
    /// CVCA link certificate (new key signed by the old) introduces. The inspection system presents
    /// the link certificate first (MSE:Set DST old CVCA, PSO:Verify link), then DV and IS under the new
    /// key; the chip takes the new key as a trust point. Expected: successful.
    @Test func ISO7816_E_32() async throws {
        let old = try EACTestSet.make(sequence: "00015"), new = try EACTestSet.make(sequence: "00016")
        let link = try new.linkCertificate(from: old)
        let (outcome, chip) = await Self.read(try Self.eacChip(trusting: [old.cvca]),
                                              try Self.options(new.credentials(links: [link])))
        Self.expectSuccessfulWithTA(outcome)
        #expect(outcome.result.checks.terminalAuthentication?.chain
            == ["UTCVCA00015", "UTCVCA00016", "UTDVTEST00016", "UTISTEST00016"])
        #expect(outcome.commands(ins: 0x2A).count == 3)
        #expect(Self.setDST(outcome) == 3)
        #expect(await chip.terminalTrustPoints.map(\.holderReference) == ["UTCVCA00015", "UTCVCA00016"])
        // The update is the chip's, not the session's: presented again, it names both trust points in
        // EF.CVCA and a terminal without the link certificate passes TA from the new CVCA.
        await chip.reset()
        let recorder = RecordingTransport(chip)
        let again = await DocumentReader.read(transport: recorder, options: try Self.options(new.credentials()))
        Self.expectSuccessfulWithTA(Conformance.Outcome(read: again, exchanges: recorder.exchanges))
        #expect(again.result.checks.terminalAuthentication?.chain == ["UTCVCA00016", "UTDVTEST00016", "UTISTEST00016"])
    }

    /// 5.5.33: two CVCA key rollovers since the chip's trust point: two link certificates in turn
    /// (old → second, second → third), then DV and IS under the third. Expected: successful.
    @Test func ISO7816_E_33() async throws {
        let first = try EACTestSet.make(sequence: "00015"), second = try EACTestSet.make(sequence: "00016")
        let third = try EACTestSet.make(sequence: "00017")
        let links = [try second.linkCertificate(from: first), try third.linkCertificate(from: second)]
        let (outcome, chip) = await Self.read(try Self.eacChip(trusting: [first.cvca]),
                                              try Self.options(third.credentials(links: links)))
        Self.expectSuccessfulWithTA(outcome)
        #expect(outcome.result.checks.terminalAuthentication?.chain
            == ["UTCVCA00015", "UTCVCA00016", "UTCVCA00017", "UTDVTEST00017", "UTISTEST00017"])
        #expect(outcome.commands(ins: 0x2A).count == 4)
        // The chip holds two trust points: the newest and the one before it.
        #expect(await chip.terminalTrustPoints.map(\.holderReference) == ["UTCVCA00016", "UTCVCA00017"])
    }

    /// 5.5.34: the chip already trusts the new CVCA (EF.CVCA names the link certificate's holder);
    /// the terminal still has the link certificate. The chain starts at the trust point EF.CVCA
    /// names, so the link certificate is not sent (the chip, not knowing the old key, would refuse
    /// it). Expected: successful.
    @Test func ISO7816_E_34() async throws {
        let old = try EACTestSet.make(sequence: "00015"), new = try EACTestSet.make(sequence: "00016")
        let link = try new.linkCertificate(from: old)
        let (outcome, chip) = await Self.read(try Self.eacChip(trusting: [new.cvca]),
                                              try Self.options(new.credentials(links: [link])))
        Self.expectSuccessfulWithTA(outcome)
        #expect(outcome.result.checks.terminalAuthentication?.chain == ["UTCVCA00016", "UTDVTEST00016", "UTISTEST00016"])
        #expect(outcome.commands(ins: 0x2A).count == 2)
        #expect(await chip.terminalTrustPoints.map(\.holderReference) == ["UTCVCA00016"])
    }
}
