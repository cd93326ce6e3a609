import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders
import MRTDSimulation

/// The PC/SC backend against real pcscd with vsmartcard's vpcd reader, whose card is the project's
/// virtual chip. Serialized: one pcscd per machine.
@Suite(.serialized) struct PCSCHardwareLoopTests {
    typealias Support = PCSCTestSupport
    static let reader = PCSCDaemon.readerName

    /// Inserts `card` and waits until the backend's events report it.
    static func insert(_ card: VPCDCard, removeAfter: Int? = nil, events: EventRecorder) async throws {
        try await card.insert(removeAfter: removeAfter)
        let inserted = await events.next(within: .seconds(10)) { $0.isCardInserted && $0.readerName == reader }
        try #require(inserted != nil, "no cardInserted event after the card was put on the reader")
    }

    @Test func theSpecimenReadsThroughPcscdAndVpcdAsInProcessAndFigures() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let chip = Support.chip()
            let card = VPCDCard(chip: chip, port: daemon.vpcdPort)
            try await Self.insert(card, events: events)

            let listed = try await backend.readers()
            let descriptor = try #require(listed.first { $0.name == Self.reader })
            #expect(descriptor.backend == .pcsc && descriptor.cardPresent)

            let connection = try await backend.connect(reader: Self.reader)
            #expect(connection.atr == card.atr)
            let atr = try AnswerToReset(connection.atr)
            #expect(atr.isContactless && atr.protocols == [0, 1] && atr.advertisesExtendedLength == true)
            #expect(connection.capabilities.extendedLength, "vpcd carries extended APDUs")
            let clock = ContinuousClock()
            let start = clock.now
            let read = await Support.read(connection)
            let pcscTime = clock.now - start
            await connection.close()
            #expect(backend.openConnections == 0)

            #expect(read.result.status == .unverified, "\(String(describing: read.result.error))")
            for file in [LDSFile.com, .sod, .dg(1), .dg(2)] {
                let same = read.files[file] == Support.specimen.files[file]
                #expect(same, "\(file) differs")
            }
            #expect(read.result.document?.documentNumber == "L898902C3")
            #expect(read.result.transport.apdus == card.apdusServed)
            #expect(read.result.transport.extendedLength)

            // The same read in-process, same run, for the figures.
            let local = Support.chip()
            let localStart = clock.now
            let inProcess = await Support.read(local)
            let localTime = clock.now - localStart
            let sameFiles = inProcess.files == read.files
            #expect(sameFiles)
            #expect(inProcess.result.transport.apdus == read.result.transport.apdus)

