import Foundation
import MRTDCore
import MRTDProtocol
import Testing

@testable import MRTDReaders

/// A real document on a physical libnfc reader, when the environment names them:
/// `MRTDD_HW_NFC_CONNSTRING` (a connstring such as `pn53x_usb:` or `pn532_uart:/dev/ttyUSB0`, or
/// `auto` for whatever libnfc lists) and `MRTDD_HW_MRZ` (the MRZ, lines separated by `\n` or `|`).
/// Otherwise it says loudly that it was skipped (CI has no reader and no document).
@Suite struct LibNFCHardwareTests {
    @Test func aRealDocumentReadsThroughAPhysicalLibNFCReader() async throws {
        let env = ProcessInfo.processInfo.environment
        guard let connstring = env["MRTDD_HW_NFC_CONNSTRING"], !connstring.isEmpty else {
            print("LibNFCHardwareTests: SKIPPED — no physical libnfc reader (set MRTDD_HW_NFC_CONNSTRING and MRTDD_HW_MRZ)")
            return
        }
        guard let mrzText = env["MRTDD_HW_MRZ"], !mrzText.isEmpty else {
            let why = env["MRTDD_HW_CAN"] != nil
                ? "MRTDD_HW_CAN is set, but PACE with a CAN is not implemented yet; set MRTDD_HW_MRZ"
                : "MRTDD_HW_MRZ is not set"
            print("LibNFCHardwareTests: SKIPPED — \(why)")
            return
        }
        let text = mrzText.replacingOccurrences(of: "\\n", with: "\n").replacingOccurrences(of: "|", with: "\n")
        let key = try MRZ(text).accessKey
        let auto = connstring == "auto"
        let backend = LibNFCBackend(configuration: .init(connstrings: auto ? [] : [connstring], listDevices: auto))
        let readers = try await backend.readers()
        try #require(!readers.isEmpty, "libnfc found no reader at \(connstring)")
        print("LibNFCHardwareTests: readers \(readers.map(\.name)); present the document (30 s)")
        let reader = try await backend.waitForCard(reader: nil, timeout: .seconds(30))
        let connection = try await backend.connect(reader: reader)
        let clock = ContinuousClock()
        let start = clock.now
        let read = await DocumentReader.read(transport: connection, options: ReadOptions(accessKey: .mrz(key)))
        let elapsed = clock.now - start
        await connection.close()
        await backend.shutdown()
        // No personal data in the output: figures only.
        print("LibNFCHardwareTests: \((connection as? LibNFCConnection)?.modulation ?? "?"), ATR \(connection.atr.hex), "
            + "status \(read.result.status), \(read.result.transport.apdus) APDUs, \(read.result.transport.fileBytes) file bytes, \(elapsed)")
        #expect(read.result.error == nil, "\(read.result.error?.code.rawValue ?? "")")
        #expect(read.files[.dg(1)] != nil)
        #expect(read.files[.sod] != nil)
    }
}
