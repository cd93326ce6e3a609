import Foundation
import Synchronization
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import Testing

@testable import MRTDProtocol
import MRTDSimulation
import MRTDTranscript

/// docs/field-quirks.md, in-process: each chip behaviour from the field reports against the virtual
/// chip. A read ends `valid` with the well-behaved chip's files, or with the specific error the row
/// names; never `valid` with other bytes, never an endless loop.
@Suite struct FieldQuirkTests {
    static let scenarios = try! FieldQuirkScenario.all()

    static func trust() throws -> TrustStore {
        var store = TrustStore()
        _ = store.addAnchor(try TestPKI.csca(), source: "test CSCA", isTestMaterial: true)
        return store
    }

    static func read(_ config: VirtualChipConfiguration, _ scenario: FieldQuirkScenario) async throws -> (DocumentReader.Read, VirtualChip) {
        let chip = VirtualChip(configuration: config)
        var options = scenario.options()
        options.trustStore = try trust()
        return (await DocumentReader.read(transport: chip, options: options), chip)
    }

    @Test func everyChipQuirkHasAScenarioUnderEveryAccessModeAndAName() {
        let covered = Set(Self.scenarios.map(\.quirk)).union([.lockAfterFailedAccess])
        #expect(covered == Set(VirtualChipQuirk.allCases))
        for quirk in VirtualChipQuirk.allCases where quirk != .lockAfterFailedAccess {
            let modes = Set(Self.scenarios.filter { $0.quirk == quirk }.map(\.mode))
            #expect(modes == Set(FieldQuirkAccessMode.allCases), "\(quirk): read under \(modes.map(\.rawValue).sorted()) only")
        }
        for quirk in VirtualChipQuirk.allCases {
            #expect(VirtualChipQuirk(name: quirk.rawValue.uppercased()) == quirk)
        }
        #expect(VirtualChipQuirk(name: "no-such-quirk") == nil)
        #expect(VirtualChipQuirk(name: "EF-DIR-REFUSED-6982") == .efDir6982BeforeAccess, "the family name of the older quirk")
    }

    /// docs/field-quirks.md shows what each quirk ends with under each access mode: the statuses
    /// these scenarios assert (`aQuirkyChipReadsLikeAWellBehavedOneOrFailsSpecifically`).
    @Test func theCatalogueShowsEveryQuirkUnderEveryAccessModeAsTheScenariosRunIt() throws {
        if let mismatch = try GeneratedDocSection.mismatch(
            page: "docs/field-quirks.md", section: "quirk-matrix", expected: FieldQuirkScenario.matrixMarkdown(Self.scenarios)) {
            Issue.record("\(mismatch)")
        }
    }

