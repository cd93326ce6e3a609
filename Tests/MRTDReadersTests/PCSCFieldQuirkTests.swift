import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Testing

@testable import MRTDReaders
import MRTDCrypto
import MRTDSimulation

/// docs/field-quirks.md through real pcscd and vsmartcard's vpcd: every chip quirk of the catalogue
/// on the virtual chip behind a PC/SC reader. Each read ends `valid` with the files the same chip
/// gives in-process when well behaved, or with the specific error of its row. Serialized: one pcscd
/// per machine.
@Suite(.serialized) struct PCSCFieldQuirkTests {
    typealias Support = PCSCTestSupport
    static let reader = PCSCDaemon.readerName

    static func trust() throws -> TrustStore {
        var store = TrustStore()
        _ = store.addAnchor(try TestPKI.csca(), source: "test CSCA", isTestMaterial: true)
        return store
    }

    /// Puts `chip` on the vpcd reader, reads it through the backend with `options`, takes it off.
    static func readThroughPCSC(
        _ chip: VirtualChip, options: ReadOptions, daemon: PCSCDaemon, backend: PCSCBackend, events: EventRecorder
    ) async throws -> (DocumentReader.Read, Int) {
        let card = VPCDCard(chip: chip, port: daemon.vpcdPort)
        try await card.insert()
        let inserted = await events.next(within: .seconds(10)) { $0.isCardInserted && $0.readerName == reader }
        try #require(inserted != nil, "no cardInserted event")
        let connection = try await backend.connect(reader: reader)
        let read = try await Support.within(.seconds(120), "read through pcscd") {
            await DocumentReader.read(transport: connection, options: options)
        }
        await connection.close()
        let served = card.apdusServed
        await card.remove()
        _ = await events.next(within: .seconds(10)) { $0.isCardRemoved && $0.readerName == reader }
        return (read, served)
    }

