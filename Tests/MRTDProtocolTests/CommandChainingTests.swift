import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import Testing

import MRTDProtocol
import MRTDSimulation
import MRTDTranscript

/// ISO/IEC 7816-4 §5.3.3 command chaining for data fields a short APDU cannot carry: PACE with a
/// 2048-bit MODP group (parameter ID 2, Doc 9303-11 §9.5.1) sends 256-byte public keys, a 264-byte
/// GENERAL AUTHENTICATE data field, over a reader or a chip with short APDUs only.
@Suite struct CommandChainingTests {
    static let key = try! SimulatedDocument.specimenKey()

    /// The specimen behind PACE-GM DH-2048 (parameter ID 2, AES-128), short APDUs only.
    static func shortOnlyDH2048Chip() throws -> VirtualChipConfiguration {
        var document = SimulatedDocument()
        document.access = .pace
        document.paceInfos = [PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 2)]
        document.extendedLength = false
        return try document.chip()
    }

    @Test func paceDH2048OverShortAPDUsOnlyChainsGeneralAuthenticate() async throws {
        let chip = VirtualChip(configuration: try Self.shortOnlyDH2048Chip())
        #expect(chip.capabilities == .shortOnly)
        let recorder = RecordingTransport(chip)
        let read = await DocumentReader.read(
            transport: recorder,
            options: ReadOptions(accessKey: .mrz(Self.key), access: .pace, trustStore: try SimulationPKI.trustStore()))
        let result = read.result
        #expect(result.status == .valid, "\(result.status): \(result.error?.message ?? "")")
        #expect(result.access?.protocol == "PACE")
        #expect(result.access?.keyAgreement == "DH")
        #expect(result.access?.parameterId == 2)
        let commands = recorder.exchanges.map(\.command)
        // Short APDUs only: no command longer than 261 bytes, none in the extended form.
        #expect(commands.allSatisfy { $0.count <= 261 })
        #expect(!commands.contains { $0.count >= 7 && $0[4] == 0x00 })
        // The mapping (81) and key agreement (83) public keys came in two pieces each: a first one
        // of 255 bytes (chaining bit, the 7C object incomplete), then the rest.
        let ga = commands.filter { $0.count > 5 && $0[1] == 0x86 }
        let full = ga.filter { $0[4] == 0xFF }
        #expect(full.count == 2, "mapping and key agreement each chained")
        #expect(full.allSatisfy { $0[0] == 0x10 && $0[5] == 0x7C })
        #expect(await chip.chainedPiecesReceived == 2)
        #expect(result.transport.adjustments.contains { $0.hasPrefix("command chaining: INS 86") })
        // The chip's 264-byte answers came in 61xx pieces (a short-only chip cannot send them whole).
        #expect(result.transport.adjustments.contains { $0.hasPrefix("61xx") })
        #expect(read.files[.dg(2)] != nil)
    }

    @Test func aShortOnlyChipRefusesAnExtendedCommandAndAnOverlongOneFromATRInfo() async throws {
        let chip = VirtualChip(configuration: try Self.shortOnlyDH2048Chip())
        // An extended-length SELECT (Lc 00 00 07): a short-only chip answers 6700.
        let extended: [UInt8] = [0x00, 0xA4, 0x04, 0x0C, 0x00, 0x00, 0x07] + ApplicationID.lds1
        #expect(await chip.process(extended) == [0x67, 0x00])
        // A chip that states 200-byte commands in EF.ATR/INFO refuses a 210-byte one.
        let limited = VirtualChip(configuration: try Self.shortOnlyDH2048Chip()
            .with(apduLimits: VirtualAPDULimits(maxCommandLength: 200, maxResponseLength: 258)))
        let long: [UInt8] = [0x10, 0x86, 0x00, 0x00, 0xCD] + [UInt8](repeating: 0x00, count: 205)
        #expect(await limited.process(long) == [0x67, 0x00])
        #expect(await limited.apduLimitRefusals == 1)
    }
}
