import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders
import MRTDSimulation

/// The libnfc backend driving the real libnfc (1.8, `pn532_uart` driver and `pn53x` chip code)
/// against the PN532 emulator on a pseudo-terminal, with the virtual chip behind it. No mocks:
/// every byte crosses libnfc and a tty.
@Suite(.serialized) struct LibNFCEmulatorTests {
    static let specimen = try! SpecimenDocument.make()
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey
    static let options = ReadOptions(accessKey: .mrz(key))

    static func chip() -> VirtualChip {
        VirtualChip(configuration: VirtualChipConfiguration(files: specimen.files, accessKey: key, extendedLength: false))
    }

    static func backend(_ connstrings: [String], exchangeTimeout: Duration = .seconds(10)) -> LibNFCBackend {
        LibNFCBackend(configuration: .init(
            connstrings: connstrings, listDevices: false, rescanInterval: .milliseconds(50),
            pollInterval: .milliseconds(20), exchangeTimeout: exchangeTimeout))
    }

    /// The first event matching `match` on a fresh subscription (which starts with the current
    /// state), or nil after `timeout`.
    static func waitFor(
        _ backend: LibNFCBackend, timeout: Duration = .seconds(15), _ match: @escaping @Sendable (ReaderEvent) -> Bool
    ) async -> ReaderEvent? {
        let events = backend.events()
        return await withTaskGroup(of: ReaderEvent?.self) { group in
            group.addTask {
                for await event in events where match(event) { return event }
                return nil
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// Descriptors of this process open on `path` (other suites run in parallel, so count only
    /// what points at the emulator's port).
    static func descriptors(on path: String) -> Int {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.filter { (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\($0)")) == path }.count
    }

    /// Threads of this process named by the libnfc backend (Linux truncates names to 15 bytes).
    static func backendThreads() -> Int {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.filter {
            ((try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)) ?? "").hasPrefix("mrtdd-nfc-")
        }.count
    }

    // MARK: - Reads

    @Test(arguments: PN532Emulator.Card.Kind.allCases)
    func theSpecimenReadsThroughLibNFCAndTheEmulator(_ kind: PN532Emulator.Card.Kind) async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        let card = PN532Emulator.Card(kind: kind, chip: Self.chip())
        emulator.insert(card)
        let backend = Self.backend([emulator.connstring])
        let readers = try await backend.readers()
        try #require(readers.count == 1)
        #expect(readers[0].name == emulator.connstring, "pn532_uart names the device after its port")
        #expect(readers[0].backend == .libnfc)
        #expect(readers[0].capabilities == .shortOnly)
        #expect(readers[0].cardPresent)
        let connection = try await backend.connect(reader: readers[0].name)
        let read = await DocumentReader.read(transport: connection, options: Self.options)
        await connection.close()
        await backend.shutdown()

        #expect(read.result.error == nil)
        #expect(read.result.status == .unverified)
        for file in [LDSFile.com, .sod, .dg(1), .dg(2)] {
            #expect(read.files[file] == Self.specimen.files[file], "\(file)")
        }
        #expect(read.result.document?.documentNumber == "L898902C3")
        #expect(read.result.transport.extendedLength == false, "a PN53x frame carries short APDUs only")
        #expect(read.result.transport.maxReadLength <= 0xDF)
        switch kind {
        case .typeA:
            #expect(connection.atr == ContactlessATR.typeA(ats: Array(card.ats.dropFirst())))
            #expect(connection.atr == [0x3B, 0x84, 0x80, 0x01, 0x4D, 0x52, 0x54, 0x44, 0x0A])
        case .typeB:
            #expect(connection.atr == ContactlessATR.typeB(
                applicationData: card.applicationData, protocolInfo: card.protocolInfo, attribResponseFirstByte: 0))
        }
        #expect((connection as? LibNFCConnection)?.modulation == "ISO/IEC 14443-\(kind == .typeA ? "A" : "B") 106 kbps")
        let stats = emulator.statistics
        #expect(stats.unknownCommands.isEmpty, "commands the emulator does not know: \(stats.unknownCommands)")
        #expect(stats.corruptFrames == 0)
        #expect(stats.apdus == read.result.transport.apdus, "every APDU crossed libnfc and the tty")
        #expect(stats.commands[0x40] == read.result.transport.apdus, "one InDataExchange per APDU")
    }

    @Test func aTypeACardOffering424kbpsIsReadAt424kbps() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        var card = PN532Emulator.Card(kind: .typeA, chip: Self.chip())
        card.ats = [0x09, 0x78, 0xA2, 0x70, 0x02, 0x4D, 0x52, 0x54, 0x44]  // TA(1): DS=DR=4 (and 2? no), same D
        emulator.insert(card)
        let backend = Self.backend([emulator.connstring])
        let connection = try await backend.connect(reader: emulator.connstring)
        let read = await DocumentReader.read(transport: connection, options: Self.options)
        await connection.close()
        await backend.shutdown()
        #expect((connection as? LibNFCConnection)?.modulation == "ISO/IEC 14443-A 424 kbps")
        #expect(read.files[.dg(2)] == Self.specimen.files[.dg(2)])
        #expect(emulator.statistics.commands[0x4E] == 1, "one InPSL (PPS) to 424 kbps")
    }