    @Test func everyChipQuirkReadsThroughPcscdAndVpcdAsInProcess() async throws {
        let scenarios = try FieldQuirkScenario.all()
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            for scenario in scenarios {
                var options = scenario.options()
                options.trustStore = try Self.trust()
                let reference = await DocumentReader.read(
                    transport: VirtualChip(configuration: scenario.wellBehaved), options: options)
                #expect(reference.result.status == (scenario.usesWrongKey ? .failed : .valid), "\(scenario): in-process reference")
                let chip = VirtualChip(configuration: scenario.configuration)
                let (read, served) = try await Self.readThroughPCSC(
                    chip, options: options, daemon: daemon, backend: backend, events: events)
                let t = read.result.transport
                print("PCSC QUIRK \(scenario): \(read.result.status.rawValue) \(read.result.error?.code.rawValue ?? "") in \(t.apdus) APDUs; "
                      + "adjustments \(t.adjustments.count), recoveries \(t.recoveries.map(\.kind))")
                #expect(t.apdus == served, "\(scenario): every APDU reached the card")
                if read.result.error == nil {
                    #expect(read.result.access?.protocol == (scenario.mode == .bac ? "BAC" : "PACE"), "\(scenario)")
                    #expect(read.result.access?.mapping == scenario.mode.paceInfo?.paceProtocol?.mapping.rawValue, "\(scenario)")
                }
                if let code = scenario.expectedError {
                    #expect(read.result.status == .failed, "\(scenario)")
                    #expect(read.result.error?.code.rawValue == code, "\(scenario): \(read.result.error?.message ?? "")")
                    #expect(read.files.isEmpty)
                } else {
                    #expect(read.result.status == scenario.expectedStatus, "\(scenario): \(read.result.error?.code.rawValue ?? "") \(read.result.error?.message ?? "")")
                    // EF.ATR/INFO comes with the `ef-dir-6982-before-access` chip only (read after PACE).
                    #expect(read.files.filter { $0.key != .atrInfo } == reference.files, "\(scenario): files differ from the well-behaved chip's")
                }
                if let expected = scenario.expectedActiveAuthentication {
                    #expect(read.result.checks.activeAuthentication.result == expected.result, "\(scenario)")
                    #expect(await chip.internalAuthenticatesRefused == expected.internalAuthenticates, "\(scenario)")
                }
                if scenario.quirk.masterFileSelectRefusal != nil {
                    #expect(await chip.masterFileSelectsRefused == 0, "\(scenario): no SELECT of MF or EF.DIR")
                }
                if scenario.quirk == .respond61xx {
                    #expect(await chip.getResponsesAnswered > 0, "\(scenario): GET RESPONSE went through pcscd")
                }
            }
            await events.stop()
        }
    }

    @Test func aChipThatLocksAfterFailedAccessIsTriedOncePerReadAndEndsSpecificallyWhenMute() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let chip = VirtualChip(configuration: try FieldQuirkScenario.lockingChip())
            let wrong = ReadOptions(accessKey: .mrz(FieldQuirkScenario.wrongKey), access: .bac)
            for attempt in 1...VirtualChip.lockThreshold {
                let (read, _) = try await Self.readThroughPCSC(chip, options: wrong, daemon: daemon, backend: backend, events: events)
                #expect(read.result.error?.code == .accessDenied)
                #expect(await chip.failedAccessAttempts == attempt, "one authentication per read")
            }
            // The chip no longer answers: the card is deactivated on the first command.
            let right = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), access: .bac)
            let started = ContinuousClock.now
            let (read, _) = try await Self.readThroughPCSC(chip, options: right, daemon: daemon, backend: backend, events: events)
            #expect(read.result.status == .failed)
            let code = read.result.error?.code.rawValue ?? ""
            #expect(["cardRemoved", "chipTimeout"].contains(code), "\(code)")
            #expect(read.files.isEmpty)
            #expect(ContinuousClock.now - started < .seconds(30))
            await events.stop()
        }
    }

    /// Issue 32's fixture rows through pcscd + vpcd: PACE-CAM with a generic Chip Authentication key
    /// on the PACE curve listed before the CAM key (gmrtd#447) reads `valid` with CAM passed; the
    /// wrong MRZ on the same chip is `accessDenied` (the chip refused the key).
    @Test func aCAMChipWithTwoKeysOnTheCurveAndAWrongKeyThroughPcscd() async throws {
        let specimen = try SpecimenDocument.make()
        let cam = PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)
        let config = try VirtualChipConfiguration.paceChip(
            document: specimen, accessKey: FieldQuirkScenario.key, infos: [cam], bac: false,
            camKeys: .withOtherKeyOnTheCurve(camKeyID: 13, otherKeyID: 1))
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let options = ReadOptions(accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1], trustStore: try Self.trust())
            let (read, _) = try await Self.readThroughPCSC(
                VirtualChip(configuration: config), options: options, daemon: daemon, backend: backend, events: events)
            #expect(read.result.status == .valid, "\(read.result.error?.message ?? "")")
            #expect(read.result.checks.chipAuthentication.result == .passed, "\(read.result.checks.chipAuthentication)")
            var wrong = options
            wrong.accessKey = .mrz(FieldQuirkScenario.wrongKey)
            let (refused, _) = try await Self.readThroughPCSC(
                VirtualChip(configuration: config), options: wrong, daemon: daemon, backend: backend, events: events)
            #expect(refused.result.error?.code == .accessDenied, "\(refused.result.error?.message ?? "")")
            await events.stop()
        }
    }

    /// NFCPassportReader#265: a chip that lists DG2 in EF.COM and EF.SOD and answers 6A82 for it, or
    /// holds it empty, is read to the end through pcscd as in-process: `valid`, no face, DG2 in
    /// `dataGroupsSkipped` and a `portraitMissing` warning.
    @Test func aChipThatListsDG2AndGivesNoPortraitIsReadToTheEndThroughPcscd() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            for answer in FieldQuirkScenario.PortraitAnswer.allCases {
                let options = ReadOptions(
                    accessKey: .mrz(FieldQuirkScenario.key), dataGroups: [1, 2], access: .bac, trustStore: try Self.trust())
                let (read, _) = try await Self.readThroughPCSC(
                    VirtualChip(configuration: try FieldQuirkScenario.portraitlessChip(answer)), options: options,
                    daemon: daemon, backend: backend, events: events)
                #expect(read.result.status == .invalid, "\(answer): \(read.result.error?.message ?? "")")  // ISO7816_C_01
                #expect(read.result.face == nil)
                #expect(read.result.dataGroupsSkipped.map(\.file) == ["DG2"], "\(answer)")
                #expect(read.result.warnings.contains { $0.hasPrefix("portraitMissing: ") }, "\(answer): \(read.result.warnings)")
                #expect(read.files[.dg(1)] != nil)
            }
            await events.stop()
        }
    }
}