            // A few more reads through pcscd for a steadier figure (connect + read + close).
            var times: [Duration] = []
            for _ in 0..<3 {
                let s = clock.now
                let again = try await backend.connect(reader: Self.reader)
                let r = await Support.read(again)
                await again.close()
                times.append(clock.now - s)
                #expect(r.result.status == .unverified)
            }
            print("""
                FIGURES pcsc+vpcd read: \(read.result.transport.apdus) APDUs, \(read.result.transport.bytesSent) B sent, \
                \(read.result.transport.bytesReceived) B received, read \(pcscTime), \
                connect+read+close \(times.map { "\($0)" }.joined(separator: " / "))
                FIGURES in-process VirtualChip read: \(inProcess.result.transport.apdus) APDUs, \(localTime)
                """)
            await card.remove()
            let removed = await events.next { $0.isCardRemoved && $0.readerName == Self.reader }
            #expect(removed != nil)
            await events.stop()
        }
    }

    @Test func aShortOnlyChipReadsThroughPcscdWithShortAPDUs() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: Support.chip(extendedLength: false, maxLe: 0xDF), port: daemon.vpcdPort)
            try await Self.insert(card, events: events)
            let connection = try await backend.connect(reader: Self.reader)
            #expect(try AnswerToReset(connection.atr).advertisesExtendedLength == false)
            let read = await Support.read(connection)
            await connection.close()
            #expect(read.result.status == .unverified, "\(String(describing: read.result.error))")
            let sameFace = read.files[.dg(2)] == Support.specimen.files[.dg(2)]
            #expect(sameFace, "DG2 differs")
            #expect(!read.result.transport.extendedLength && read.result.transport.maxReadLength <= 0xDF)
            await card.remove()
            await events.stop()
        }
    }

    /// The card pulled when APDU number `n` arrives, for every `n` of a (short) read: a clean
    /// `cardRemoved` each time, in bounded time, no handle left open, and the next card reads.
    @Test func aCardPulledAtEveryAPDUOfAReadGivesCardRemovedAndTheNextCardReads() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            // The length of the read: count it on a full read first.
            let full = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(full, events: events)
            let first = try await backend.connect(reader: Self.reader)
            let complete = await Support.read(first, dataGroups: [1, 2])
            await first.close()
            #expect(complete.result.status == .unverified)
            let total = complete.result.transport.apdus
            #expect(total >= 8)
            await full.remove()
            _ = await events.next { $0.isCardRemoved }

            let clock = ContinuousClock()
            var slowest = Duration.zero
            for index in 0..<total {
                let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
                try await Self.insert(card, removeAfter: index, events: events)
                let start = clock.now
                let read = try await Support.within(.seconds(10), "read with the card pulled at APDU \(index)") {
                    let connection = try await backend.connect(reader: Self.reader)
                    let read = await Support.read(connection, dataGroups: [1, 2])
                    await connection.close()
                    return read
                }
                slowest = max(slowest, clock.now - start)
                #expect(read.result.status == .failed, "APDU \(index)")
                #expect(read.result.error?.code == .cardRemoved, "APDU \(index): \(String(describing: read.result.error))")
                #expect(card.apdusServed == index)
                #expect(backend.openConnections == 0, "a handle is left open after removal at APDU \(index)")
                let removed = await events.next { $0.isCardRemoved && $0.readerName == Self.reader }
                #expect(removed != nil, "no cardRemoved event after removal at APDU \(index)")
                await card.remove()
            }
            print("FIGURES removal at each of \(total) APDU indices: slowest failing read \(slowest)")

            let next = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(next, events: events)
            let connection = try await backend.connect(reader: Self.reader)
            let read = await Support.read(connection, dataGroups: [1, 2])
            await connection.close()
            #expect(read.result.status == .unverified)
            let sameDG1 = read.files[.dg(1)] == Support.specimen.files[.dg(1)]
            #expect(sameDG1, "DG1 differs")
            await next.remove()
            await events.stop()
        }
    }

    @Test func pcscdKilledMidReadIsReportedAndTheBackendRecoversForTheNextRead() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let added = await events.next { $0.isReaderAdded && $0.readerName == Self.reader }
            #expect(added != nil)
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await card.insert(holdAt: 3)
            #expect(await events.next { $0.isCardInserted } != nil)

            // Kill pcscd while a read is in flight: the chip holds APDU 3 until pcscd is dead.
            let connection = try await backend.connect(reader: Self.reader)
            let inFlight = Task { await Support.read(connection) }
            try await Support.within(.seconds(10), "the read reaching APDU 3") {
                while !card.isHolding { try await Task.sleep(for: .milliseconds(2)) }
            }
            await daemon.kill()
            card.releaseHold()
            let broken = try await Support.within(.seconds(15), "read while pcscd was killed") { await inFlight.value }
            await connection.close()
            #expect(broken.result.status == .failed)
            #expect(broken.result.error?.code == .readerUnavailable,
                    "\(String(describing: broken.result.error))")
            #expect(backend.openConnections == 0)

            // The loss is noticed: card and reader removed, then backendUnavailable.
            #expect(await events.next { $0.isCardRemoved } != nil)
            #expect(await events.next { $0.isReaderRemoved && $0.readerName == Self.reader } != nil)
            #expect(await events.next { $0.isUnavailable } != nil)
            #expect(!backend.isServiceAvailable)
            await card.remove()
            await #expect(throws: ReaderError.self) { _ = try await backend.readers() }

            // pcscd back: recovered, the reader returns, a new card reads.
            try await daemon.start()
            #expect(await events.next(within: .seconds(15)) { $0.isRecovered } != nil)
            #expect(await events.next { $0.isReaderAdded && $0.readerName == Self.reader } != nil)
            let next = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(next, events: events)
            let again = try await backend.connect(reader: Self.reader)
            let read = await Support.read(again)
            await again.close()
            #expect(read.result.status == .unverified)
            await next.remove()
            #expect(await events.next { $0.isCardRemoved } != nil)
            await events.stop()
        }
    }

    @Test func pcscdStoppedCleanlyAndRestartedWithACardOnTheReaderIsNoticed() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(card, events: events)
            await daemon.stop()
            #expect(await events.next { $0.isReaderRemoved } != nil)
            #expect(await events.next { $0.isUnavailable } != nil)
            await card.waitUntilRemoved()  // vpcd's socket went with pcscd

            try await daemon.start()
            try await card.insert()
            #expect(await events.next(within: .seconds(15)) { $0.isRecovered } != nil)
            #expect(await events.next { $0.isReaderAdded && $0.readerName == Self.reader } != nil)
            #expect(await events.next { $0.isCardInserted && $0.readerName == Self.reader } != nil)
            await card.remove()
            #expect(await events.next { $0.isCardRemoved } != nil)
            await events.stop()
        }
    }

    /// Each insertion and removal is one event; connecting, reading and closing (which resets the
    /// card) are none. A late subscriber starts from the current state.
    @Test func insertionAndRemovalGiveExactlyOneEventEach() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(card, events: events)
            let late = await EventRecorder.start(backend.events())
            let connection = try await backend.connect(reader: Self.reader)
            _ = await Support.read(connection, dataGroups: [1])
            await connection.close()
            await card.remove()
            #expect(await events.next { $0.isCardRemoved } != nil)
            try await card.insert()
            #expect(await events.next { $0.isCardInserted } != nil)
            await card.remove()
            #expect(await events.next { $0.isCardRemoved } != nil)
            try await Task.sleep(for: .milliseconds(600))  // room for a spurious event to show up
            let atr = card.atr
            let expected: [ReaderEvent] = [
                .cardInserted(reader: Self.reader, atr: atr), .cardRemoved(reader: Self.reader),
                .cardInserted(reader: Self.reader, atr: atr), .cardRemoved(reader: Self.reader),
            ]
            let all = await events.events
            #expect(all.filter { $0.isCardInserted || $0.isCardRemoved } == expected)
            #expect(all.filter { $0.isReaderAdded && $0.readerName == Self.reader }.count == 1)
            #expect(!all.contains { $0.isReaderRemoved })
            let lateEvents = await late.events
            #expect(lateEvents.first.map(\.isReaderAdded) == true)
            #expect(lateEvents.dropFirst().first == .cardInserted(reader: Self.reader, atr: atr))
            await events.stop()
            await late.stop()
        }
    }

    /// The transaction held for the whole session keeps every other PC/SC client out until `close()`.
    @Test func aSessionHoldsItsTransactionUntilClosed() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(card, events: events)
            let first = try await backend.connect(reader: Self.reader)
            let other = PCSCBackend()
            let second = Task { try await other.connect(reader: Self.reader) }
            try await Task.sleep(for: .milliseconds(500))
            // SCardBeginTransaction of the second client is still blocked: it cannot send a byte.
            #expect(backend.openConnections == 1 && other.openConnections == 0)
            let read = await Support.read(first, dataGroups: [1])
            #expect(read.result.status == .unverified)
            await first.close()
            let connection = try await Support.within(.seconds(5), "second client after the first closed") {
                try await second.value
            }
            #expect(other.openConnections == 1)
            let again = await Support.read(connection, dataGroups: [1])
            #expect(again.result.status == .unverified, "the first session's reset left the chip readable")
            await connection.close()
            #expect(other.openConnections == 0)
            await other.shutdown()
            await card.remove()
            await events.stop()
        }
    }

    @Test func extendedLengthNeverKeepsAnExtendedChipOnShortAPDUs() async throws {
        try await Support.withDaemon { daemon, _ in
            let backend = PCSCBackend(options: PCSCOptions(extendedLength: .never))
            let events = await EventRecorder.start(backend.events())
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            try await Self.insert(card, events: events)
            let connection = try await backend.connect(reader: Self.reader)
            #expect(connection.capabilities == .shortOnly && connection.reader.capabilities == .shortOnly)
            let start = ContinuousClock.now
            let read = await Support.read(connection, dataGroups: [1, 2])
            let elapsed = ContinuousClock.now - start
            await connection.close()
            #expect(read.result.status == .unverified)
            #expect(!read.result.transport.extendedLength && read.result.transport.apdus > 8)
            print("FIGURES pcsc+vpcd read with short APDUs only: \(read.result.transport.apdus) APDUs, \(elapsed)")
            await backend.shutdown()
            await card.remove()
            await events.stop()
        }
    }

    @Test func connectingWithoutACardOrToAnUnknownReaderGivesSpecificErrors() async throws {
        try await Support.withDaemon { _, backend in
            let readers = try await backend.readers()
            #expect(readers.contains { $0.name == Self.reader && !$0.cardPresent })
            await #expect(throws: ReaderError.noCard(reader: Self.reader)) {
                _ = try await backend.connect(reader: Self.reader)
            }
            await #expect(throws: ReaderError.readerNotFound("No Such Reader 00 00")) {
                _ = try await backend.connect(reader: "No Such Reader 00 00")
            }
            #expect(backend.openConnections == 0)
            // waitForCard times out cleanly when nothing is presented.
            await #expect(throws: ReaderError.timeout) {
                _ = try await backend.waitForCard(reader: Self.reader, timeout: .milliseconds(300))
            }
        }
    }

    @Test func shutdownCancelsTheBlockingWaitAndEndsEveryEventStream() async throws {
        try await Support.withDaemon { _, backend in
            let stream = backend.events()
            let drained = Task {
                var count = 0
                for await _ in stream { count += 1 }
                return count
            }
            // The monitor is inside SCardGetStatusChange by now (it reported the reader).
            try await Task.sleep(for: .milliseconds(300))
            let start = ContinuousClock.now
            await backend.shutdown()
            let count = try await Support.within(.seconds(3), "event stream end after shutdown") { await drained.value }
            #expect(count >= 1)
            #expect(ContinuousClock.now - start < .seconds(3))
            // A stream asked for after shutdown ends at once.
            var after = 0
            for await _ in backend.events() { after += 1 }
            #expect(after == 0)
        }
    }
}