    @Test(arguments: scenarios)
    func aQuirkyChipReadsLikeAWellBehavedOneOrFailsSpecifically(_ scenario: FieldQuirkScenario) async throws {
        let started = ContinuousClock.now
        let (reference, referenceChip) = try await Self.read(scenario.wellBehaved, scenario)
        let (read, chip) = try await Self.read(scenario.configuration, scenario)
        let elapsed = ContinuousClock.now - started
        let t = read.result.transport
        print("QUIRK \(scenario): \(read.result.status.rawValue) \(read.result.error?.code.rawValue ?? "") in \(t.apdus) APDUs "
              + "(well-behaved \(reference.result.transport.apdus)); adjustments \(t.adjustments); recoveries \(t.recoveries.map(\.kind))")
        #expect(t.apdus == (await chip.exchangeCount), "every exchange is counted")
        #expect(reference.result.status == (scenario.usesWrongKey ? .failed : .valid), "\(reference.result.error?.message ?? "")")
        #expect(reference.result.transport.apdus == (await referenceChip.exchangeCount))
        if let code = scenario.expectedError {
            #expect(read.result.status == .failed)
            #expect(read.result.error?.code.rawValue == code, "\(read.result.error?.message ?? "")")
            #expect(read.files.isEmpty)
        } else {
            #expect(read.result.status == scenario.expectedStatus, "\(read.result.error?.code.rawValue ?? ""): \(read.result.error?.message ?? "")")
            // Opened as the mode says: a PACE failure hidden by a fallback to BAC would not pass.
            #expect(read.result.access?.protocol == (scenario.mode == .bac ? "BAC" : "PACE"))
            #expect(read.result.access?.mapping == scenario.mode.paceInfo?.paceProtocol?.mapping.rawValue)
            #expect(read.result.access?.fallback == nil)
            // EF.ATR/INFO comes with the `ef-dir-6982-before-access` chip only (read after PACE).
            #expect(Set(read.files.keys).subtracting([.atrInfo]) == Set(reference.files.keys))
            for (file, bytes) in reference.files { #expect(read.files[file] == bytes, "\(file.name)") }
        }
        #expect(t.apdus < 4 * reference.result.transport.apdus + 300, "bounded: no endless loop")
        #expect(elapsed < .seconds(120))

        switch scenario.quirk {
        case .respond61xx:
            #expect(await chip.getResponsesAnswered > 0)
            // A short-only chip sends its long answers in 61xx pieces without the quirk too.
            #expect(t.apdus - reference.result.transport.apdus == (await chip.getResponsesAnswered) - (await referenceChip.getResponsesAnswered),
                    "every extra exchange is a GET RESPONSE")
            #expect(t.adjustments.contains { $0.hasPrefix("61xx") })
        case .smBare6700Extended:
            #expect(t.adjustments.contains { $0.contains("gmrtd#457") })
            // Le 0000 refused, then an explicit extended Le refused: short APDUs from then on.
            #expect(!t.recoveries.isEmpty && t.recoveries.allSatisfy { $0.kind == "wrongLength" },
                    "no re-authentication: the session was kept")
            #expect(t.recoveries.count <= 2)
        case .le00Refused6B00:
            #expect(t.recoveries.contains { $0.kind == "maximumLeRefused" })
            #expect(!t.recoveries.contains { $0.kind == "secureMessagingLost" })
        case let quirk where quirk.masterFileSelectRefusal != nil:
            // A PACE chip's master file is read after PACE but for EF.CardAccess; a BAC chip's
            // EF.ATR/INFO is read in plain before BAC (no access control, Doc 9303-10 §3.11), and a
            // refusal is only reported.
            let refused = quirk == .efDir6982BeforeAccess && scenario.mode == .bac ? 1 : 0
            #expect(await chip.refusedBeforeAccess == refused, "no master-file read but EF.CardAccess before access control")
            if refused > 0 { #expect(read.result.atrInfo?.status == "refused") }
            #expect(await chip.masterFileSelectsRefused == 0, "neither the master file nor EF.DIR is selected")
        case .aa6A88:
            let expected = try #require(scenario.expectedActiveAuthentication)
            let aa = read.result.checks.activeAuthentication
            #expect(aa.result == expected.result)
            #expect(aa.reason?.hasPrefix(expected.reason) == true, "\(aa.reason ?? "")")
            #expect(await chip.internalAuthenticatesRefused == expected.internalAuthenticates)
            if expected.internalAuthenticates > 0 {
                #expect(reference.result.checks.activeAuthentication.result == CheckResult.passed)
            }
        case .bac6A88 where scenario.expectedError == nil:
            #expect(read.result.access?.protocol == "PACE")
        case .extendedAnnouncedRefused:
            #expect(t.recoveries.contains { $0.kind == "wrongLength" })
            #expect(t.adjustments.contains { $0.contains("6700") })
        case .slowRead1500ms:
            #expect(elapsed >= .milliseconds(1500 * t.readBinaryCommands), "each READ BINARY took its 1.5 s")
        case .selectAID6999:
            // Under BAC the application is selected in plain, before BAC: the quirk never fires.
            let refused = scenario.mode == .bac ? 0 : 1
            #expect(await chip.applicationSelectsRefused == refused)
            #expect(t.recoveries.count == refused, "\(t.recoveries.map(\.kind))")
        case .slowPACE4500ms:
            let slow = scenario.mode == .bac ? 0 : 2
            #expect(await chip.slowPACESteps == slow, "the mapping and key agreement steps each took 4.5 s")
            #expect(elapsed >= .milliseconds(4500 * slow))
            #expect(t.recoveries.isEmpty, "no step was given up on and retried")
        case .wrongKey6985, .wrongKey6988:
            #expect(await chip.failedAccessAttempts == 1, "the refused key is tried once")
            #expect(read.result.error?.message.contains(scenario.quirk.wrongKeyRefusal?.hex ?? "-") == true,
                    "\(read.result.error?.message ?? "")")
        case .sfiRefusedPlain6A82:
            #expect(await chip.shortFileIdentifierReadsRefused == 1, "one SFI read refused, SELECT from then on")
            #expect(t.recoveries.isEmpty, "no re-authentication: \(t.recoveries.map(\.kind))")
            #expect(t.adjustments.contains { $0.contains("SELECT from now on") })
        case .readPastEnd6B00:
            #expect(await chip.readsPastEndRefused > 0)
            #expect(t.adjustments.contains { $0.contains("the header alone") }, "\(t.adjustments)")
        case .paceParameterID6A87 where scenario.mode != .bac:
            #expect(scenario.configuration.pace?.requireParameterID == true)
        default:
            break
        }
    }

    // MARK: What peers' users report, checked here (docs/field-quirks.md, "Reported elsewhere")

    /// tananaev/passport-reader#54: Chip Authentication failing on Chinese and Russian passports,
    /// because that app asked for one CA variant (ECDH, AES-256) whatever DG14 offered. Here the
    /// variant is DG14's ChipAuthenticationInfo for the key: 3DES on secp192r1 (the Russian
    /// passport's curve, gmrtd#10) and AES-128 on P-256 with a key id pass under every mode.
    @Test(arguments: FieldQuirkAccessMode.allCases)
    func chipAuthenticationRunsTheVariantDG14Offers(_ mode: FieldQuirkAccessMode) async throws {
        for spec in [ChipAuthenticationKeySpec(domainParameterID: 8, cipher: .tripleDES),
                     ChipAuthenticationKeySpec(domainParameterID: 12, cipher: .aes128, keyID: 7)] {
            let fixture = try AuthenticationFixture.make(chipAuthentication: [spec])
            let chip = VirtualChip(configuration: try FieldQuirkScenario.chip(mode, authentication: fixture))
            var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2, 14], access: mode == .bac ? .bac : .auto)
            options.trustStore = try Self.trust()
            let read = await DocumentReader.read(transport: chip, options: options)
            #expect(read.result.status == .valid, "\(mode) \(spec): \(read.result.error?.message ?? "")")
            let ca = read.result.checks.chipAuthentication
            // PACE-CAM authenticates the chip by EF.CardSecurity's key; DG14's CA is then not run.
            #expect(ca.result == .passed, "\(mode) \(spec): \(ca)")
        }
    }

    /// gmrtd/gmrtd#6: the last protected frame of a US passport's EF.SOD (Le 0x77, 119 bytes)
    /// failed gmrtd's MAC check, "a padding related quirk". Here every last-frame length a short
    /// link produces (1-32 bytes and 119) is protected by the chip's own implementation and checked
    /// by the reader's, under BAC (3DES) and PACE (AES): each verifies.
    @Test(arguments: [FieldQuirkAccessMode.bac, .paceGM])
    func everyLastFrameLengthOfAShortReadVerifies(_ mode: FieldQuirkAccessMode) async throws {
        for tail in Array(1...32) + [119] {
            var config = try FieldQuirkScenario.chip(mode, link: .short)
            // A file of 223 · 3 + tail bytes: three full frames, then the tail.
            let body = [UInt8](repeating: 0x5A, count: 223 * 3 + tail - 4)
            let file = TLV.encode(tag: 0x6B, value: body)
            #expect(file.count == 223 * 3 + tail)
            config.files[.dg(11)] = file
            let chip = VirtualChip(configuration: config)
            let session = ChipSession(transport: chip, options: ReadOptions(
                accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1], access: mode == .bac ? .bac : .pace))
            _ = try await session.openChip()
            let read = try await session.reader.read(.dg(11))
            #expect(read == file, "\(mode): a last frame of \(tail) bytes")
        }
    }

    // MARK: lock-after-failed-access (passport-reader#10)

    @Test func aWrongKeyIsTriedOnceSoAChipThatLocksIsNotLockedByTheReader() async throws {
        let chip = VirtualChip(configuration: try FieldQuirkScenario.lockingChip())
        let wrong = ReadOptions(accessKey: .mrz(FieldQuirkScenario.wrongKey), access: .bac)
        let first = await DocumentReader.read(transport: chip, options: wrong)
        #expect(first.result.error?.code == .accessDenied)
        #expect(await chip.failedAccessAttempts == 1, "one attempt per read: no retry of a refused key")
        #expect(!(await chip.isLocked))
        // The right key still opens it.
        let right = await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), access: .bac))
        #expect(right.result.error == nil, "\(right.result.error?.message ?? "")")
        #expect(right.files[.dg(1)] != nil)
    }

    @Test func aChipThatStoppedAnsweringEndsTheReadWithATimeoutNotALoop() async throws {
        let chip = VirtualChip(configuration: try FieldQuirkScenario.lockingChip())
        let wrong = ReadOptions(accessKey: .mrz(FieldQuirkScenario.wrongKey), access: .bac)
        for _ in 0..<VirtualChip.lockThreshold {
            #expect(await DocumentReader.read(transport: chip, options: wrong).result.error?.code == .accessDenied)
        }
        #expect(await chip.isLocked)
        let before = await chip.exchangeCount
        let started = ContinuousClock.now
        let read = await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), access: .bac))
        #expect(read.result.status == .failed)
        #expect(read.result.error?.code == .chipTimeout)
        #expect(read.files.isEmpty)
        #expect(await chip.exchangeCount == before, "the mute chip answered nothing")
        #expect(read.result.transport.apdus <= 2, "one attempt, no loop")
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    // MARK: EF.ATR/INFO before and after access control (gmrtd#226)

    @Test func efATRInfoRefusedBeforeAccessControlIsASpecificErrorAndReadableAfterPACE() async throws {
        let scenario = try #require(Self.scenarios.first { $0.quirk == .efDir6982BeforeAccess && $0.mode == .paceGM })
        let chip = VirtualChip(configuration: scenario.configuration)
        let channel = ChipChannel(transport: chip)
        let reader = FileReader(channel: channel)
        await #expect(throws: ProtocolError.fileAccessDenied(.atrInfo, .securityStatusNotSatisfied)) {
            _ = try await reader.read(.atrInfo)
        }
        let cardAccess = try await reader.read(.cardAccess)
        let parameters = try PACEParameters.strongest(in: try SecurityInfos(derEncoded: cardAccess))
        _ = try await PACE.perform(channel: channel, parameters: parameters,
                                   password: AccessKey.mrz(FieldQuirkScenario.key).pacePassword, random: SystemRandom())
        let atrInfo = try await FileReader(channel: channel).read(.atrInfo)
        #expect(atrInfo == scenario.configuration.files[.atrInfo])
        #expect(await chip.refusedBeforeAccess == 1)
    }

    // MARK: SELECT of the master file or EF.DIR refused (gmrtd#460)

    @Test(arguments: VirtualChipQuirk.allCases.filter { $0.masterFileSelectRefusal != nil })
    func aChipThatRefusesToSelectTheMasterFileOrEFDIRIsStillRead(_ quirk: VirtualChipQuirk) async throws {
        let scenario = try #require(Self.scenarios.first { $0.quirk == quirk })
        let refusal = try #require(quirk.masterFileSelectRefusal)
        let chip = VirtualChip(configuration: scenario.configuration)
        let channel = ChipChannel(transport: chip)
        // Both forms of SELECT MF (3F00 and no data) and SELECT EF.DIR: the chip refuses each.
        for command in [CommandAPDU(ins: 0xA4, p1: 0x00, p2: 0x0C, data: [0x3F, 0x00]),
                        CommandAPDU(ins: 0xA4, p1: 0x00, p2: 0x0C, data: []),
                        CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x2F, 0x00])] {
            #expect(try await channel.send(command).statusWord == refusal)
        }
        #expect(await chip.masterFileSelectsRefused == 3)
        var options = scenario.options()
        options.trustStore = try Self.trust()
        let read = await DocumentReader.read(transport: chip, options: options)
        #expect(read.result.status == .valid, "\(read.result.error?.message ?? "")")
        #expect(read.result.applications?.lds1 == true)
        #expect(read.files[.dg(2)] == scenario.wellBehaved.files[.dg(2)])
        #expect(await chip.masterFileSelectsRefused == 3, "the read itself selects neither")
    }

    // MARK: The 7816-4 response handling itself

    @Test func an61xxAnswerThatNeverEndsIsAbandonedWithASpecificError() async throws {
        // A chip that always has "1 more byte": bounded by the piece count.
        let first = ScriptedTransport.Exchange(command: [0x00, 0x84, 0x00, 0x00, 0x08], response: [0xAA, 0x61, 0x01])
        let more = ScriptedTransport.Exchange(command: [0x00, 0xC0, 0x00, 0x00, 0x01], response: [0xBB, 0x61, 0x01])
        let transport = ScriptedTransport([first] + Array(repeating: more, count: ChipChannel.maxResponsePieces + 5))
        let channel = ChipChannel(transport: transport)
        await #expect(throws: ProtocolError.responseTooLong(pieces: ChipChannel.maxResponsePieces, bytes: ChipChannel.maxResponsePieces + 1)) {
            _ = try await channel.send(CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8))
        }
        #expect(transport.consumed == ChipChannel.maxResponsePieces + 1)
        #expect(ProtocolError.responseTooLong(pieces: 1, bytes: 2).code == "responseTooLong")
    }

    @Test func an61xxAnswerIsCompletedAndA6CxxIsResentWithTheLengthNamed() async throws {
        let transport = ScriptedTransport([
            .init(command: [0x00, 0xB0, 0x00, 0x00, 0x00], response: [0x6C, 0x05]),
            .init(command: [0x00, 0xB0, 0x00, 0x00, 0x05], response: [1, 2, 0x61, 0x03]),
            .init(command: [0x00, 0xC0, 0x00, 0x00, 0x03], response: [0x6C, 0x02]),
            .init(command: [0x00, 0xC0, 0x00, 0x00, 0x02], response: [3, 4, 0x61, 0x01]),
            .init(command: [0x00, 0xC0, 0x00, 0x00, 0x01], response: [5, 0x90, 0x00]),
        ], capabilities: .shortOnly)
        let channel = ChipChannel(transport: transport)
        let response = try await channel.send(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256))
        #expect(response.data == [1, 2, 3, 4, 5])
        #expect(response.statusWord == .success)
        #expect(channel.report.apdus == 5)
        #expect(channel.report.recoveries.map(\.kind) == ["exactLength"])
        #expect(channel.report.adjustments.count == 1)
    }

    @Test func aBare6700IsKeptInSecureMessagingOnlyForAnExtendedReadBinary() async throws {
        // Anything else in plain inside secure messaging still means the session is gone.
        let session = SecureMessaging(cipher: .tripleDES, kEnc: [UInt8](repeating: 1, count: 16),
                                      kMac: [UInt8](repeating: 2, count: 16), ssc: [UInt8](repeating: 0, count: 8))
        for (command, kept) in [(CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 1000), true),
                                (CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 100), false),
                                (CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: [1, 2, 3, 4, 5, 6, 7, 8], ne: 1000), false)] {
            let channel = ChipChannel(transport: AnswerEverything(answer: [0x67, 0x00]))
            channel.startSecureMessaging(session)
            if kept {
                let response = try await channel.send(command)
                #expect(response.statusWord == .wrongLength)
                #expect(channel.secureMessaging != nil)
            } else {
                await #expect(throws: ProtocolError.unprotectedResponse(.wrongLength)) { _ = try await channel.send(command) }
                #expect(channel.secureMessaging == nil)
            }
        }
    }

    @Test func aPlainRefusalOfAReadBinaryByShortIdentifierKeepsTheSessionAndNothingElseDoes() async throws {
        let session = SecureMessaging(cipher: .aes128, kEnc: [UInt8](repeating: 1, count: 16),
                                      kMac: [UInt8](repeating: 2, count: 16), ssc: [UInt8](repeating: 0, count: 16))
        for (command, answer, kept) in [
            (CommandAPDU(ins: 0xB0, p1: 0x81, p2: 0, ne: 100), [UInt8]([0x6A, 0x82]), true),
            (CommandAPDU(ins: 0xB0, p1: 0x9D, p2: 0, ne: 100), [0x6A, 0x86], true),
            // The session's end (6987/6988), a READ BINARY by offset, a SELECT: the session is gone.
            (CommandAPDU(ins: 0xB0, p1: 0x81, p2: 0, ne: 100), [0x69, 0x88], false),
            (CommandAPDU(ins: 0xB0, p1: 0x00, p2: 0, ne: 100), [0x6A, 0x82], false),
            (CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x1E]), [0x6A, 0x82], false),
        ] {
            let channel = ChipChannel(transport: AnswerEverything(answer: answer))
            channel.startSecureMessaging(session)
            if kept {
                let response = try await channel.send(command)
                #expect(response.statusWord == StatusWord(sw1: answer[0], sw2: answer[1]))
                #expect(channel.secureMessaging?.ssc == [UInt8](repeating: 0, count: 15) + [1], "the command's step only")
            } else {
                await #expect(throws: ProtocolError.unprotectedResponse(StatusWord(sw1: answer[0], sw2: answer[1]))) {
                    _ = try await channel.send(command)
                }
                #expect(channel.secureMessaging == nil)
            }
        }
    }

    @Test func aReaderProfilesAnswerLimitCapsEveryReadBinary() async throws {
        // The SCL3711 profile: short APDUs, answers of at most 162 bytes (docs/field-quirks.md).
        let scenario = try #require(Self.scenarios.first { $0.quirk == .eof6282 })
        let chip = VirtualChip(configuration: scenario.wellBehaved)
        let link = Capped(chip: chip, capabilities: .init(extendedLength: false, maxCommandLength: 261, maxResponseLength: 162))
        var options = scenario.options()
        options.trustStore = try Self.trust()
        let read = await DocumentReader.read(transport: link, options: options)
        #expect(read.result.status == .valid, "\(read.result.error?.message ?? "")")
        let cap = SecureMessaging.maxPlainLength(fitting: 162, blockSize: 8)
        #expect(read.result.transport.maxReadLength <= cap && cap < 160)
        #expect(read.files[.dg(2)] == scenario.wellBehaved.files[.dg(2)])
    }

    /// A reader tried with extended length that cannot carry it (a PC/SC reader whose driver says
    /// nothing, `PCSCConnection`): the first extended APDU never reaches the chip, the link reports
    /// it too long and carries short APDUs from then on. Under every mode the read ends `valid`
    /// with no re-authentication: the send sequence counter stays in step with the chip's.
    @Test(arguments: FieldQuirkAccessMode.allCases)
    func anExtendedAPDUTheReaderCannotCarryLeavesTheSessionInStep(_ mode: FieldQuirkAccessMode) async throws {
        let chip = VirtualChip(configuration: try FieldQuirkScenario.chip(mode))
        let link = TentativeExtendedLength(chip: chip)
        var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2], access: mode == .bac ? .bac : .auto)
        options.trustStore = try Self.trust()
        let read = await DocumentReader.read(transport: link, options: options)
        let t = read.result.transport
        #expect(read.result.status == .valid, "\(mode): \(read.result.error?.message ?? "")")
        #expect(link.refused == 1, "one extended APDU refused by the reader")
        #expect(!t.recoveries.contains { $0.kind == "secureMessagingLost" || $0.kind == "macInvalid" }, "\(t.recoveries.map(\.kind))")
        #expect(t.adjustments.contains { $0.hasPrefix("extended-length APDU not carried") })
    }

    /// Extended length believed until the first protected extended APDU, which it cannot carry.
    final class TentativeExtendedLength: APDUTransport, @unchecked Sendable {
        let chip: VirtualChip
        private let state = Mutex((extended: true, refused: 0))
        init(chip: VirtualChip) { self.chip = chip }
        var refused: Int { state.withLock { $0.refused } }
        var capabilities: TransportCapabilities { state.withLock { $0.extended } ? .extended : .shortOnly }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            // The first protected one (the plain reads before access control are short or pass).
            let extended = command.count >= 7 && command[4] == 0 && command[0] & 0x0C == 0x0C
            if extended {
                let carried = state.withLock { state -> Bool in
                    guard state.extended else { return true }
                    state.extended = false
                    state.refused += 1
                    return false
                }
                if !carried { throw TransportError.commandTooLong(command.count, max: 261) }
            }
            return try await chip.transmit(command)
        }
    }

    /// A link with a reader's limits in front of a chip.
    struct Capped: APDUTransport {
        let chip: VirtualChip
        let capabilities: TransportCapabilities
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            guard command.count <= capabilities.maxCommandLength else { throw TransportError.commandTooLong(command.count, max: capabilities.maxCommandLength) }
            let answer = try await chip.transmit(command)
            guard answer.count <= capabilities.maxResponseLength else { throw TransportError.serviceFailure("answer of \(answer.count) bytes") }
            return answer
        }
    }

    /// A transport answering every command the same.
    struct AnswerEverything: APDUTransport {
        let answer: [UInt8]
        var capabilities: TransportCapabilities { .extended }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] { answer }
    }
}

