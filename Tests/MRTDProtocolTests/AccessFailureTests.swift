import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing
import MRTDSimulation
import MRTDTranscript

/// A wrong access key told apart from a lost link (issue 32; Kinegram eMRTD Connector 2.1.24):
/// `accessDenied`, which a kiosk turns into "check the document's data", only when the chip answered
/// an authentication command with its failure status; a card that leaves or a chip that stops
/// answering during access control is a transport error (`cardRemoved`, `chipTimeout`), which the
/// kiosk turns into "hold the document still". docs/field-quirks.md has the row.
@Suite(.serialized) struct AccessFailureTests {
    static let key = RecoveryTests.key

    struct Setup: Sendable, CustomTestStringConvertible {
        var name: String
        var configuration: VirtualChipConfiguration
        var access: AccessPolicy
        var testDescription: String { name }
    }

    static func setups() throws -> [Setup] {
        let specimen = try SpecimenDocument.make()
        return [
            Setup(name: "BAC", configuration: VirtualChipConfiguration(files: specimen.files, accessKey: key), access: .bac),
            Setup(name: "PACE-GM", configuration: try .paceChip(document: specimen, accessKey: key, infos: [RecoveryTests.gm], bac: false),
                  access: .pace),
            Setup(name: "PACE-GM or BAC (auto)", configuration: try .paceChip(document: specimen, accessKey: key, infos: [RecoveryTests.gm]),
                  access: .auto),
        ]
    }

    static func options(_ setup: Setup) -> ReadOptions {
        ReadOptions(accessKey: .mrz(key), dataGroups: [1], access: setup.access)
    }

    /// The access-control exchanges of a fault-free read: every command before the first one sent
    /// under secure messaging, with its INS.
    static func accessControl(_ setup: Setup) async throws -> [UInt8] {
        let log = RecordingTransport(try await VirtualCardSlot(configuration: setup.configuration).connect())
        let read = await DocumentReader.read(transport: log, options: options(setup))
        #expect(read.result.status == .unverified, "\(setup.name): \(read.result.error?.message ?? "")")
        let commands = log.exchanges.map(\.command)
        let end = try #require(commands.firstIndex { $0.first.map { $0 & 0x0C == 0x0C } ?? false })
        return commands[..<end].map { $0.count > 1 ? $0[1] : 0 }
    }

    /// The card leaving, or the chip not answering, at each exchange of access control, on a link
    /// that cannot reconnect: the read fails with the transport's code, never `accessDenied`, and
    /// `auto` does not fall back to BAC over a link that is gone.
    @Test func aLostLinkDuringAccessControlIsATransportErrorNeverAccessDenied() async throws {
        for setup in try Self.setups() {
            let steps = try await Self.accessControl(setup)
            #expect(steps.count >= 3, "\(setup.name): \(steps.count) access-control exchanges")
            for index in steps.indices {
                for (fault, code) in [(VirtualFault.removal, "cardRemoved"), (.timeout, "chipTimeout")] {
                    let slot = VirtualCardSlot(configuration: setup.configuration, faults: [index: fault])
                    let read = await DocumentReader.read(transport: try await slot.connect(), options: Self.options(setup))
                    let label = "\(setup.name): \(fault) at exchange \(index) (INS \(String(steps[index], radix: 16)))"
                    #expect(read.result.status == .failed, "\(label)")
                    #expect(read.result.error?.code.rawValue == code, "\(label): \(read.result.error?.code.rawValue ?? "none")")
                    #expect(slot.exchanges == index + 1, "\(label): \(slot.exchanges) exchanges, nothing after the loss")
                }
            }
        }
    }

