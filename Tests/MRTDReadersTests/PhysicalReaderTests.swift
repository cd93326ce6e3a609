import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders

/// The same read against a physical reader and document, when the environment names them:
///
/// - `MRTDD_HW_READER`: the reader's name, a unique part of it, or `any`;
/// - `MRTDD_HW_MRZ` (the full MRZ) or `MRTDD_HW_MRZ_KEY` (`DOCNO,YYMMDD,YYMMDD`): the access key.
///
/// Part of the serialized hardware-in-loop suite: it uses the running pcscd, or starts the private
/// one (which also serves USB CCID readers) when none runs.
extension PCSCHardwareLoopTests {
    static func hardwareKey(_ env: [String: String]) throws -> MRZKey? {
        if let mrz = env["MRTDD_HW_MRZ"] { return try MRZ(mrz).accessKey }
        if let key = env["MRTDD_HW_MRZ_KEY"] { return try MRZKey(parsing: key) }
        return nil
    }

    @Test func aPhysicalDocumentOnAPhysicalReaderReads() async throws {
        let env = ProcessInfo.processInfo.environment
        guard let readerName = env["MRTDD_HW_READER"] else {
            print("""
                ***************************************************************************
                ** SKIPPED physical reader test: set MRTDD_HW_READER (name, part, or "any") and
                ** MRTDD_HW_MRZ or MRTDD_HW_MRZ_KEY to read a real document on a real reader.
                ***************************************************************************
                """)
            return
        }
        guard let key = try Self.hardwareKey(env) else {
            let why = env["MRTDD_HW_CAN"] != nil
                ? "MRTDD_HW_CAN needs PACE, which this build's access keys do not take yet"
                : "MRTDD_HW_MRZ or MRTDD_HW_MRZ_KEY is not set"
            Issue.record("physical reader test: \(why)")
            return
        }
        // A private pcscd when none runs; the running one otherwise.
        var daemon: PCSCDaemon?
        if let candidate = try? PCSCDaemon() {
            try await candidate.start()
            daemon = candidate
        }
        let backend = PCSCBackend()
        let readers = try await backend.readers()
        print("physical reader test: readers \(readers.map { "\($0.name) [\($0.capabilities.extendedLength ? "extended" : "short")]" })")
        let wanted = readerName == "any" ? nil : readers.first { $0.name == readerName || $0.name.lowercased().contains(readerName.lowercased()) }?.name
        if readerName != "any" { try #require(wanted != nil, "no attached reader matches '\(readerName)'") }
        print("physical reader test: present the document (30 s)")
        let name = try await backend.waitForCard(reader: wanted, timeout: .seconds(30))
        let connection = try await backend.connect(reader: name)
        let atr = try? AnswerToReset(connection.atr)
        let start = ContinuousClock.now
        let read = await DocumentReader.read(transport: connection, options: ReadOptions(accessKey: .mrz(key)))
        let elapsed = ContinuousClock.now - start
        await connection.close()
        await backend.shutdown()
        await daemon?.stop()

        #expect(read.result.status != .failed, "\(String(describing: read.result.error))")
        #expect(read.files[.dg(1)] != nil && read.files[.dg(2)] != nil && read.files[.sod] != nil)
        #expect(read.result.document?.checkDigitsValid == true)
        #expect(backend.openConnections == 0)
        let t = read.result.transport
        print("""
            FIGURES physical read on '\(name)' (ATR contactless: \(atr?.isContactless == true)): \(t.apdus) APDUs, \
            \(t.bytesReceived) B received, extended \(t.extendedLength), largest read \(t.maxReadLength), \(elapsed)
            """)
    }
}
