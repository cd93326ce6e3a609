import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import Testing

/// Unit ISO7816_A, application selection (plan §5.1; all three cases moved to the ICAO test
/// specification, ICAO-P4 ISO7816_A_01/02/04: readings in notes/ISO7816_A.tsv).
@Suite(.statusAsserted) struct ISO7816_A {
    /// An unprotected chip (CFG.DFLT.PLAIN: no BAC, every file in plain): the reader selects the
    /// application, finds no access control, reads in plain and passive authentication decides.
    @Test func ISO7816_A_01() async throws {
        let outcome = try await Conformance.read(.plain, Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.access?.protocol == "none")
        #expect(outcome.result.checks.passiveAuthentication.result == .passed)
        #expect(outcome.read.files[.dg(1)] != nil && outcome.read.files[.dg(2)] != nil)
        // Nothing was sent under secure messaging: there was none to use.
        #expect(outcome.commands.allSatisfy { $0[0] & 0x0C == 0 })
    }

    /// A BAC chip (CFG.DFLT.BAC): BAC, then every file under secure messaging; successful.
    @Test func ISO7816_A_02() async throws {
        let outcome = try await Conformance.read(.bac, Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.access?.protocol == "BAC")
        #expect(outcome.commands(ins: 0x82).count == 1)
        let reads = outcome.commands(ins: 0xB0) + outcome.commands(ins: 0xB1)
        // EF.CardAccess is probed in plain in the master file; every LDS1 read is protected.
        #expect(reads.filter { $0[0] & 0x0C == 0x0C }.count >= 4)
    }

    /// The chip refuses the selection of the eMRTD application: the read stops there, reports that
    /// this is not an eMRTD it can read, and never runs BAC nor reads a data group.
    @Test func ISO7816_A_03() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.applicationSelectStatus = .fileNotFound
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .notAnEMRTD)
        #expect(outcome.commands(ins: 0x84).isEmpty && outcome.commands(ins: 0x82).isEmpty)
        #expect(outcome.read.files[.dg(1)] == nil)
    }
}
