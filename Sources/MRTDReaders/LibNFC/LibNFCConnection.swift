import MRTDCore

/// A connection to the card selected on a libnfc device. Every exchange runs on the device's
/// thread as one `nfc_initiator_transceive_bytes` (`InDataExchange`: the PN53x does the
/// ISO/IEC 14443-4 block chaining and waiting-time extensions).
final class LibNFCConnection: CardConnection {
    let reader: ReaderDescriptor
    let atr: [UInt8]
    /// How the card was selected ("ISO/IEC 14443-B 106 kbps").
    let modulation: String
    private let device: LibNFCDevice
    private let id: UInt64
    private let generation: UInt64

    init(device: LibNFCDevice, id: UInt64, card: NFCCard, reader: ReaderDescriptor) {
        self.device = device
        self.id = id
        self.generation = card.generation
        self.atr = card.atr
        self.modulation = card.modulation
        self.reader = reader
    }

    var capabilities: TransportCapabilities { reader.capabilities }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        try await device.transmit(command, connection: id, generation: generation)
    }

    func close() async {
        await device.close(connection: id)
    }
}
