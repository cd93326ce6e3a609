import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Synchronization
import Testing
import MRTDSimulation
import MRTDTranscript

/// Faults injected at every exchange of a read (BAC, PACE, with CA and AA): each read ends either
/// `valid` with the specimen's exact files after recovery, or with a specific error; never `valid`
/// with other bytes, never a hang (docs/reliability.md).
@Suite(.serialized) struct RecoveryTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey
    static let gm = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 12)
    static let cam = PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 12)
    static let ca = ChipAuthenticationKeySpec(domainParameterID: 12, cipher: .aes128)
    static let aa = ActiveAuthenticationKeySpec.ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true)

    static func testTrust() throws -> TrustStore {
        var store = TrustStore()
        _ = store.addAnchor(try TestPKI.csca(), source: "test CSCA", isTestMaterial: true)
        return store
    }

    struct Setup: Sendable, CustomTestStringConvertible {
        var name: String
        var configuration: VirtualChipConfiguration
        var files: [LDSFile: [UInt8]]
        var access: AccessPolicy
        var dataGroups: [Int]
        var testDescription: String { name }
    }

    static func bac(extendedLength: Bool = true) throws -> Setup {
        let specimen = try SpecimenDocument.make()
        let config = VirtualChipConfiguration(files: specimen.files, accessKey: key, extendedLength: extendedLength)
        return Setup(name: extendedLength ? "BAC" : "BAC short APDUs", configuration: config, files: specimen.files,
                     access: .bac, dataGroups: [1, 2])
    }

    static func bacWithCAAndAA() throws -> Setup {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [ca], activeAuthentication: aa)
        let specimen = try fixture.specimen()
        var config = VirtualChipConfiguration(files: specimen.files, accessKey: key)
        config.authentication = fixture.chip
        return Setup(name: "BAC + CA + AA", configuration: config, files: specimen.files, access: .bac, dataGroups: [1, 2, 14, 15])
    }

    static func pace() throws -> Setup {
        let specimen = try SpecimenDocument.make()
        let config = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: key, infos: [gm], bac: false)
        return Setup(name: "PACE-GM", configuration: config, files: specimen.files, access: .pace, dataGroups: [1, 2])
    }

    static func paceCAMWithAA() throws -> Setup {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [ca], activeAuthentication: aa)
        let specimen = try fixture.specimen()
        var config = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: key, infos: [cam], bac: false)
        config.authentication = fixture.chip
        return Setup(name: "PACE-CAM + AA", configuration: config, files: specimen.files, access: .pace, dataGroups: [1, 2, 14, 15])
    }

    static func options(_ setup: Setup, recovery: RecoveryPolicy = .init(reconnectDelay: .zero)) throws -> ReadOptions {
        ReadOptions(accessKey: .mrz(key), dataGroups: setup.dataGroups, access: setup.access,
                    trustStore: try testTrust(), recovery: recovery)
    }

    /// One read through a slot with `faults`, over the reconnecting entry point.
    static func read(_ setup: Setup, faults: [Int: VirtualFault], refusedReconnects: Int = 0,
                     reinserted: VirtualChipConfiguration? = nil,
                     recovery: RecoveryPolicy = .init(reconnectDelay: .zero)) async throws -> (DocumentReader.Read, VirtualCardSlot, Duration) {
        let slot = VirtualCardSlot(configuration: setup.configuration, faults: faults,
                                   refusedReconnects: refusedReconnects, reinserted: reinserted)
        let clock = ContinuousClock()
        let start = clock.now
        let read = await DocumentReader.read(connect: { try await slot.connect() }, options: try options(setup, recovery: recovery))
        return (read, slot, clock.now - start)
    }

    /// Exchanges in a fault-free read of `setup`.
    static func length(_ setup: Setup) async throws -> Int {
        let (read, slot, _) = try await Self.read(setup, faults: [:])
        #expect(read.result.status == .valid, "\(setup.name): \(read.result.error?.message ?? "")")
        #expect(read.result.transport.recoveries.isEmpty)
        return slot.exchanges
    }

    /// The invariant: valid only with the specimen's bytes; otherwise failed with a specific code and
    /// no files handed out.
    static func checkOutcome(_ read: DocumentReader.Read, _ setup: Setup, _ label: String, allowed: Set<String>) {
        switch read.result.status {
        case .valid:
            for (file, bytes) in setup.files where read.files[file] != nil {
                #expect(read.files[file] == bytes, "\(label): \(file.name) differs yet valid")
            }
            // A group the chip refused (a 6A82 / 6982 answer) is listed as skipped, never silently absent.
            for number in setup.dataGroups where read.files[.dg(number)] == nil {
                #expect(read.result.dataGroupsSkipped.contains { $0.file == "DG\(number)" }, "\(label): DG\(number) missing")
            }
        case .failed:
            let code = read.result.error?.code.rawValue ?? "none"
            #expect(allowed.contains(code), "\(label): unexpected error \(code): \(read.result.error?.message ?? "")")
            #expect(read.files.isEmpty)
        case .invalid where read.result.warnings.contains(where: { $0.hasPrefix(ReadResult.mandatoryDataGroupMissing) }):
            // A chip that refused a mandatory group (a 6A82 / 6982 answer to DG1 or DG2) is never
            // valid (TR-03105-5.1 ISO7816_C_01): the group is listed as skipped, and what was read is right.
            #expect(read.result.dataGroupsSkipped.contains { $0.file == "DG1" || $0.file == "DG2" }, "\(label)")
            for (file, bytes) in setup.files where read.files[file] != nil {
                #expect(read.files[file] == bytes, "\(label): \(file.name) differs")
            }
        case .invalid where read.result.checks.activeAuthentication.result == .failed:
            // A fault the chip answered to INTERNAL AUTHENTICATE itself (a status word, or a session
            // that recovery could not restore for it), or a refusal of DG15 (its key: skipped, so the
            // AA the SOD requires cannot run), fails Active Authentication, and so the inspection
            // (docs/verification.md); what was read is right, nothing else failed.
            let reason = read.result.checks.activeAuthentication.reason ?? ""
            let dg15Withheld = read.result.dataGroupsSkipped.contains { $0.file == "DG15" }
            #expect(reason.hasPrefix("activeAuthenticationRefused") || reason.hasPrefix("activeAuthenticationSessionLost")
                    || (dg15Withheld && reason == AuthenticationVerdict.activeAuthenticationRequired), "\(label): \(reason)")
            #expect(read.result.checks.passiveAuthentication.result == .passed, "\(label)")
            for (file, bytes) in setup.files where read.files[file] != nil || file != .dg(15) || !dg15Withheld {
                #expect(read.files[file] == bytes, "\(label): \(file.name) differs")
            }
        case .invalid, .unverified:
            Issue.record("\(label): status \(read.result.status): \(read.result.warnings)")
        }
    }

    /// Built once per process: key generation for the CA/AA fixtures is the slow part.
    static let built: [Result<Setup, any Error>] = [
        Result { try bac() }, Result { try bacWithCAAndAA() }, Result { try pace() }, Result { try paceCAMWithAA() },
    ]
    static let setups: [@Sendable () throws -> Setup] = (0..<4).map { i in { try built[i].get() } }

    // MARK: Lost card and timeouts: always recovered

    @Test(arguments: 0..<4)
    func aCardRemovedOrTimingOutAtAnyExchangeIsRecoveredToValid(_ which: Int) async throws {
        let setup = try Self.setups[which]()
        let total = try await Self.length(setup)
        var slowest = Duration.zero
        for index in 0..<total {
            for fault in [VirtualFault.removal, .timeout] {
                let (read, slot, elapsed) = try await Self.read(setup, faults: [index: fault])
                slowest = max(slowest, elapsed)
                let label = "\(setup.name) \(fault) at \(index)"
                #expect(read.result.status == .valid, "\(label): \(read.result.error?.code.rawValue ?? "") \(read.result.error?.message ?? "")")
                Self.checkOutcome(read, setup, label, allowed: [])
                let recovery = read.result.transport.recoveries.first
                #expect(recovery?.kind == (fault == .removal ? "cardRemoved" : "chipTimeout"), "\(label)")
                #expect(recovery?.exchange == index, "\(label)")
                #expect(slot.connects == 2, "\(label)")
                #expect(read.result.transport.apdus == slot.exchanges, "\(label)")
                if setup.dataGroups.contains(15) {
                    #expect(read.result.checks.activeAuthentication.result == .passed, "\(label)")
                }
                if setup.dataGroups.contains(14) {
                    #expect(read.result.checks.chipAuthentication.result == .passed, "\(label)")
                }
            }
        }
        print("FIGURES \(setup.name): removal/timeout at each of \(total) exchanges recovered; slowest read \(slowest)")
        // Bounded by the counts above (one reconnection each); wall time depends on the machine's load.
        #expect(slowest < .seconds(60))
    }

    // MARK: Secure-messaging faults: re-authenticate, retry once

    @Test(arguments: 0..<4)
    func secureMessagingFaultsAtAnyExchangeRecoverOrFailSpecifically(_ which: Int) async throws {
        let setup = try Self.setups[which]()
        let total = try await Self.length(setup)
        let faults: [VirtualChipFault] = [.corruptMAC, .plainStatus(.smDataObjectsIncorrect), .plainStatus(.smDataObjectsMissing),
                                          .plainStatus(.wrongLength)]
        var recovered = 0
        for index in 0..<total {
            for fault in faults {
                let (read, _, elapsed) = try await Self.read(setup, faults: [index: .chip(fault)])
                let label = "\(setup.name) \(VirtualFault.chip(fault)) at \(index) [\(read.result.transport.recoveries.map(\.kind))]"
                #expect(elapsed < .seconds(60), "\(label)")
                // Plain answers before secure messaging refuse the opening commands themselves.
                Self.checkOutcome(read, setup, label, allowed: [
                    "notAnEMRTD", "bacNotSupported", "paceSetupRefused", "paceStepFailed", "accessDenied",
                    "chipAuthenticationKeyConfirmationFailed", "chipAuthenticationKeyReferenceRejected",
                    "commandFailed", "paceNotSupported", "chipAuthenticationFailed", "authenticationFailed",
                    "chipAuthenticationRefused",
                ])
                if read.result.status == .valid, let r = read.result.transport.recoveries.first {
                    #expect(r.exchange == index, "\(label)")
                    recovered += 1
                }
            }
        }
        print("FIGURES \(setup.name): \(recovered) secure-messaging faults recovered over \(total) exchanges")
        #expect(recovered >= total, "most faults inside secure messaging are recovered")
    }

    @Test(arguments: [0, 3])
    func statusWordFaultsAtAnyExchangeRecoverOrFailSpecifically(_ which: Int) async throws {
        let setup = try Self.setups[which]()
        let total = try await Self.length(setup)
        let words: [StatusWord] = [.wrongLength, StatusWord(rawValue: 0x6C10), .wrongParametersOffset, .endOfFileReached,
                                   .securityStatusNotSatisfied, .fileNotFound]
        var outcomes: [String: Int] = [:]
        for index in 0..<total {
            for sw in words {
                let (read, _, elapsed) = try await Self.read(setup, faults: [index: .chip(.status(sw))])
                let label = "\(setup.name) status \(sw) at \(index) [\(read.result.transport.recoveries.map(\.kind))]"
                #expect(elapsed < .seconds(60), "\(label)")
                Self.checkOutcome(read, setup, label, allowed: [
                    "notAnEMRTD", "bacNotSupported", "paceSetupRefused", "paceStepFailed", "accessDenied", "commandFailed",
                    "paceNotSupported", "fileTruncated", "fileNotFound", "fileAccessDenied", "lengthNegotiationFailed",
                    "noProgress", "authenticationFailed", "paceMalformedResponse",
                    "chipAuthenticationKeyConfirmationFailed", "chipAuthenticationKeyReferenceRejected",
                    "chipAuthenticationFailed", "chipAuthenticationRefused", "chipAuthenticationMalformedResponse",
                ])
                outcomes[read.result.error?.code.rawValue ?? read.result.status.rawValue, default: 0] += 1
            }
        }
        print("FIGURES \(setup.name): status-word faults at each of \(total) exchanges: \(outcomes.sorted { $0.key < $1.key })")
    }

    // MARK: Transcripts of recovered sessions

    @Test func aRecoveredSessionIsRecordedAndReplaysByteForByte() async throws {
        let setup = try Self.bac(extendedLength: false)
        let total = try await Self.length(setup)
        let slot = VirtualCardSlot(configuration: setup.configuration,
                                   faults: [total - 40: .removal, total - 20: .chip(.corruptMAC)])
        let (read, transcript) = await Transcript.record(
            connect: { try await slot.connect() },
            reader: .init(name: "virtual", backend: "virtual", capabilities: slot.capabilities),
            options: try Self.options(setup))
        #expect(read.result.status == .valid)
        #expect(read.result.transport.recoveries.map(\.kind) == ["cardRemoved", "secureMessagingMACInvalid"])
        #expect(transcript.reconnecting == true)
        #expect(transcript.exchanges.count == read.result.transport.apdus)
        #expect(transcript.exchanges[total - 40].error == "cardRemoved")
        let reloaded = try Transcript(json: try transcript.json())
        var replay = try await reloaded.replay { $0.trustStore = try? Self.testTrust() }
        #expect(replay.mismatch == nil && replay.unusedExchanges == 0)
        #expect(replay.resultMatches)
        #expect(replay.read.files[.dg(2)] == setup.files[.dg(2)])
        // One byte edited after the reconnection: the replay stops there.
        var edited = reloaded
        var command = try #require([UInt8](hex: edited.exchanges[total - 30].command))
        command[command.count - 2] ^= 0x01
        edited.exchanges[total - 30].command = command.hex
        replay = try await edited.replay { $0.trustStore = try? Self.testTrust() }
        #expect(replay.mismatch?.index == total - 30)
        #expect(!replay.resultMatches)
    }

    @Test func aReadThatLostItsCardReplaysToTheSameFailure() async throws {
        let setup = try Self.bac()
        let slot = VirtualCardSlot(configuration: setup.configuration, faults: [6: .removal])
        let link = try await slot.connect()
        let (read, transcript) = await Transcript.record(
            transport: link, reader: .init(name: "virtual", backend: "virtual", capabilities: link.capabilities),
            options: try Self.options(setup))
        #expect(read.result.error?.code == .cardRemoved)
        #expect(transcript.exchanges.last?.error == "cardRemoved")
        let replay = try await transcript.replay { $0.trustStore = try? Self.testTrust() }
        #expect(replay.mismatch == nil)
        #expect(replay.resultMatches)
    }

    @Test func aResultWithoutRecoveriesStillDecodes() throws {
        let json = #"{"apdus":3,"bytesSent":1,"bytesReceived":2,"extendedLength":false,"maxReadLength":0,"readBinaryCommands":0,"fileBytes":0,"adjustments":[]}"#
        let report = try JSONDecoder().decode(TransportReport.self, from: Data(json.utf8))
        #expect(report.apdus == 3 && report.recoveries.isEmpty)
        var withOne = report
        withOne.recoveries = [.init(kind: "cardRemoved", file: "DG2", offset: 223, exchange: 9, detail: "d")]
        let again = try JSONDecoder().decode(TransportReport.self, from: try JSONEncoder().encode(withOne))
        #expect(again == withOne)
    }

    @Test func aBadMACDuringDG2IsRecoveredWithoutReconnectingEvenOverAPlainTransport() async throws {
        let setup = try Self.bac(extendedLength: false)
        let total = try await Self.length(setup)
        let chipConfig = { () -> VirtualChipConfiguration in
            var c = setup.configuration
            c.corruptMACAtExchange = [total - 30]
            return c
        }()
        let read = await DocumentReader.read(transport: VirtualChip(configuration: chipConfig), options: try Self.options(setup))
        #expect(read.result.status == .valid)
        #expect(read.files[.dg(2)] == setup.files[.dg(2)])
        let r = try #require(read.result.transport.recoveries.first)
        #expect(r.kind == "secureMessagingMACInvalid" && r.file == "DG2" && (r.offset ?? 0) > 0)
    }

    @Test func aSecondSecureMessagingFaultInTheSameFileEndsTheRead() async throws {
        let setup = try Self.bac(extendedLength: false)
        let total = try await Self.length(setup)
        // The retry after the first bad MAC (re-authentication: 3 exchanges) meets a second one.
        var faults: [Int: VirtualFault] = [:]
        for index in (total - 30)..<(total - 20) { faults[index] = .chip(.corruptMAC) }
        let (read, _, _) = try await Self.read(setup, faults: faults)
        #expect(read.result.status == .failed)
        #expect(read.result.error?.code == .secureMessagingMACInvalid)
        #expect(read.result.transport.recoveries.count == 1)
    }

    // MARK: Removal mid-file: resume at the verified offset

    @Test func aRemovalMidDG2ResumesAtTheLastVerifiedOffset() async throws {
        let setup = try Self.bac(extendedLength: false)
        let (baseline, baseSlot, baseTime) = try await Self.read(setup, faults: [:])
        let total = baseSlot.exchanges
        let (read, slot, elapsed) = try await Self.read(setup, faults: [total - 40: .removal])
        #expect(read.result.status == .valid)
        #expect(read.files[.dg(2)] == setup.files[.dg(2)])
        let r = try #require(read.result.transport.recoveries.first)
        #expect(r.kind == "cardRemoved" && r.file == "DG2" && r.exchange == total - 40)
        let offset = try #require(r.offset)
        #expect(offset > 0 && offset % 0xDF == 0, "resumes at a chunk boundary, after the bytes already verified")
        // Re-selecting LDS1, BAC (2), SELECT DG2, then the rest: the lost exchange plus 4 more.
        #expect(read.result.transport.apdus == baseline.result.transport.apdus + 5)
        #expect(slot.exchanges == read.result.transport.apdus)
        print("FIGURES removal mid-DG2 (short APDUs): \(read.result.transport.apdus) APDUs in \(elapsed) "
            + "(fault-free: \(baseline.result.transport.apdus) APDUs in \(baseTime)); resumed DG2 at offset \(offset)")
    }

    @Test func aRemovalMidDG2WithExtendedLengthRereadsOnlyDG2() async throws {
        let setup = try Self.bac()
        let total = try await Self.length(setup)
        let (read, _, elapsed) = try await Self.read(setup, faults: [total - 1: .removal])
        #expect(read.result.status == .valid)
        #expect(read.result.transport.recoveries.map(\.kind) == ["cardRemoved"])
        #expect(read.result.transport.recoveries.first?.file == "DG2")
        print("FIGURES removal at DG2's READ BINARY (extended length): \(read.result.transport.apdus) APDUs in \(elapsed)")
    }

    @Test func aCardPresentedAgainOnlyAfterSomeAttemptsIsStillRead() async throws {
        let setup = try Self.pace()
        let total = try await Self.length(setup)
        let (read, _, _) = try await Self.read(setup, faults: [total - 1: .removal], refusedReconnects: 2)
        #expect(read.result.status == .valid)
        #expect(read.result.transport.recoveries.map(\.kind) == ["cardRemoved", "reconnectFailed", "reconnectFailed"])
    }

    @Test func aCardThatNeverComesBackEndsWithCardRemovedAfterTheAttempts() async throws {
        let setup = try Self.bac()
        let (read, _, elapsed) = try await Self.read(setup, faults: [6: .removal], refusedReconnects: 100)
        #expect(read.result.status == .failed)
        #expect(read.result.error?.code == .cardRemoved)
        #expect(read.result.transport.recoveries.filter { $0.kind == "reconnectFailed" }.count == 3)
        #expect(elapsed < .seconds(30))
    }

    @Test func aChipThatStopsAnsweringEndsWithChipTimeoutInBoundedTime() async throws {
        for setup in [try Self.bac(), try Self.pace()] {
            for index in [0, 3, 6] {
                let (read, slot, elapsed) = try await Self.read(setup, faults: [index: .mute])
                #expect(read.result.status == .failed)
                #expect(read.result.error?.code == .chipTimeout, "\(setup.name) at \(index)")
                #expect(slot.connects == 4, "the first connection and three attempts")
                #expect(elapsed < .seconds(30))
            }
        }
    }

    @Test func theDeadlineStopsRecoveryEvenWithAttemptsLeft() async throws {
        let setup = try Self.bac()
        let (read, slot, _) = try await Self.read(
            setup, faults: [6: .removal], refusedReconnects: 100,
            recovery: .init(maxReconnects: 1000, deadline: .milliseconds(300), reconnectDelay: .milliseconds(20)))
        #expect(read.result.error?.code == .cardRemoved)
        #expect(slot.connects == 1)
        #expect(read.result.transport.recoveries.count < 30)
    }

    /// Regression (found by the daemon robustness suite): the reconnection attempt ran in an
    /// unstructured task that ignored the read's cancellation, so a job cancelled, timed out or
    /// stopped by SIGTERM while waiting for its card went on waiting, attempt after attempt, for up
    /// to the whole 30 s deadline.
    @Test func cancellingAReadWaitingForItsCardEndsItAtOnce() async throws {
        let setup = try Self.bac()
        let slot = VirtualCardSlot(configuration: setup.configuration, faults: [6: .removal])
        let attempts = AttemptCounter()
        let options = try Self.options(setup)
        let read = Task {
            await DocumentReader.read(connect: {
                if attempts.increment() == 1 { return try await slot.connect() }
                // A reader waiting for the card to be presented again (as the daemon's reconnect does).
                try await Task.sleep(for: .seconds(20))
                return try await slot.connect()
            }, options: options)
        }
        try await waitUntil("the second connect attempt") { attempts.current >= 2 }
        let clock = ContinuousClock()
        let start = clock.now
        read.cancel()
        let result = await read.value.result
        let elapsed = clock.now - start
        #expect(elapsed < .seconds(2), "the cancelled read took \(elapsed) to end")
        #expect(result.status == .failed)
        #expect(result.error?.code == .cancelled, "\(String(describing: result.error))")
        #expect(attempts.current == 2, "no further attempt after the cancellation")
    }

    final class AttemptCounter: Sendable {
        private let count = Mutex(0)
        var current: Int { count.withLock { $0 } }
        func increment() -> Int { count.withLock { $0 += 1; return $0 } }
    }

    @Test func withoutReconnectionALostCardEndsTheReadAsBefore() async throws {
        let setup = try Self.bac()
        let slot = VirtualCardSlot(configuration: setup.configuration, faults: [7: .removal])
        let read = await DocumentReader.read(transport: try await slot.connect(), options: try Self.options(setup))
        #expect(read.result.error?.code == .cardRemoved)
        #expect(read.result.transport.apdus == 8)
        #expect(read.result.transport.recoveries.isEmpty)
    }

    // MARK: Never valid with wrong bytes

    @Test func aDifferentDG2AfterReconnectingEndsInvalidNotValid() async throws {
        let setup = try Self.bac(extendedLength: false)
        let total = try await Self.length(setup)
        var tampered = setup.configuration
        var dg2 = try #require(setup.files[.dg(2)])
        for i in (dg2.count - 100)..<dg2.count { dg2[i] ^= 0x5A }
        tampered.files[.dg(2)] = dg2
        let (read, _, _) = try await Self.read(setup, faults: [total - 10: .removal], reinserted: tampered)
        #expect(read.result.status == .invalid, "torn bytes must fail passive authentication")
        #expect(read.result.checks.passiveAuthentication.result == .failed)
        #expect(read.result.transport.recoveries.first?.kind == "cardRemoved")
    }

    @Test func anotherDocumentPresentedAfterRemovalIsRefused() async throws {
        let setup = try Self.bac()
        var other = setup.configuration
        other.accessKey = try MRZKey(documentNumber: "X12345678", dateOfBirth: "800101", dateOfExpiry: "300101")
        let (read, _, _) = try await Self.read(setup, faults: [6: .removal], reinserted: other)
        #expect(read.result.status == .failed)
        #expect(read.result.error?.code == .accessDenied)
    }

    // MARK: Length errors, 6982, missing EF.CardAccess

    @Test(arguments: [StatusWord.wrongLength, StatusWord(rawValue: 0x6C80)])
    func lengthErrorsDuringReadsAreAdaptedAndListedAsRecoveries(_ sw: StatusWord) async throws {
        let setup = try Self.bac(extendedLength: false)
        let total = try await Self.length(setup)
        let (read, _, _) = try await Self.read(setup, faults: [total - 20: .chip(.status(sw))])
        #expect(read.result.status == .valid)
        #expect(read.files[.dg(2)] == setup.files[.dg(2)])
        let r = try #require(read.result.transport.recoveries.first)
        #expect(r.kind == (sw == .wrongLength ? "wrongLength" : "exactLength"))
        #expect(r.file == "DG2" && r.exchange == total - 20)
    }

    @Test func aPlain6982OnAnOptionalGroupIsSkippedAfterReauthenticating() async throws {
        let dg3 = TLV.encode(tag: 0x63, value: [UInt8](repeating: 0xAB, count: 40))
        let specimen = try SpecimenDocument.make(extraDataGroups: [3: dg3])
        let setup = Setup(name: "BAC with DG3", configuration: VirtualChipConfiguration(files: specimen.files, accessKey: Self.key),
                          files: specimen.files, access: .bac, dataGroups: [1, 2, 3])
        // Exchange 0 reads EF.ATR/INFO, 5 EF.COM, 6 EF.SOD, 7 DG1, 8 DG2, 9 DG3.
        let (read, _, _) = try await Self.read(setup, faults: [9: .chip(.plainStatus(.securityStatusNotSatisfied))])
        #expect(read.result.status == .valid)
        #expect(read.result.dataGroupsSkipped == [.init(file: "DG3", reason: "securityStatusNotSatisfied")])
        #expect(read.result.transport.recoveries.map(\.kind) == ["securityStatusNotSatisfied"])
    }

    @Test func aPACEOnlyChipWithoutEFCardAccessFailsSpecifically() async throws {
        let specimen = try SpecimenDocument.make()
        var config = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: Self.key, infos: [Self.gm], bac: false)
        config.files[.cardAccess] = nil
        for access in [AccessPolicy.auto, .pace] {
            let setup = Setup(name: "PACE-only, no EF.CardAccess", configuration: config, files: specimen.files,
                              access: access, dataGroups: [1, 2])
            let (read, _, _) = try await Self.read(setup, faults: [:])
            #expect(read.result.status == .failed)
            #expect(read.result.error?.code == (access == .auto ? .bacNotSupported : .paceNotSupported), "\(access)")
            #expect(read.result.transport.recoveries.isEmpty)
        }
    }

    @Test func aBACChipWithoutEFCardAccessIsReadWithBACAndNoFallback() async throws {
        let specimen = try SpecimenDocument.make()
        #expect(specimen.files[.cardAccess] == nil)
        let setup = Setup(name: "no EF.CardAccess", configuration: VirtualChipConfiguration(files: specimen.files, accessKey: Self.key),
                          files: specimen.files, access: .auto, dataGroups: [1, 2])
        let (read, _, _) = try await Self.read(setup, faults: [:])
        #expect(read.result.status == .valid)
        #expect(read.result.access?.protocol == "BAC")
        #expect(read.result.access?.fallback == nil)
    }
}
