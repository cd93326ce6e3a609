import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders

/// The libnfc backend driving the real libnfc 1.8 through its `pn532_uart` driver, against the
/// PN532 emulator on a pseudo-terminal, with the virtual chip behind it.
@Suite(.serialized) struct LibNFCEmulatorTests {
    static let specimen = try! SpecimenDocument.make()
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    static func chip() -> VirtualChip {
        VirtualChip(configuration: VirtualChipConfiguration(
            files: specimen.files, accessKey: key, extendedLength: false))
    }

    static func backend(_ emulator: PN532Emulator, poll: Duration = .milliseconds(20)) -> LibNFCBackend {
        LibNFCBackend(configuration: .init(
            connstrings: [emulator.connstring], listDevices: false, rescanInterval: .milliseconds(100),
            pollInterval: poll, exchangeTimeout: .seconds(2)))
    }

    @Test(arguments: PN532Emulator.Card.Kind.allCases)
    func theSpecimenReadsThroughLibNFCAndTheEmulator(_ kind: PN532Emulator.Card.Kind) async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        emulator.insert(.init(kind: kind, chip: Self.chip()))
        let backend = Self.backend(emulator)
        let readers = try await backend.readers()
        try #require(readers.count == 1)
        #expect(readers[0].backend == .libnfc)
        #expect(readers[0].capabilities == .shortOnly)
        #expect(readers[0].cardPresent)
        let connection = try await backend.connect(reader: readers[0].name)
        let read = await DocumentReader.read(transport: connection, options: ReadOptions(accessKey: .mrz(Self.key)))
        await connection.close()
        await backend.shutdown()
        #expect(read.result.error == nil)
        #expect(read.files[.dg(2)] == Self.specimen.files[.dg(2)])
        #expect(read.result.document?.documentNumber == "L898902C3")
        #expect(emulator.statistics.unknownCommands.isEmpty, "\(emulator.statistics.unknownCommands)")
        print("libnfc \(kind): ATR \(connection.atr.hex) apdus \(read.result.transport.apdus) commands \(emulator.statistics.commands)")
    }
}