    /// Status words at each access-control exchange: `accessDenied` only for the chip's answer to an
    /// authentication command (EXTERNAL AUTHENTICATE, GENERAL AUTHENTICATE, MSE:Set AT) with a
    /// refusal of the key (``KeyRefusal``: 63xx, 6983, 6984 anywhere; 6982, 6985, 6988 at a mutual
    /// authentication; 6A88 at MSE:Set AT); the final authentication step refused with 6300, 6982,
    /// 6985 (selfxyz/self#770) or 6988 (vsmartcard's ePass) is `accessDenied` on every setup.
    @Test func onlyTheChipsAuthenticationFailureStatusIsAccessDenied() async throws {
        let words: [StatusWord] = [.authenticationFailed, StatusWord(rawValue: 0x63C2), .securityStatusNotSatisfied,
                                   .wrongLength, .incorrectData, .conditionsNotSatisfied, .smDataObjectsIncorrect,
                                   .referenceDataNotUsable, .noPreciseDiagnosis]
        let authenticationFailures: Set<UInt16> = [0x6300, 0x63C2, 0x6982, 0x6983, 0x6984, 0x6985, 0x6988, 0x6A88]
        let lastStepRefusals: Set<StatusWord> = [.authenticationFailed, .securityStatusNotSatisfied, .conditionsNotSatisfied,
                                                 .smDataObjectsIncorrect]
        var denied = 0
        for setup in try Self.setups() {
            let steps = try await Self.accessControl(setup)
            let lastAuthentication = try #require(steps.lastIndex { $0 == 0x82 || $0 == 0x86 })
            for index in steps.indices {
                for sw in words {
                    let slot = VirtualCardSlot(configuration: setup.configuration, faults: [index: .chip(.status(sw))])
                    let read = await DocumentReader.read(transport: try await slot.connect(), options: Self.options(setup))
                    let label = "\(setup.name): \(sw) at exchange \(index) (INS \(String(steps[index], radix: 16)))"
                    let code = read.result.error?.code
                    if code == .accessDenied {
                        denied += 1
                        #expect([0x82, 0x86, 0x22].contains(steps[index]), "\(label): accessDenied for a command that checks no key")
                        #expect(authenticationFailures.contains(sw.rawValue), "\(label): accessDenied for a status that is no refusal")
                    }
                    if index == lastAuthentication, lastStepRefusals.contains(sw) {
                        #expect(code == .accessDenied, "\(label): \(code?.rawValue ?? read.result.status.rawValue)")
                    }
                }
            }
        }
        print("FIGURES access control: \(denied) status answers reported accessDenied, each an authentication refusal")
        #expect(denied >= 6)
    }

    /// The plain cases side by side: the wrong MRZ is `accessDenied`, the right one reads.
    @Test func theWrongKeyIsAccessDeniedTheRightOneReads() async throws {
        let wrong = try MRZKey(documentNumber: "L898902C3", dateOfBirth: "740812", dateOfExpiry: "120416")
        for setup in try Self.setups() {
            var options = Self.options(setup)
            let right = await DocumentReader.read(transport: try await VirtualCardSlot(configuration: setup.configuration).connect(),
                                                  options: options)
            #expect(right.result.error == nil, "\(setup.name): \(right.result.error?.message ?? "")")
            options.accessKey = .mrz(wrong)
            let refused = await DocumentReader.read(transport: try await VirtualCardSlot(configuration: setup.configuration).connect(),
                                                    options: options)
            #expect(refused.result.error?.code == .accessDenied, "\(setup.name): \(refused.result.error?.code.rawValue ?? "none")")
        }
    }
}

/// ``KeyRefusal``, the one table of the answers that refuse an access key (docs/field-quirks.md).
@Suite struct KeyRefusalTests {
    @Test func eachStepRefusesTheKeyWithTheAnswersTheStandardsAndTheFieldGive() {
        let everywhere: [StatusWord] = [.authenticationFailed, StatusWord(rawValue: 0x63C1), StatusWord(rawValue: 0x63C0),
                                        .authenticationMethodBlocked, .referenceDataNotUsable]
        let steps: [KeyRefusal.Step] = [.bacMutualAuthentication, .paceSetAT, .paceKeyExchange, .paceMutualAuthentication]
        for step in steps {
            for sw in everywhere { #expect(KeyRefusal.refusesKey(sw, at: step), "\(sw) at \(step)") }
            // Never the key: a malformed or unsupported command, a wrong length, no diagnosis.
            for sw in [StatusWord.wrongLength, .incorrectData, .incorrectP1P2, .instructionNotSupported, .noPreciseDiagnosis,
                       .fileNotFound, .success] {
                #expect(!KeyRefusal.refusesKey(sw, at: step), "\(sw) at \(step)")
            }
        }
        for sw in [StatusWord.securityStatusNotSatisfied, .conditionsNotSatisfied, .smDataObjectsIncorrect] {
            #expect(KeyRefusal.refusesKey(sw, at: .bacMutualAuthentication))
            #expect(KeyRefusal.refusesKey(sw, at: .paceMutualAuthentication))
            #expect(!KeyRefusal.refusesKey(sw, at: .paceKeyExchange), "nothing keyed by the password is checked before step 4")
        }
        #expect(KeyRefusal.refusesKey(.referencedDataNotFound, at: .paceSetAT), "no such password on this chip")
        #expect(!KeyRefusal.refusesKey(.referencedDataNotFound, at: .bacMutualAuthentication), "a chip without BAC: bacNotSupported")
    }
}
