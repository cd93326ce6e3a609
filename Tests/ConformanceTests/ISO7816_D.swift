import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import Testing

/// Unit ISO7816_D, Chip Authentication (plan §5.4; the fifteen cases moved to the ICAO test
/// specification, ICAO-P4 ISO7816_G_01..15: readings in notes/ISO7816_D.tsv). CFG.DFLT.EAC with
/// the case's DG14 and chip, read with the run's terminal for DG3/DG4 as an EAC operator reads.
@Suite(.statusAsserted) struct ISO7816_D {
    static let groups = [1, 2, 3, 4, 14]

    func chip(_ keys: [ChipAuthenticationKeySpec], dg14Faults: DG14Faults = [],
              change: (inout VirtualChipConfiguration) -> Void = { _ in }) throws -> VirtualChipConfiguration {
        var document = try ConformanceProfile.eac.document()
        document.authentication = try AuthenticationFixture.make(chipAuthentication: keys, dg14Faults: dg14Faults)
        var chip = try document.chip()
        change(&chip)
        return chip
    }

    func read(_ chip: VirtualChipConfiguration) async throws -> Conformance.Outcome {
        await Conformance.read(chip, try Conformance.options(dataGroups: Self.groups, terminal: true))
    }

    func expectPassed(_ outcome: Conformance.Outcome) {
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.chipAuthentication.result == .passed, "\(outcome.result.checks.chipAuthentication.reason ?? "")")
        #expect(outcome.read.files[.dg(3)] != nil && outcome.read.files[.dg(4)] != nil)
    }

    /// Chip Authentication failed with a reason, so the chip is not shown genuine: `invalid`;
    /// DG3/DG4 (behind EAC) not read.
    func expectFailed(_ outcome: Conformance.Outcome) {
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.checks.chipAuthentication.result == .failed)
        #expect(outcome.result.checks.chipAuthentication.reason != nil)
        #expect(outcome.read.files[.dg(3)] == nil && outcome.read.files[.dg(4)] == nil)
    }

    /// CA with a DH key (id-CA-DH-3DES-CBC-CBC, 1024-bit MODP group): passed, DG3/DG4 read.
    @Test func ISO7816_D_01() async throws {
        expectPassed(try await read(try chip([.init(domainParameterID: 0, cipher: .tripleDES)])))
    }

    /// CA with the default ECDH key: passed; the session keys change (SM restarts under CA keys).
    @Test func ISO7816_D_02() async throws {
        let outcome = try await read(try chip([ConformanceProfile.chipAuthenticationKey]))
        expectPassed(outcome)
        #expect(outcome.result.checks.chipAuthentication.protocol == "id-CA-ECDH-3DES-CBC-CBC")
    }

    /// DG14 with one key and its key reference (keyId 1 in both infos): the reader names it and the
    /// chip, which refuses an unknown reference (6A88), agrees: passed.
    @Test func ISO7816_D_03() async throws {
        expectPassed(try await read(try chip([.init(domainParameterID: 11, cipher: .tripleDES, keyID: 1)])))
    }

    /// DG14 with two keys (ECDH keyId 1, DH keyId 2): one is chosen and named rightly: passed.
    @Test func ISO7816_D_04() async throws {
        expectPassed(try await read(try chip([
            .init(domainParameterID: 11, cipher: .tripleDES, keyID: 1), .init(domainParameterID: 0, cipher: .tripleDES, keyID: 2),
        ])))
    }

    /// DG14 with three keys (keyIds 1-3, ECDH and DH): passed.
    @Test func ISO7816_D_05() async throws {
        expectPassed(try await read(try chip([
            .init(domainParameterID: 11, cipher: .tripleDES, keyID: 1), .init(domainParameterID: 0, cipher: .tripleDES, keyID: 2),
            .init(domainParameterID: 13, cipher: .aes128, keyID: 3),
        ])))
    }

    /// DG14 names a key reference the chip does not hold (it answers 6A88): CA failed, no DG3/DG4.
    @Test func ISO7816_D_06() async throws {
        let chip = try chip([.init(domainParameterID: 11, cipher: .tripleDES, keyID: 1)]) {
            $0.authentication?.chipAuthenticationKeys[0].keyID = 7
        }
        expectFailed(try await read(chip))
    }

    /// DG14's DH public key is not the chip's (the SOD signs the altered DG14): the keys agreed
    /// differ, CA failed, no DG3/DG4, and the read does not go on with a chip that failed it.
    @Test func ISO7816_D_07() async throws {
        let outcome = try await read(try chip([.init(domainParameterID: 0, cipher: .tripleDES)], dg14Faults: [.corruptedPublicKey]))
        expectFailed(outcome)
    }

    /// As D_07 with the ECDH key.
    @Test func ISO7816_D_08() async throws {
        expectFailed(try await read(try chip([ConformanceProfile.chipAuthenticationKey], dg14Faults: [.corruptedPublicKey])))
    }

    /// After CA the reader never uses the BAC session keys again: the chip answers from then on
    /// only under the CA keys (it drops the BAC session), and the read completes with DG3/DG4.
    @Test func ISO7816_D_09() async throws {
        let outcome = try await read(try chip([ConformanceProfile.chipAuthenticationKey]))
        expectPassed(outcome)
        let kat = try #require(outcome.exchanges.firstIndex { $0.command.count > 3 && $0.command[1] == 0x22 && $0.command[3] == 0xA6 })
        // Every later exchange is protected and answered 9000 or 6282 under the new keys.
        let later = outcome.exchanges.dropFirst(kat + 1)
        #expect(!later.isEmpty)
        #expect(later.allSatisfy { $0.command[0] & 0x0C == 0x0C })
    }

    /// Each session uses a fresh ephemeral key: two reads of the same chip send different keys.
    @Test func ISO7816_D_10() async throws {
        let chip = try chip([ConformanceProfile.chipAuthenticationKey])
        expectPassed(try await read(chip))
        expectPassed(try await read(chip))
        let keys = try #require(chip.authentication?.receivedTerminalKeys.all)
        #expect(keys.count == 2 && keys[0] != keys[1])
    }

    /// DG14's DH key names invalid domain parameters: CA failed (not attempted with a guess).
    @Test func ISO7816_D_11() async throws {
        expectFailed(try await read(try chip([.init(domainParameterID: 0, cipher: .tripleDES)], dg14Faults: [.invalidDomainParameters])))
    }

    /// DG14's ECDH key has invalid curve parameters: CA failed.
    @Test func ISO7816_D_12() async throws {
        expectFailed(try await read(try chip([ConformanceProfile.chipAuthenticationKey], dg14Faults: [.invalidDomainParameters])))
    }

    /// ChipAuthenticationInfo and ChipAuthenticationPublicKeyInfo carry different keyIds: the reader
    /// does not pair them by guess; CA failed, never passed.
    @Test func ISO7816_D_13() async throws {
        expectFailed(try await read(try chip([.init(domainParameterID: 11, cipher: .tripleDES, keyID: 1)], dg14Faults: [.keyIDMismatch])))
    }

    /// CA with a 2048-bit DH key: MSE:Set KAT carries 256+ bytes, sent as one extended-length APDU;
    /// passed.
    @Test func ISO7816_D_14() async throws {
        let outcome = try await read(try chip([.init(domainParameterID: 2, cipher: .tripleDES)]))
        expectPassed(outcome)
        let kat = try #require(outcome.commands.first { $0.count > 3 && $0[1] == 0x22 && $0[3] == 0xA6 })
        #expect(kat.count > 261 && kat[4] == 0x00)
    }

    /// MSE:Set KAT refused with each of 6A80, 6A88, 6985, 6F00: CA failed every time, no DG3/DG4.
    @Test(arguments: [StatusWord.incorrectData, .referencedDataNotFound, .conditionsNotSatisfied, .noPreciseDiagnosis])
    func ISO7816_D_15(_ refusal: StatusWord) async throws {
        let chip = try chip([ConformanceProfile.chipAuthenticationKey]) { $0.authentication?.chipAuthenticationRefusal = refusal }
        expectFailed(try await read(chip))
    }
}
