import MRTDCore
import MRTDProtocol
import MRTDReaders
import MRTDTesting
import Testing
@testable import MRTDClient
@testable import MRTDDaemon
import MRTDSimulation

@Suite struct VirtualReaderBackendTests {
    @Test func aNewEventStreamStartsWithTheCurrentStateThenFollowsChanges() async throws {
        let backend = VirtualReaderBackend(readers: ["A", "B"])
        backend.insert(try Specimens.passport(), into: "B")
        var iterator = backend.events().makeAsyncIterator()
        var seen: [ReaderEvent] = []
        for _ in 0..<3 { seen.append(try #require(await iterator.next())) }
        #expect(seen.count == 3)
        guard case .readerAdded(let a) = seen[0], case .readerAdded(let b) = seen[1], case .cardInserted("B", _) = seen[2] else {
            Issue.record("unexpected initial events \(seen)")
            return
        }
        #expect(a.name == "A" && b.name == "B")
        backend.removeReader("B")
        #expect(await iterator.next() == .cardRemoved(reader: "B"))
        #expect(await iterator.next() == .readerRemoved(name: "B"))
        await backend.shutdown()
        #expect(await iterator.next() == nil)
    }

    @Test func connectingWithoutACardOrReaderFailsWithReaderErrors() async throws {
        let backend = VirtualReaderBackend(readers: ["A"])
        await #expect(throws: ReaderError.noCard(reader: "A")) { try await backend.connect(reader: "A") }
        await #expect(throws: ReaderError.readerNotFound("Z")) { try await backend.connect(reader: "Z") }
    }

    @Test func pullingTheCardMidSessionFailsTheNextExchangeWithCardRemoved() async throws {
        let backend = VirtualReaderBackend(readers: ["A"])
        backend.insert(try Specimens.passport(), into: "A")
        let connection = try await backend.connect(reader: "A")
        let select: [UInt8] = [0x00, 0xA4, 0x04, 0x0C, 0x07] + ApplicationID.lds1
        #expect(try await connection.transmit(select).suffix(2) == [0x90, 0x00])
        backend.remove(from: "A")
        await #expect(throws: TransportError.cardRemoved) { try await connection.transmit(select) }
        // A new card in its place does not revive the old connection.
        backend.insert(try Specimens.passport(), into: "A")
        await #expect(throws: TransportError.cardRemoved) { try await connection.transmit(select) }
    }

    @Test func theSSEParserSplitsEventsAcrossChunks() {
        var parser = SSEParser()
        #expect(parser.feed("retry: 2000\n: hello\n\nid: 1\nevent: card.ins").isEmpty)
        let events = parser.feed("erted\ndata: {\"reader\":\"A\"}\n\n: keep-alive\n\nid: 2\nevent: x\ndata: 1\ndata: 2\n\n")
        #expect(events == [
            .init(type: "card.inserted", data: #"{"reader":"A"}"#, id: "1"),
            .init(type: "x", data: "1\n2", id: "2"),
        ])
    }
}
