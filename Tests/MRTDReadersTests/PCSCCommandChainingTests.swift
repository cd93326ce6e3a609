import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

import MRTDReaders
import MRTDSimulation

extension PCSCHardwareLoopTests {
    /// PACE with a 2048-bit MODP group (parameter ID 2) on a chip whose ATR advertises no extended
    /// length, through real pcscd and vpcd: the 264-byte GENERAL AUTHENTICATE data fields go as
    /// chained short APDUs (ISO/IEC 7816-4 §5.3.3), the chip's 264-byte answers come back in `61xx`
    /// pieces, and the read verifies.
    @Test func paceDH2048ThroughPcscdWithShortAPDUsOnlyUsesCommandChaining() async throws {
        var document = SimulatedDocument()
        document.access = .pace
        document.paceInfos = [PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 2)]
        document.extendedLength = false
        let chip = VirtualChip(configuration: try document.chip())
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: chip, port: daemon.vpcdPort)
            try await Self.insert(card, events: events)
            let connection = try await backend.connect(reader: Self.reader)
            #expect(try AnswerToReset(connection.atr).advertisesExtendedLength == false)
            #expect(!connection.capabilities.extendedLength)
            let read = await DocumentReader.read(
                transport: connection,
                options: ReadOptions(accessKey: .mrz(try SimulatedDocument.specimenKey()), access: .pace,
                                     trustStore: try SimulationPKI.trustStore()))
            await connection.close()
            #expect(read.result.status == .valid, "\(read.result.status): \(read.result.error?.message ?? "")")
            #expect(read.result.access?.parameterId == 2)
            #expect(read.result.transport.adjustments.contains { $0.hasPrefix("command chaining: INS 86") })
            #expect(await chip.chainedPiecesReceived == 2)
            #expect(!read.result.transport.extendedLength)
            await card.remove()
            await events.stop()
        }
    }
}
