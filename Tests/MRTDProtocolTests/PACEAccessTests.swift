import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import MRTDVerification

/// Access policy and the negative cases of RELIABILITY PACE-01..08 and BAC-01, each ending in a
/// specific error code or check result.
@Suite("PACE access policy and failures")
struct PACEAccessTests {
    static let specimen = PACEMatrixTests.specimen
    static let key = PACEMatrixTests.key
    static let gmP256 = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 12)
    static let gmDH = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 0)
    static let camBrainpool = PACEInfo(protocol: PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes256)!, parameterID: 13)
    static let imDH3DES = PACEInfo(protocol: PACEProtocol(mapping: .im, keyAgreement: .dh, cipher: .tripleDES)!, parameterID: 0)

    static func chip(
        _ infos: [PACEInfo] = [gmP256], bac: Bool = true, mrzAllowed: Bool = true, faults: Set<VirtualPACE.Fault> = [],
        configure: (inout VirtualChipConfiguration) -> Void = { _ in }
    ) throws -> VirtualChip {
        var config = try VirtualChipConfiguration.paceChip(
            document: specimen, accessKey: key, infos: infos, bac: bac, mrzAllowed: mrzAllowed, faults: faults)
        configure(&config)
        return VirtualChip(configuration: config)
    }

    static func read(_ chip: VirtualChip, _ key: AccessKey = .mrz(key), access: AccessPolicy) async -> DocumentReader.Read {
        await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: key, access: access))
    }

    // MARK: Policy

    @Test func autoChoosesTheStrongestOfSeveralPACEInfosAndSendsTheParameterID() async throws {
        // The chip answers 6A87 to MSE:Set AT without tag 84 (RELIABILITY PACE-02).
        let chip = try Self.chip([Self.gmP256, Self.camBrainpool, Self.imDH3DES])
        let read = await Self.read(chip, access: .auto)
        #expect(read.result.error == nil)
        #expect(read.result.access?.mapping == "CAM")
        #expect(read.result.access?.cipher == "AES-256")
        #expect(read.result.access?.domainParameters == "brainpoolP256r1")
        #expect(read.result.checks.chipAuthentication.result == CheckResult.passedUnverifiedKey)
        #expect(read.files[.cardAccess] != nil)
        #expect(read.files[.cardSecurity] != nil)
    }

    @Test func setATWithoutParameterIDIsRefusedBySuchAChip() async throws {
        let chip = try Self.chip([Self.gmP256, Self.gmDH])
        var parameters = try PACEParameters.strongest(in: SecurityInfos(infos: [.pace(Self.gmP256)]))
        parameters.parameterID = nil
        await #expect(throws: ProtocolError.paceSetupRefused(.lcInconsistentWithP1P2)) {
            _ = try await PACE.perform(channel: ChipChannel(transport: chip), parameters: parameters,
                                       password: .mrz(Self.key), random: SystemRandom())
        }
    }

    @Test func autoUsesBACWithoutFallbackOnAChipWithoutCardAccess() async throws {
        let chip = VirtualChip(configuration: VirtualChipConfiguration(files: Self.specimen.files, accessKey: Self.key))
        let read = await Self.read(chip, access: .auto)
        #expect(read.result.error == nil)
        #expect(read.result.access?.protocol == "BAC")
        #expect(read.result.access?.fallback == nil)
    }

    @Test func bacPolicyNeverReadsCardAccess() async throws {
        let read = await Self.read(try Self.chip(), access: .bac)
        #expect(read.result.access?.protocol == "BAC")
        #expect(read.files[.cardAccess] == nil)
        #expect(read.files[.dg(1)] == Self.specimen.files[.dg(1)])
    }

    @Test func paceOnlyChipIsReadWithPACEUnderAuto() async throws {
        let read = await Self.read(try Self.chip(bac: false), access: .auto)
        #expect(read.result.access?.protocol == "PACE")
        #expect(read.result.error == nil)
    }

    @Test func canOnlyCardOpensWithTheCANAndRefusesTheMRZ() async throws {
        let canRead = await Self.read(try Self.chip(bac: false, mrzAllowed: false), .can("123456"), access: .auto)
        #expect(canRead.result.access?.password == "CAN")
        #expect(canRead.result.error == nil)
        let mrzRead = await Self.read(try Self.chip(bac: false, mrzAllowed: false), access: .pace)
        #expect(mrzRead.result.error?.code == .accessDenied)
        #expect(mrzRead.result.error?.message.contains("MRZ") == true)
    }

    @Test func canWithBACPolicyIsRefusedBeforeTalkingToTheChip() async throws {
        let read = await Self.read(try Self.chip(), .can("123456"), access: .bac)
        #expect(read.result.error?.code == .paceNotSupported)
    }

    // MARK: Wrong password (never retried, never replaced by BAC)

    @Test(arguments: [AccessPolicy.auto, .pace])
    func wrongMRZIsAccessDeniedAndNotRetried(policy: AccessPolicy) async throws {
        let wrong = try MRZKey(documentNumber: "X00000000", dateOfBirth: "740812", dateOfExpiry: "120415")
        let chip = try Self.chip()
        let read = await Self.read(chip, .mrz(wrong), access: policy)
        #expect(read.result.error?.code == .accessDenied)
        #expect(read.result.error?.message.contains("MRZ") == true)
        #expect(read.files.isEmpty)
        // EF.CardAccess (1), MSE:Set AT (1), GENERAL AUTHENTICATE ×4: one attempt, no BAC.
        #expect(read.result.transport.apdus == 6)
    }

    @Test func wrongCANIsAccessDeniedNamingTheCAN() async throws {
        let read = await Self.read(try Self.chip(), .can("654321"), access: .auto)
        #expect(read.result.error?.code == .accessDenied)
        #expect(read.result.error?.message.contains("CAN") == true)
        #expect(read.result.error?.message.contains("654321") == false)
    }

    // MARK: RELIABILITY PACE-01

    @Test func malformedCardAccessAbortsPACEAndAutoFallsBackToBAC() async throws {
        let broken: (inout VirtualChipConfiguration) -> Void = { $0.files[.cardAccess] = [0x31, 0x05, 0x30, 0x03, 0x02, 0x01, 0x02] }
        let pace = await Self.read(try Self.chip(configure: broken), access: .pace)
        #expect(pace.result.error?.code == .paceNotSupported)
        let auto = await Self.read(try Self.chip(configure: broken), access: .auto)
        #expect(auto.result.access?.protocol == "BAC")
        #expect(auto.result.access?.fallback?.reason.hasPrefix("paceNotSupported") == true)
        #expect(auto.result.warnings.contains { $0.contains("PACE failed") })
    }

    @Test func unknownParameterIDAbortsPACE() async throws {
        let bogus = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 99)
        let chip = try Self.chip(configure: { $0.files[.cardAccess] = SecurityInfos(infos: [.pace(bogus)]).derEncoded() })
        let read = await Self.read(chip, access: .pace)
        #expect(read.result.error?.code == .paceNotSupported)
        let dhIDForECDH = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 1)
        #expect(PACEParameters.supported(in: SecurityInfos(infos: [.pace(dhIDForECDH)])).isEmpty)
    }

    // MARK: RELIABILITY PACE-03..06

    @Test(arguments: [1, 2, 3, 4])
    func wrongTagInAGeneralAuthenticateAnswerAborts(step: Int) async throws {
        let read = await Self.read(try Self.chip(faults: [.wrongTag(step: step)]), access: .pace)
        #expect(read.result.error?.code == .paceMalformedResponse)
        #expect(read.files.isEmpty || read.files.keys.allSatisfy { $0 == .cardAccess })
    }

    @Test(arguments: [VirtualPACE.Fault.invalidMappingKey, .invalidEphemeralKey])
    func invalidChipPublicKeyAborts(fault: VirtualPACE.Fault) async throws {
        for info in [Self.gmP256, Self.gmDH] {
            let read = await Self.read(try Self.chip([info], faults: [fault]), access: .pace)
            #expect(read.result.error?.code == .paceInvalidPublicKey, "\(info.paceProtocol!.name)")
        }
    }

    @Test func chipEchoingTheTerminalKeyAborts() async throws {
        let read = await Self.read(try Self.chip(faults: [.echoTerminalKey]), access: .pace)
        #expect(read.result.error?.code == .pacePublicKeyReflected)
    }

    @Test func badChipTokenAbortsAndKeepsNoSessionKeys() async throws {
        let chip = try Self.chip(faults: [.badToken])
        let channel = ChipChannel(transport: chip)
        let parameters = try PACEParameters.strongest(in: SecurityInfos(infos: [.pace(Self.gmP256)]))
        await #expect(throws: ProtocolError.paceTokenInvalid) {
            _ = try await PACE.perform(channel: channel, parameters: parameters, password: .mrz(Self.key), random: SystemRandom())
        }
        #expect(channel.secureMessaging == nil)
        let read = await Self.read(try Self.chip(faults: [.badToken]), access: .pace)
        #expect(read.result.error?.code == .paceTokenInvalid)
    }

    // MARK: RELIABILITY PACE-07

    @Test func protocolFailureFallsBackToBACUnderAutoOnly() async throws {
        let auto = await Self.read(try Self.chip(faults: [.invalidEphemeralKey]), access: .auto)
        #expect(auto.result.error == nil)
        #expect(auto.result.access?.protocol == "BAC")
        #expect(auto.result.access?.fallback == .init(
            from: "PACE", to: "BAC", reason: auto.result.access?.fallback?.reason ?? ""))
        #expect(auto.result.access?.fallback?.reason.hasPrefix("paceInvalidPublicKey") == true)
        #expect(auto.files[.dg(1)] == Self.specimen.files[.dg(1)])
        let pace = await Self.read(try Self.chip(faults: [.invalidEphemeralKey]), access: .pace)
        #expect(pace.result.error?.code == .paceInvalidPublicKey)
    }

    @Test func paceOnlyChipReportsThePACEFailureWhenBACIsNoFallback() async throws {
        let read = await Self.read(try Self.chip(bac: false, faults: [.echoTerminalKey]), access: .auto)
        #expect(read.result.error?.code == .pacePublicKeyReflected)
    }

    // MARK: RELIABILITY PACE-08

    @Test func camWithoutChipAuthenticationDataIsNotAuthenticated() async throws {
        let read = await Self.read(try Self.chip([Self.camBrainpool], faults: [.missingCAMData]), access: .pace)
        #expect(read.result.error == nil)
        #expect(read.result.checks.chipAuthentication == .init(result: .failed, reason: "noChipAuthenticationData", keyFile: "EF_CardSecurity"))
    }

    @Test func camWithWrongChipAuthenticationDataIsNotAuthenticated() async throws {
        let read = await Self.read(try Self.chip([Self.camBrainpool], faults: [.wrongCAMData]), access: .pace)
        #expect(read.result.checks.chipAuthentication == .init(result: .failed, reason: "keyMismatch", keyFile: "EF_CardSecurity"))
    }

    @Test func camWithoutCardSecurityIsNotAuthenticated() async throws {
        let read = await Self.read(try Self.chip([Self.camBrainpool], configure: { $0.files[.cardSecurity] = nil }), access: .pace)
        #expect(read.result.checks.chipAuthentication == .init(result: .failed, reason: "cardSecurityMissing", keyFile: "EF_CardSecurity"))
        #expect(read.result.warnings.contains { $0.contains("EF.CardSecurity") })
    }

    @Test func cardSecurityMissingACardAccessPACEInfoFailsTheCAMCheck() async throws {
        // RELIABILITY CS-01: EF.CardAccess lists a PACEInfo the signed EF.CardSecurity does not.
        let extra = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 8)
        let chip = try Self.chip([Self.camBrainpool], configure: {
            $0.files[.cardAccess] = SecurityInfos(infos: [.pace(Self.camBrainpool), .pace(extra)]).derEncoded()
        })
        let read = await Self.read(chip, access: .pace)
        #expect(read.result.checks.chipAuthentication == .init(result: .failed, reason: "cardSecurityInconsistent", keyFile: "EF_CardSecurity"))
    }

    // MARK: RELIABILITY BAC-01

    @Test func bacWithAWrongChipMACFailsBeforeAnyFileIsRead() async throws {
        var script = AppendixDTests.exchanges()
        script[1].response[script[1].response.count - 3] ^= 0x01  // last byte of M_IC
        let channel = ChipChannel(transport: ScriptedTransport(script, capabilities: .shortOnly))
        await #expect(throws: ProtocolError.authenticationFailed("the chip's MAC (M_IC) does not verify")) {
            try await BAC.perform(channel: channel, key: AppendixDTests.key,
                                  random: ScriptedRandom([UInt8](hex: AppendixDTests.random)!))
        }
        #expect(channel.secureMessaging == nil)
    }

    @Test func bacRefusedWith6300IsAccessDenied() async throws {
        var script = AppendixDTests.exchanges()
        script[1].response = [0x63, 0x00]
        let channel = ChipChannel(transport: ScriptedTransport(script, capabilities: .shortOnly))
        await #expect(throws: ProtocolError.accessDenied(protocol: "BAC", .authenticationFailed)) {
            try await BAC.perform(channel: channel, key: AppendixDTests.key,
                                  random: ScriptedRandom([UInt8](hex: AppendixDTests.random)!))
        }
    }
}