/// NFCPassportReader#265 (docs/field-quirks.md, "Signed data"): a 2018 Russian passport lists DG2
/// and gives no portrait. The read ends with what the chip gave, passive authentication over it,
/// DG2 in `dataGroupsSkipped` and a `portraitMissing` warning.
@Suite struct PortraitMissingTests {
    @Test(arguments: FieldQuirkScenario.PortraitAnswer.allCases)
    func aChipThatListsDG2AndGivesNoPortraitIsReadToTheEndWithANamedWarning(
        _ answer: FieldQuirkScenario.PortraitAnswer
    ) async throws {
        let chip = VirtualChip(configuration: try FieldQuirkScenario.portraitlessChip(answer))
        var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2], access: .bac)
        options.trustStore = try FieldQuirkTests.trust()
        let read = await DocumentReader.read(transport: chip, options: options)
        // A chip that withholds its mandatory portrait is never `valid` (TR-03105-5.1 ISO7816_C_01).
        #expect(read.result.status == .invalid, "\(answer): \(read.result.error?.code.rawValue ?? "") \(read.result.error?.message ?? "")")
        #expect(read.result.warnings.contains { $0.hasPrefix("mandatoryDataGroupMissing: DG2") })
        #expect(read.result.face == nil)
        #expect(read.result.document?.documentNumber == "L898902C3")
        #expect(read.result.dataGroupsRead == ["EF_COM", "EF_SOD", "DG1"], "\(read.result.dataGroupsRead)")
        let reason = answer == .fileNotFound ? "fileNotFound" : ReadResult.SkippedFile.fileEmpty
        #expect(read.result.dataGroupsSkipped == [.init(file: "DG2", reason: reason)])
        #expect(read.result.warnings.contains { $0.hasPrefix("portraitMissing: ") }, "\(read.result.warnings)")
        #expect(read.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "notRead")
        #expect(read.result.checks.passiveAuthentication.dataGroupHashes?["DG1"] == "valid")
    }

    @Test func aDataGroupThatBreaksOffAfterItsFirstBytesIsStillTruncatedNotEmpty() async throws {
        var config = try FieldQuirkScenario.portraitlessChip(.fileNotFound)
        config.files[.dg(2)] = Array(try SpecimenDocument.make().files[.dg(2)]!.prefix(100))
        var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2], access: .bac)
        options.trustStore = try FieldQuirkTests.trust()
        let read = await DocumentReader.read(transport: VirtualChip(configuration: config), options: options)
        #expect(read.result.error?.code == .fileTruncated, "\(read.result.status) \(read.result.dataGroupsSkipped)")
    }

    @Test func aWellBehavedChipHasNoPortraitWarning() async throws {
        let specimen = try SpecimenDocument.make()
        let chip = VirtualChip(configuration: VirtualChipConfiguration(files: specimen.files, accessKey: FieldQuirkScenario.key))
        var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2], access: .bac)
        options.trustStore = try FieldQuirkTests.trust()
        let read = await DocumentReader.read(transport: chip, options: options)
        #expect(read.result.status == .valid)
        #expect(read.result.face != nil)
        #expect(!read.result.warnings.contains { $0.hasPrefix("portraitMissing") })
    }
}

