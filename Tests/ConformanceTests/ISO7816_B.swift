import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import MRTDVerification
import Testing

/// Unit ISO7816_B, Basic Access Control and secure messaging (plan §5.2; all ten cases moved to the
/// ICAO test specification: readings in notes/ISO7816_B.tsv). A chip whose BAC answer or protected
/// answers do not verify is never read: the read fails with the specific code, and no data group
/// from such an answer is kept.
@Suite(.statusAsserted) struct ISO7816_B {
    static let secureMessagingCodes: Set<ErrorCode> = [
        .secureMessagingMACInvalid, .secureMessagingObjectMissing, .secureMessagingMalformed, .secureMessagingLost,
    ]

    func bac(_ change: (inout VirtualChipConfiguration) -> Void) async throws -> Conformance.Outcome {
        var chip = try ConformanceProfile.bac.document().chip()
        change(&chip)
        return await Conformance.read(chip, try Conformance.options())
    }

    /// BAC: no protected command follows a failed mutual authentication.
    func expectNoProtectedCommand(_ outcome: Conformance.Outcome) {
        #expect(outcome.commands.allSatisfy { $0[0] & 0x0C == 0 })
        #expect(outcome.read.files[.dg(1)] == nil && outcome.read.files[.dg(2)] == nil)
    }

    /// The chip's EXTERNAL AUTHENTICATE answer carries a MAC that does not verify: BAC fails.
    @Test func ISO7816_B_01() async throws {
        let outcome = try await bac { $0.bacAnswerDefect = .corruptMAC }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .authenticationFailed)
        expectNoProtectedCommand(outcome)
    }

    /// The answer's MAC verifies but its cryptogram does not echo the terminal's RND.IFD: BAC fails.
    @Test func ISO7816_B_02() async throws {
        let outcome = try await bac { $0.bacAnswerDefect = .wrongEcho }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .authenticationFailed)
        expectNoProtectedCommand(outcome)
    }

    /// The chip refuses the mutual authentication (6300, as for a wrong MRZ): access denied.
    @Test func ISO7816_B_03() async throws {
        let outcome = try await bac { $0.bacAnswerDefect = .status(.authenticationFailed) }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .accessDenied)
        expectNoProtectedCommand(outcome)
    }

    /// The chip answers a protected READ BINARY with a plain 6988 and ends its session. The reader
    /// never uses the old session keys again: its next command is a new BAC (GET CHALLENGE in
    /// plain), and the read then completes under the new keys, the recovery reported.
    @Test func ISO7816_B_04() async throws {
        let chip = try ConformanceProfile.bac.document().chip()
        let outcome = await Conformance.read(chip, try Conformance.options(), fault: .plainStatus(.smDataObjectsIncorrect)) {
            _, command in command[0] & 0x0C == 0x0C && command[1] == 0xB0
        }
        let faulted = try #require(outcome.exchanges.firstIndex { $0.response == [0x69, 0x88] })
        let next = try #require(outcome.exchanges.dropFirst(faulted + 1).first { $0.command[1] != 0xA4 })
        #expect(next.command[1] == 0x84 && next.command[0] & 0x0C == 0)
        Conformance.expectStatus(outcome.result, .valid)
        #expect(!outcome.result.transport.recoveries.isEmpty)
    }

    /// Every protected READ BINARY answer lacks DO'8E' (the MAC): no file is read.
    @Test func ISO7816_B_05() async throws {
        let outcome = try await bac { $0.secureMessagingDefect = .missingMAC }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .secureMessagingObjectMissing)
        #expect(outcome.read.files[.dg(1)] == nil)
    }

    /// Every protected READ BINARY answer lacks DO'87' (the data) though data was asked for and the
    /// MAC covers what is there: the read cannot complete and keeps nothing of it.
    @Test func ISO7816_B_06() async throws {
        let outcome = try await bac { $0.secureMessagingDefect = .missingCryptogram }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.status != .valid)
        #expect(outcome.read.files[.dg(1)] == nil)
    }

    /// Every protected READ BINARY answer lacks DO'99' (the protected status): rejected.
    @Test func ISO7816_B_07() async throws {
        let outcome = try await bac { $0.secureMessagingDefect = .missingStatus }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .secureMessagingObjectMissing)
        #expect(outcome.read.files[.dg(1)] == nil)
    }

    /// Every protected answer carries a wrong MAC: rejected, nothing kept.
    @Test func ISO7816_B_08() async throws {
        let outcome = try await bac { $0.corruptMACAtExchange = Set(0..<10_000) }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .secureMessagingMACInvalid)
        #expect(outcome.read.files[.dg(1)] == nil)
    }

    /// Every protected READ BINARY answer carries a cryptogram that the MAC covers but that does not
    /// decrypt to padded data: rejected, nothing kept.
    @Test func ISO7816_B_09() async throws {
        let outcome = try await bac { $0.secureMessagingDefect = .alteredCryptogram }
        Conformance.expectStatus(outcome.result, .failed)
        #expect(Self.secureMessagingCodes.contains(try #require(outcome.result.error?.code)))
        #expect(outcome.read.files[.dg(1)] == nil)
    }

    /// The operator holds a CRL of the document's CSCA that revokes its DSC: passive authentication
    /// failed (`dscRevoked`), the document not valid. The same chain without the revocation (a CRL
    /// listing another serial) reads valid, revocation checked.
    @Test func ISO7816_B_10() async throws {
        let sod = try SODCase.standard("B10")
        func read(revoking serials: [[UInt8]]) async throws -> Conformance.Outcome {
            var store = try sod.trustStore()
            let crl = try CRLBuilder(
                issuer: sod.chain.cscaName, revokedSerials: serials, thisUpdate: Date(timeIntervalSinceNow: -86_400),
                nextUpdate: Date(timeIntervalSinceNow: 30 * 86_400), scheme: SODCase.pss(.sha256)
            ).issue(signedBy: sod.chain.cscaKey)
            store.addCRL(try CertificateRevocationList(derEncoded: crl))
            var options = try Conformance.options(trust: false)
            options.trustStore = store
            return await Conformance.read(try sod.chip(), options)
        }
        let revoked = try await read(revoking: [[0x05], sod.chain.dscSerial])
        Conformance.expectStatus(revoked.result, .invalid)
        #expect(revoked.result.checks.passiveAuthentication.result == .failed)
        #expect(revoked.result.checks.passiveAuthentication.reason == "dscRevoked")
        let current = try await read(revoking: [[0x05]])
        Conformance.expectStatus(current.result, .valid)
        #expect(current.result.checks.passiveAuthentication.warnings?.contains("revocationNotChecked") == false)
    }
}