/// PACE on explicit domain parameters from PACEDomainParameterInfo (TR-03110-3 §A.1.1.1).
@Suite("PACE with explicit domain parameters")
struct PACEExplicitParameterTests {
    @Test(arguments: [PACEMapping.gm, .im])
    func explicitBrainpoolParametersAreUsedAndRecognised(mapping: PACEMapping) async throws {
        let explicit = try ECGroup(standard: .brainpoolP256r1).explicitParameters
        let proto = PACEProtocol(mapping: mapping, keyAgreement: .ecdh, cipher: .aes128)!
        let info = PACEInfo(protocol: proto, parameterID: 32)
        let domain = PACEDomainParameterInfo(
            mapping: mapping, keyAgreement: .ecdh, domainParameter: try .explicit(explicit), parameterID: 32)
        let chip = VirtualChip(configuration: try .paceChip(
            document: PACEAccessTests.specimen, accessKey: PACEAccessTests.key, infos: [info],
            domainParameterInfos: [domain], bac: false))
        let read = await DocumentReader.read(
            transport: chip, options: ReadOptions(accessKey: .mrz(PACEAccessTests.key), access: .pace))
        #expect(read.result.error == nil)
        #expect(read.result.access?.parameterId == 32)
        #expect(read.result.access?.domainParameters == "brainpoolP256r1")
        #expect(read.files[.dg(1)] == PACEAccessTests.specimen.files[.dg(1)])
    }