/// NFCPassportReader 2.3.1 (docs/field-quirks.md, "Signed data"): a chip whose DG2 holds a JPEG 2000
/// face followed by padding. Passive authentication covers DG2 as read, padding included; the face
/// handed out is the image without it, and a `faceImagePadding` warning counts what was left out.
@Suite struct PaddedPortraitReadTests {
    @Test func aPaddedJPEG2000PortraitIsReadValidAndHandedOutWithoutThePadding() async throws {
        let (files, image) = try SpecimenDocument.withPaddedJPEG2000Face(padding: [UInt8](repeating: 0, count: 37))
        let chip = VirtualChip(configuration: VirtualChipConfiguration(files: files, accessKey: FieldQuirkScenario.key))
        var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2], access: .bac)
        options.trustStore = try FieldQuirkTests.trust()
        let read = await DocumentReader.read(transport: chip, options: options)
        #expect(read.result.status == .valid, "\(read.result.error?.message ?? "")")
        #expect(read.files[.dg(2)] == files[.dg(2)])
        #expect(read.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "valid")
        #expect(read.result.face?.mimeType == "image/jp2")
        #expect(read.result.face?.size == image.count)
        #expect(try DG2(rawBytes: try #require(read.files[.dg(2)])).faces.first?.imageData == image)
        #expect(read.result.warnings.contains { $0.hasPrefix("faceImagePadding: 37 bytes") }, "\(read.result.warnings)")
    }
}