    @Test func aCardRefusingTheFasterRateIsReadAt106kbps() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        var card = PN532Emulator.Card(kind: .typeA, chip: Self.chip())
        card.ats = [0x09, 0x78, 0xA2, 0x70, 0x02, 0x4D, 0x52, 0x54, 0x44]
        card.acceptsPPS = false
        emulator.insert(card)
        let backend = Self.backend([emulator.connstring])
        let connection = try await backend.connect(reader: emulator.connstring)
        let read = await DocumentReader.read(transport: connection, options: Self.options)
        await connection.close()
        await backend.shutdown()
        #expect((connection as? LibNFCConnection)?.modulation == "ISO/IEC 14443-A 106 kbps")
        #expect(read.result.error == nil)
        #expect(read.files[.dg(1)] == Self.specimen.files[.dg(1)])
    }

    // MARK: - Removal

    /// The card leaves after APDU i, for every i of a read: each read ends with `cardRemoved`,
    /// promptly, without a leaked descriptor, and the next card reads fine.
    @Test func aCardRemovedAtEveryAPDUIndexEndsTheReadWithCardRemoved() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        emulator.insert(.init(kind: .typeA, chip: Self.chip()))
        let backend = Self.backend([emulator.connstring])
        // One complete read first: how many APDUs a read takes.
        let first = try await backend.connect(reader: emulator.connstring)
        let complete = await DocumentReader.read(transport: first, options: Self.options)
        await first.close()
        let apdus = complete.result.transport.apdus
        try #require(complete.result.error == nil && apdus > 10)

        let descriptorsBefore = Self.descriptors(on: emulator.devicePath)
        #expect(descriptorsBefore == 2, "the emulator's own and libnfc's")
        let clock = ContinuousClock()
        var slowest = Duration.zero
        for index in 0..<apdus {
            emulator.insert(.init(kind: index % 2 == 0 ? .typeA : .typeB, chip: Self.chip(), removeAfterAPDUs: index))
            let start = clock.now
            let connection = try await backend.connect(reader: emulator.connstring)
            let read = await DocumentReader.read(transport: connection, options: Self.options)
            await connection.close()
            slowest = max(slowest, clock.now - start)
            #expect(read.result.error?.code == .cardRemoved, "removed after \(index) APDUs: \(read.result.error?.message ?? "no error")")
            #expect(read.files.isEmpty)
            #expect(read.result.transport.apdus == index + 1, "the APDU that found the card gone is the last")
            // The backend noticed: no card until the next one is presented.
            let readers = try await backend.readers()
            #expect(readers.first?.cardPresent == false, "after removal at \(index)")
        }
        let descriptorsAfter = Self.descriptors(on: emulator.devicePath)
        print("libnfc removal sweep: \(apdus) indices, slowest read \(slowest)")
        #expect(slowest < .seconds(2), "a removal is noticed within one RF timeout, not the host timeout")
        #expect(descriptorsAfter == descriptorsBefore, "descriptors on the port before \(descriptorsBefore), after \(descriptorsAfter)")

        emulator.insert(.init(kind: .typeB, chip: Self.chip()))
        let connection = try await backend.connect(reader: emulator.connstring)
        let again = await DocumentReader.read(transport: connection, options: Self.options)
        await connection.close()
        await backend.shutdown()
        #expect(again.result.error == nil)
        #expect(again.files[.dg(2)] == Self.specimen.files[.dg(2)])
    }

    @Test func insertionAndRemovalOfAnIdleCardAreReportedAsEvents() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        let backend = Self.backend([emulator.connstring])
        let readers = try await backend.readers()
        #expect(readers.map(\.cardPresent) == [false])
        await #expect(throws: ReaderError.noCard(reader: emulator.connstring)) {
            _ = try await backend.connect(reader: emulator.connstring)
        }

        let removed = Task { await Self.waitFor(backend) { $0 == .cardRemoved(reader: emulator.connstring) } }
        emulator.insert(.init(kind: .typeB, chip: Self.chip()))
        let inserted = await Self.waitFor(backend) {
            if case .cardInserted(let reader, _) = $0 { return reader == emulator.connstring }
            return false
        }
        guard case .cardInserted(_, let atr) = inserted else {
            Issue.record("no cardInserted event")
            return
        }
        #expect(atr.prefix(4) == [0x3B, 0x88, 0x80, 0x01])
        #expect(try await backend.readers().map(\.cardPresent) == [true])
        let waited = try await backend.waitForCard(reader: nil, timeout: .seconds(1))
        #expect(waited == emulator.connstring)

        emulator.removeCard()
        #expect(await removed.value == .cardRemoved(reader: emulator.connstring))
        #expect(try await backend.readers().map(\.cardPresent) == [false])
        await backend.shutdown()
    }

    // MARK: - Devices

    /// libnfc has no hot-plug: the backend's rescans open a device that appears at a configured
    /// connstring, and notice one that goes away.
    @Test func rescansNoticeADeviceAppearingAndDisappearing() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-nfc-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let port = directory.appendingPathComponent("ttyPN532").path
        let backend = Self.backend(["pn532_uart:\(port)"])
        #expect(try await backend.readers().isEmpty)

        for round in 0..<2 {
            let added = Task { await Self.waitFor(backend) { if case .readerAdded = $0 { return true } else { return false } } }
            let emulator = try PN532Emulator()
            emulator.insert(.init(kind: .typeA, chip: Self.chip()))
            try? FileManager.default.removeItem(atPath: port)
            try FileManager.default.createSymbolicLink(atPath: port, withDestinationPath: emulator.devicePath)
            guard case .readerAdded(let reader) = await added.value else {
                Issue.record("round \(round): the device was not noticed")
                emulator.stop()
                break
            }
            #expect(reader.backend == .libnfc)
            #expect(reader.name.contains(port))
            let connection = try await backend.connect(reader: reader.name)
            let response = try await connection.transmit([0x00, 0xA4, 0x04, 0x0C, 0x07] + ApplicationID.lds1)
            #expect(response == [0x90, 0x00])
            await connection.close()

            let removed = Task { await Self.waitFor(backend) { if case .readerRemoved = $0 { return true } else { return false } } }
            emulator.stop()
            #expect(await removed.value == .readerRemoved(name: reader.name), "round \(round)")
            #expect(try await backend.readers().isEmpty)
            await #expect(throws: ReaderError.readerNotFound(reader.name)) { _ = try await backend.connect(reader: reader.name) }
        }
        await backend.shutdown()
    }

    @Test func startingAndShuttingDownLeavesNoDescriptorOrThread() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        emulator.insert(.init(kind: .typeB, chip: Self.chip()))
        #expect(Self.descriptors(on: emulator.devicePath) == 1, "the emulator's own")
        for round in 0..<3 {
            let backend = Self.backend([emulator.connstring])
            let connection = try await backend.connect(reader: emulator.connstring)
            #expect(try await connection.transmit([0x00, 0xA4, 0x04, 0x0C, 0x07] + ApplicationID.lds1) == [0x90, 0x00])
            #expect(Self.descriptors(on: emulator.devicePath) == 2, "round \(round): libnfc holds the port")
            #expect(Self.backendThreads() == 2, "round \(round): a scanner and one device thread")
            await connection.close()
            await backend.shutdown()
            #expect(Self.descriptors(on: emulator.devicePath) == 1, "round \(round): the port is closed")
            // Threads end right after their last job.
            try await waitUntil("round \(round): the backend's threads gone", within: .seconds(10)) { Self.backendThreads() == 0 }
        }
    }

    @Test func connectionErrorsAreSpecific() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        emulator.insert(.init(kind: .typeA, chip: Self.chip()))
        let backend = Self.backend([emulator.connstring])
        await #expect(throws: ReaderError.readerNotFound("no such reader")) {
            _ = try await backend.connect(reader: "no such reader")
        }
        let connection = try await backend.connect(reader: emulator.connstring)
        await #expect(throws: ReaderError.backendFailure(.libnfc, "reader '\(emulator.connstring)' is already in use")) {
            _ = try await backend.connect(reader: emulator.connstring)
        }
        await #expect(throws: TransportError.commandTooLong(262, max: 261)) {
            _ = try await connection.transmit([UInt8](repeating: 0, count: 262))
        }
        await connection.close()
        await #expect(throws: TransportError.readerUnavailable("connection closed")) {
            _ = try await connection.transmit([0x00, 0x84, 0x00, 0x00, 0x08])
        }
        // A new connection to the same card works.
        let again = try await backend.connect(reader: emulator.connstring)
        #expect(try await again.transmit([0x00, 0xA4, 0x04, 0x0C, 0x07] + ApplicationID.lds1) == [0x90, 0x00])
        await again.close()
        await backend.shutdown()
        await #expect(throws: ReaderError.readerNotFound(emulator.connstring)) {
            _ = try await backend.connect(reader: emulator.connstring)
        }
    }

    // MARK: - Shutdown

    /// The chip stops answering mid-read (the host timeout is 30 s): `shutdown()` aborts the
    /// blocked `nfc_initiator_transceive_bytes` with `nfc_abort_command` at once.
    @Test func shutdownAbortsABlockedExchange() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        emulator.insert(.init(kind: .typeA, chip: Self.chip(), stallAfterAPDUs: 3))
        let backend = Self.backend([emulator.connstring], exchangeTimeout: .seconds(30))
        let connection = try await backend.connect(reader: emulator.connstring)
        let read = Task { await DocumentReader.read(transport: connection, options: Self.options) }
        // Wait until the fourth InDataExchange is under way.
        try await waitUntil("the fourth InDataExchange") { (emulator.statistics.commands[0x40] ?? 0) >= 4 }
        // Past the stall's start: the exchange now blocks in libnfc (a pause, nothing to observe).
        try await Task.sleep(for: .milliseconds(100))
        let clock = ContinuousClock()
        let start = clock.now
        await backend.shutdown()
        let result = await read.value
        let elapsed = clock.now - start
        print("libnfc shutdown with a blocked exchange took \(elapsed)")
        #expect(elapsed < .seconds(2))
        #expect(result.result.error?.code == .readerUnavailable)
        #expect(emulator.statistics.aborts >= 1, "libnfc sent the PN532 an abort (ACK frame)")
        await connection.close()
    }

    // MARK: - Figures

    /// APDU count and wall time per read through libnfc + the emulator, next to the in-process
    /// virtual chip, in the same run.
    @Test func transportFiguresForLibNFCNextToTheInProcessChip() async throws {
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        let backend = Self.backend([emulator.connstring])
        let clock = ContinuousClock()
        let runs = 3
        var libnfc: [Duration] = [], inProcess: [Duration] = []
        var libnfcAPDUs = 0, inProcessAPDUs = 0
        for _ in 0..<runs {
            emulator.insert(.init(kind: .typeA, chip: Self.chip()))
            var start = clock.now
            let connection = try await backend.connect(reader: emulator.connstring)
            let read = await DocumentReader.read(transport: connection, options: Self.options)
            await connection.close()
            libnfc.append(clock.now - start)
            libnfcAPDUs = read.result.transport.apdus
            #expect(read.result.error == nil)

            start = clock.now
            let local = await DocumentReader.read(transport: Self.chip(), options: Self.options)
            inProcess.append(clock.now - start)
            inProcessAPDUs = local.result.transport.apdus
            #expect(local.result.error == nil)
        }
        await backend.shutdown()
        #expect(libnfcAPDUs == inProcessAPDUs, "the same short-APDU read either way")
        func ms(_ d: Duration) -> String { String(format: "%.1f ms", Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15) }
        print("transport figures (specimen, BAC, short APDUs, median of \(runs)): "
            + "libnfc+PN532 emulator \(libnfcAPDUs) APDUs \(ms(libnfc.sorted()[runs / 2])) per read; "
            + "in-process virtual chip \(inProcessAPDUs) APDUs \(ms(inProcess.sorted()[runs / 2])) per read")
    }

    /// A card answer longer than a PN53x frame (262 bytes) arrives in pieces with the MI bit;
    /// libnfc 1.8 fetches the next piece, finds its 264-byte buffer too small (PN53x status 07) and
    /// fails the exchange: a clean `serviceFailure`, no hang, and the link stays usable. (Short
    /// APDUs, all this backend offers, never need more than 258 bytes.)
    @Test func anAnswerLongerThanAFrameFailsCleanlyAndTheLinkStaysUsable() async throws {
        struct LongReads: APDUTransport {
            var capabilities: TransportCapabilities { .extended }
            func transmit(_ command: [UInt8]) async throws -> [UInt8] {
                command.count > 1 && command[1] == 0xB0 ? (0..<600).map { UInt8(truncatingIfNeeded: $0) } + [0x90, 0x00] : [0x90, 0x00]
            }
        }
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        emulator.insert(.init(kind: .typeA, chip: LongReads()))
        let backend = Self.backend([emulator.connstring])
        let connection = try await backend.connect(reader: emulator.connstring)
        await #expect(throws: TransportError.serviceFailure("device's internal chip error (NFC_ECHIP)")) {
            _ = try await connection.transmit([0x00, 0xB0, 0x00, 0x00, 0x00])
        }
        #expect(try await connection.transmit([0x00, 0xA4, 0x04, 0x0C, 0x07] + ApplicationID.lds1) == [0x90, 0x00])
        await connection.close()
        await backend.shutdown()
    }

    /// libnfc's own `nfc-list` (package libnfc-bin), a second client of the emulator, lists the
    /// emulated card with the ATS and ATQB the emulator presents.
    @Test(arguments: PN532Emulator.Card.Kind.allCases)
    func libnfcsOwnNFCListSeesTheEmulatedCard(_ kind: PN532Emulator.Card.Kind) throws {
        let tool = "/usr/bin/nfc-list"
        guard FileManager.default.isExecutableFile(atPath: tool) else {
            #expect(Prerequisite.skip("LibNFCEmulatorTests: nfc-list check (\(tool) not installed; scripts/setup installs libnfc-bin)"))
            return
        }
        let emulator = try PN532Emulator()
        defer { emulator.stop() }
        let card = PN532Emulator.Card(kind: kind, chip: Self.chip())
        emulator.insert(card)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = ["-t", kind == .typeA ? "1" : "8"]
        var environment = ProcessInfo.processInfo.environment
        environment["LIBNFC_DEFAULT_DEVICE"] = emulator.connstring
        environment["LIBNFC_AUTO_SCAN"] = "false"
        process.environment = environment
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("NFC device: user defined default device opened"), "\(text)")
        switch kind {
        case .typeA:
            #expect(text.contains("1 ISO14443A passive target(s) found"), "\(text)")
            #expect(text.contains("SAK (SEL_RES): 20"), "\(text)")
            // libnfc labels a UID starting with 08 (random, ISO/IEC 14443-3) NFCID3.
            #expect(text.contains("08  4d  52  54"), "\(text)")
            #expect(text.contains("ATS: 78  80  70  02  4d  52  54  44"), "\(text)")
        case .typeB:
            #expect(text.contains("1 ISO14443B passive target(s) found"), "\(text)")
            #expect(text.contains("ISO/IEC 14443-4B (106 kbps) target"), "\(text)")
            #expect(text.contains("PUPI: 4d  52  54  44"), "\(text)")
            #expect(text.contains("Protocol Info: 00  81  71"), "\(text)")
        }
        #expect(emulator.statistics.unknownCommands.isEmpty, "\(emulator.statistics.unknownCommands)")
    }
}