    @Test func explicitDHParametersResolve() throws {
        let dh = DHDomainParameters(p: [UInt8](repeating: 0xFF, count: 128), g: [2], q: nil)
        let proto = PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!
        let infos = SecurityInfos(infos: [
            .pace(PACEInfo(protocol: proto, parameterID: 40)),
            .paceDomainParameters(PACEDomainParameterInfo(
                mapping: .gm, keyAgreement: .dh, domainParameter: try .explicit(dh), parameterID: 40)),
        ])
        let parameters = try PACEParameters.strongest(in: infos)
        #expect(parameters.domainParameters == .dh(dh))
        #expect(parameters.parameterID == 40)
    }

    @Test func explicitParametersOfTheWrongKindAreLeftOut() throws {
        let explicit = try ECGroup(standard: .brainpoolP256r1).explicitParameters
        let dhProto = PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!
        let infos = SecurityInfos(infos: [
            .pace(PACEInfo(protocol: dhProto, parameterID: 33)),
            .paceDomainParameters(PACEDomainParameterInfo(
                mapping: .gm, keyAgreement: .dh, domainParameter: try .explicit(explicit), parameterID: 33)),
        ])
        #expect(PACEParameters.supported(in: infos).isEmpty)
    }
}

@Suite("EF.CardAccess probing on BAC chips")
struct CardAccessProbeTests {
    /// A BAC chip that answers every READ BINARY outside the application with 6700.
    actor OddChip: APDUTransport {
        let chip: VirtualChip
        var selectedApplication = false
        nonisolated var capabilities: TransportCapabilities { chip.capabilities }
        init(_ chip: VirtualChip) { self.chip = chip }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            if command.count > 1 && command[1] == 0xA4 && command.count > 2 && command[2] == 0x04 { selectedApplication = true }
            if !selectedApplication && command.count > 1 && command[1] == 0xB0 { return [0x67, 0x00] }
            return try await chip.transmit(command)
        }
    }

    @Test func unreadableCardAccessIsTreatedAsAbsentUnderAuto() async throws {
        let chip = VirtualChip(configuration: VirtualChipConfiguration(
            files: PACEAccessTests.specimen.files, accessKey: PACEAccessTests.key))
        let read = await DocumentReader.read(
            transport: OddChip(chip), options: ReadOptions(accessKey: .mrz(PACEAccessTests.key), access: .auto))
        #expect(read.result.error == nil)
        #expect(read.result.access?.protocol == "BAC")
        #expect(read.result.access?.fallback == nil)
        #expect(read.result.warnings.contains { $0.hasPrefix("EF.CardAccess could not be read") })
    }
}