/// JMRTD bug #88 (docs/field-quirks.md, "Signed data"): DG12's date of issue and personalisation
/// date as 4 bytes of packed BCD instead of 8 ASCII digits, read off a chip into the result.
@Suite struct BCDDocumentDatesTests {
    @Test func dg12DatesInPackedBCDReachTheResultAsISODates() async throws {
        let dg12 = TLV.encode(tag: 0x6C, children: [
            TLV.encode(tag: 0x5C, value: [0x5F, 0x26, 0x5F, 0x55]),
            TLV.encode(tag: 0x5F26, value: [0x20, 0x18, 0x03, 0x27]),
            TLV.encode(tag: 0x5F55, value: [0x20, 0x18, 0x03, 0x21]),
        ])
        let specimen = try SpecimenDocument.make(extraDataGroups: [12: dg12])
        let chip = VirtualChip(configuration: VirtualChipConfiguration(files: specimen.files, accessKey: FieldQuirkScenario.key))
        var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2, 12], access: .bac)
        options.trustStore = try FieldQuirkTests.trust()
        let read = await DocumentReader.read(transport: chip, options: options)
        #expect(read.result.status == .valid, "\(read.result.error?.message ?? "")")
        let details = try #require(read.result.documentDetails)
        #expect(details.dateOfIssue == "2018-03-27")
        #expect(details.dateOfIssueRaw == "20180327")
        #expect(details.personalizationTime == "2018-03-21")
        #expect(!read.result.warnings.contains { $0.hasPrefix("DG12") }, "\(read.result.warnings)")
    }
}

extension PortraitMissingTests {
    @Test func anEmptyDG1StillFailsTheRead() async throws {
        var config = try FieldQuirkScenario.portraitlessChip(.fileNotFound)
        config.files[.dg(1)] = []
        config.files[.dg(2)] = try SpecimenDocument.make().files[.dg(2)]
        var options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2], access: .bac)
        options.trustStore = try FieldQuirkTests.trust()
        let read = await DocumentReader.read(transport: VirtualChip(configuration: config), options: options)
        #expect(read.result.status == .failed, "\(read.result.dataGroupsSkipped)")
        #expect(read.result.dataGroupsSkipped.isEmpty)
    }
}