/// EF.CardSecurity after PACE GM (read for passive authentication, TR-03110-3 §A.1.2): a chip that
/// cannot serve it is read without it, never failed for it; one that serves it has it verified.
@Suite struct CardSecurityAfterPACETests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    static func read(faults: [Int: VirtualFault]) async throws -> DocumentReader.Read {
        let chip = try VirtualChipConfiguration.paceChip(
            document: try SpecimenDocument.make(), accessKey: key, infos: [SimulatedDocument.defaultPACEInfo], bac: false)
        var store = TrustStore()
        _ = store.addAnchor(try TestPKI.csca(), source: "test CSCA", isTestMaterial: true)
        let slot = VirtualCardSlot(configuration: chip, faults: faults)
        let options = ReadOptions(accessKey: .mrz(key), access: .pace, trustStore: store, recovery: .init(reconnectDelay: .zero))
        return await DocumentReader.read(connect: { try await slot.connect() }, options: options)
    }

    @Test func aPACEGMChipsCardSecurityIsReadAndVerified() async throws {
        let read = try await Self.read(faults: [:])
        #expect(read.result.status == .valid, "\(String(describing: read.result.statusDetail))")
        #expect(read.files[.cardSecurity] != nil)
        #expect(read.result.checks.passiveAuthentication.dataGroupHashes?["EF_CardSecurity"] == "valid")
    }

    /// Exchange 6 is the READ BINARY of EF.CardSecurity (after EF.CardAccess, MSE:Set AT and the four
    /// GENERAL AUTHENTICATE steps); each status word a chip may answer instead.
    @Test(arguments: [StatusWord.wrongLength, StatusWord(rawValue: 0x6B00), .fileNotFound, .securityStatusNotSatisfied])
    func aChipThatCannotServeItIsReadWithoutIt(_ sw: StatusWord) async throws {
        let read = try await Self.read(faults: [6: .chip(.status(sw))])
        #expect(read.result.error == nil, "\(String(describing: read.result.error))")
        #expect(read.result.status == .valid, "\(sw): \(String(describing: read.result.statusDetail)) \(read.result.warnings)")
        #expect(read.files[.dg(1)] != nil && read.files[.dg(2)] != nil)
        // The fault hit EF.CardSecurity (or a length the reader then negotiated to read it whole).
        let cardSecurity = read.files[.cardSecurity]
        #expect(cardSecurity == nil || read.result.checks.passiveAuthentication.dataGroupHashes?["EF_CardSecurity"] == "valid")
        print("CARDSECURITY \(sw): \(cardSecurity == nil ? "not read" : "read"); warnings \(read.result.warnings); adjustments \(read.result.transport.adjustments)")
    }
}
