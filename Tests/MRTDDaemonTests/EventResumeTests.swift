import Foundation
import MRTDTesting
import Testing
@testable import MRTDDaemon
import MRTDSimulation
import MRTDCore
import MRTDPlatform
import MRTDClient

/// `GET /v1/events` ids and `Last-Event-ID` resumption (docs/events.md): every event has the next
/// id, a reconnecting client gets the kept events after its last id (those it may see) before the
/// live ones, and an `events.reset` event when they are lost.
@Suite(.serialized) struct EventResumeTests {
    static let alice = PeerCredentials(pid: 1, uid: 4242, gid: 4242)
    static let bob = PeerCredentials(pid: 2, uid: 4343, gid: 4343)

    /// The events already in a bus stream, without waiting for more.
    static func drain(_ stream: AsyncStream<DaemonEvent>, count: Int) async -> [DaemonEvent] {
        var events: [DaemonEvent] = []
        var iterator = stream.makeAsyncIterator()
        while events.count < count, let event = await iterator.next() { events.append(event) }
        return events
    }

    static func card(_ reader: String) -> DaemonEvent {
        .make(.cardInserted, EventPayload.Card(reader: reader, atr: nil))
    }

    static func job(_ id: String, owner: UInt32) -> DaemonEvent {
        .make(.readProgress, EventPayload.Progress(id: id, reader: "R1", phase: .reading, file: "DG1", percent: 50), audience: .owner(owner))
    }

    // MARK: The bus

    @Test func idsIncreaseByOnePerEventAndKeepAlivesTakeNone() async throws {
        let bus = EventBus(maxSubscribers: 4, firstSequence: 1000)
        let stream = try bus.subscribe(peer: .rootForTests)
        bus.publish(Self.card("A"))
        bus.publish(.keepAlive)
        bus.publish(Self.card("B"))
        bus.publish(Self.card("C"))
        let events = await Self.drain(stream, count: 4)
        #expect(events.map(\.sequence) == [1000, 0, 1001, 1002])
        #expect(events[1].type == nil && events[1].wireFormat == ": keep-alive\n\n")
        #expect(bus.lastSequence == 1002)
        #expect(events[0].wireFormat.hasPrefix("id: 1000\nevent: card.inserted\n"))
    }

    @Test func aRunStartsAboveTheIdsOfEarlierRuns() {
        let before = UInt64(Date().timeIntervalSince1970 * 1_000_000)
        let bus = EventBus(maxSubscribers: 1)
        #expect(bus.firstSequence >= before, "the first id comes from the start time in microseconds")
        let later = EventBus(maxSubscribers: 1)
        #expect(later.firstSequence >= bus.firstSequence)
    }

    @Test func resumingReplaysTheKeptEventsAfterTheIdThenTheLiveOnes() async throws {
        let bus = EventBus(maxSubscribers: 4, historySize: 8, firstSequence: 1)
        for reader in ["A", "B", "C", "D"] { bus.publish(Self.card(reader)) }  // ids 1...4
        let stream = try bus.subscribe(peer: Self.alice, lastEventID: 2)
        bus.publish(Self.card("E"))  // id 5, live
        let events = await Self.drain(stream, count: 3)
        #expect(events.map(\.sequence) == [3, 4, 5])
        #expect(events.map(\.data) == [#"{"reader":"C"}"#, #"{"reader":"D"}"#, #"{"reader":"E"}"#])
        // Up to date: nothing replayed.
        let current = try bus.subscribe(peer: Self.alice, lastEventID: 5)
        bus.publish(Self.card("F"))
        #expect(await Self.drain(current, count: 1).map(\.sequence) == [6])
    }

    @Test func theReplayKeepsTheVisibilityRules() async throws {
        let bus = EventBus(maxSubscribers: 4, historySize: 16, firstSequence: 1)
        bus.publish(Self.card("A"))  // 1, public
        bus.publish(Self.job("alice-job", owner: Self.alice.uid))  // 2, alice's
        bus.publish(Self.job("bob-job", owner: Self.bob.uid))  // 3, bob's
        bus.publish(Self.card("B"))  // 4, public
        bus.publish(.make(.readFailed, EventPayload.Failed(id: "orphan", reader: nil, error: .readFailed, message: "y"), audience: .owner(nil)))  // 5, root only
        let alice = try bus.subscribe(peer: Self.alice, lastEventID: 0)
        let bob = try bus.subscribe(peer: Self.bob, lastEventID: 0)
        let root = try bus.subscribe(peer: .rootForTests, lastEventID: 0)
        bus.publish(Self.card("C"))  // 6: ends each replay
        #expect(await Self.drain(alice, count: 4).map(\.sequence) == [1, 2, 4, 6])
        #expect(await Self.drain(bob, count: 4).map(\.sequence) == [1, 3, 4, 6])
        #expect(await Self.drain(root, count: 6).map(\.sequence) == [1, 2, 3, 4, 5, 6])
    }

    @Test func anIdOlderThanTheHistoryGetsAResetEvent() async throws {
        let bus = EventBus(maxSubscribers: 4, historySize: 3, firstSequence: 10)
        for reader in ["A", "B", "C", "D", "E"] { bus.publish(Self.card(reader)) }  // 10...14; 12...14 kept
        // 11 → the events from 12 on are all kept: no loss.
        let intact = try bus.subscribe(peer: Self.alice, lastEventID: 11)
        #expect(await Self.drain(intact, count: 3).map(\.sequence) == [12, 13, 14])
        // 10 → 11 is lost.
        let stale = try bus.subscribe(peer: Self.alice, lastEventID: 10)
        bus.publish(Self.card("F"))  // 15
        let events = await Self.drain(stale, count: 2)
        #expect(events.map(\.type) == [.eventsReset, .cardInserted])
        #expect(events.map(\.sequence) == [14, 15], "the reset's id is the last id published")
        let reset = try JSONDecoder().decode(EventPayload.Reset.self, from: Data(events[0].data.utf8))
        #expect(reset == .init(reason: "expired", lastEventId: "10", oldestId: "12"))
    }

    @Test(arguments: [UInt64(3), 8, 100, .max])
    func anIdOfNoEventOfThisRunGetsAReset(_ id: UInt64) async throws {
        let bus = EventBus(maxSubscribers: 4, firstSequence: 10)
        for reader in ["A", "B"] { bus.publish(Self.card(reader)) }  // 10, 11
        let stream = try bus.subscribe(peer: Self.alice, lastEventID: id)
        let first = await Self.drain(stream, count: 1)
        #expect(first.map(\.type) == [.eventsReset])
        let reset = try JSONDecoder().decode(EventPayload.Reset.self, from: Data(first[0].data.utf8))
        #expect(reset.reason == "unknownId" && reset.lastEventId == String(id))
    }

    @Test func theHistoryStaysBounded() async throws {
        var history = EventHistory(capacity: 4)
        for n in 1...1000 {
            var event = Self.card("R")
            event.sequence = UInt64(n)
            history.append(event)
        }
        #expect(history.count == 4)
        #expect(history.first?.sequence == 997)
        #expect(history.events(after: 998).map(\.sequence) == [999, 1000])
        // The daemon's history is capped below a subscriber's buffer: a replay never drops it.
        let bus = EventBus(maxSubscribers: 2, bufferSize: 8, historySize: 100, firstSequence: 1)
        for _ in 0..<50 { bus.publish(Self.card("R")) }
        let stream = try bus.subscribe(peer: Self.alice, lastEventID: 43)
        #expect(await Self.drain(stream, count: 7).map(\.sequence) == Array(44...50))
        #expect(bus.subscriberCount == 1 && bus.droppedSubscribers == 0)
    }

    @Test(arguments: ["abc", "-1", "1.5", "18446744073709551616", "0x10", "1 2", String(repeating: "9", count: 40)])
    func aMalformedLastEventIdIsRefused(_ header: String) {
        #expect(throws: APIError.self) { try APIRequestDecoding.lastEventID(header) }
    }

    @Test func wellFormedLastEventIdsAreRead() throws {
        #expect(try APIRequestDecoding.lastEventID(nil) == nil)
        #expect(try APIRequestDecoding.lastEventID("") == nil)
        #expect(try APIRequestDecoding.lastEventID("0") == 0)
        #expect(try APIRequestDecoding.lastEventID("18446744073709551615") == .max)
    }

    // MARK: Through the daemon's socket

    /// A client that lost its connection resumes with the last id it got: it receives exactly the
    /// events it missed, in order, then the live ones.
    @Test func aReconnectingClientGetsWhatItMissedThenTheLiveStream() async throws {
        let daemon = try await TestDaemon.start(readers: ["R1", "R2"])
        let opened = Locked(false)
        let received = Locked<[DaemonClient.Event]>([])
        let first = Task {
            for try await event in daemon.client.events(onOpen: { opened.withValue { $0 = true } }) {
                received.withValue { $0.append(event) }
            }
        }
        try await waitUntil("the event stream open") { opened.current }
        daemon.daemon.events.publish(Self.card("before"))
        try await waitUntil("the first event received") { !received.current.isEmpty }
        let seen = try #require(received.current.first)
        #expect(seen.data == #"{"reader":"before"}"#)
        let lastID = try #require(seen.id)
        #expect(UInt64(lastID) != nil)

        // Disconnected; three events happen meanwhile.
        // (The daemon notices the closed connection at its next write to it.)
        first.cancel()
        _ = await first.result
        for reader in ["m1", "m2", "m3"] { daemon.daemon.events.publish(Self.card(reader)) }
        let resumed = daemon.client.events(lastEventID: lastID)
        var again = resumed.makeAsyncIterator()
        var events: [DaemonClient.Event] = []
        for _ in 0..<3 { if let event = try await again.next() { events.append(event) } }
        #expect(events.map(\.data) == [#"{"reader":"m1"}"#, #"{"reader":"m2"}"#, #"{"reader":"m3"}"#])
        let ids = events.compactMap { $0.id.flatMap(UInt64.init) }
        #expect(ids == [1, 2, 3].map { UInt64(lastID)! + $0 }, "consecutive ids after the last one seen")
        daemon.daemon.events.publish(Self.card("live"))
        let live = try #require(try await again.next())
        #expect(live.data == #"{"reader":"live"}"# && live.id == String(UInt64(lastID)! + 4))
        try await daemon.stop()
    }

    @Test func aClientResumingFromTooLongAgoIsToldItMissedEvents() async throws {
        let daemon = try await TestDaemon.start()
        let bus = daemon.daemon.events
        bus.publish(Self.card("old"))
        let old = String(bus.lastSequence)
        for _ in 0..<300 { bus.publish(Self.card("flood")) }  // beyond the 256 kept
        let stream = daemon.client.events(lastEventID: old)
        var iterator = stream.makeAsyncIterator()
        let reset = try #require(try await iterator.next())
        #expect(reset.type == "events.reset" && reset.id == String(bus.lastSequence))
        let payload = try JSONDecoder().decode(EventPayload.Reset.self, from: Data(reset.data.utf8))
        #expect(payload.reason == "expired" && payload.lastEventId == old)
        #expect(payload.oldestId == String(bus.lastSequence - 255))

        // An id from before a restart (below this run's first) is unknown, not resumed.
        let beforeRestart = daemon.client.events(lastEventID: String(bus.firstSequence - 10))
        var restarted = beforeRestart.makeAsyncIterator()
        let unknown = try #require(try await restarted.next())
        #expect(unknown.type == "events.reset" && unknown.data.contains(#""reason":"unknownId""#))
        try await daemon.stop()
    }

    @Test(arguments: ["abc", "12 34", "-5", "99999999999999999999999"])
    func aMalformedLastEventIdHeaderIsAnswered400(_ header: String) async throws {
        let daemon = try await TestDaemon.start()
        let socket = try RawSocket(path: daemon.socketPath, receiveTimeout: 10)
        socket.send("GET /v1/events HTTP/1.1\r\nHost: mrtdd\r\nLast-Event-ID: \(header)\r\nConnection: close\r\n\r\n")
        let answer = try #require(try await offPool { socket.receiveAnswer() })
        #expect(answer.status == 400)
        let body = try JSONDecoder().decode(APIError.Body.self, from: Data(answer.body.utf8))
        #expect(body.error == .invalidRequest && body.message.contains("Last-Event-ID"))
        #expect(daemon.daemon.events.subscriberCount == 0, "a refused resume holds no subscription")
        try await daemon.stop()
    }

    /// Across real uids (curl under setpriv): resuming from before a job was created, its owner gets
    /// the job's events, another uid only the public ones.
    @Test func resumingNeverShowsAnotherUidsJobEvents() async throws {
        guard SecurityTests.canSwitchUsers() else { return }
        let daemon = try await SecurityTests.reachableDaemon()
        let start = String(daemon.daemon.events.lastSequence)
        let created = try await SecurityTests.request(
            as: SecurityTests.owner, "POST", "/v1/reads", body: SecurityTests.createBody, socket: daemon.socketPath)
        let id = try JSONDecoder().decode(ReadJobView.self, from: Data(created.body.utf8)).id
        daemon.backend.insert(try Specimens.passport(), into: "R1")
        _ = try await daemon.waitFinished(id)
        // A public event last: once a follower has it, the whole history before it has been sent
        // (or withheld), so what a follower lacks it was not sent.
        daemon.daemon.events.publish(.make(.readerRemoved, EventPayload.Reader(reader: "test-marker")))
        // Both subscribe after the read: everything comes from the kept history.
        let directory = URL(fileURLWithPath: (daemon.socketPath as NSString).deletingLastPathComponent)
        var texts: [UInt32: String] = [:]
        for uid in [SecurityTests.owner, SecurityTests.stranger] {
            let log = directory.appendingPathComponent("\(uid).events")
            let follower = try SecurityTests.follow(
                as: uid, "/v1/events", socket: daemon.socketPath, output: log, seconds: 30, headers: ["Last-Event-ID: \(start)"])
            defer { if follower.isRunning { follower.terminate() } }
            try await waitUntil("the history replayed to uid \(uid)") {
                (try? String(contentsOf: log, encoding: .utf8))?.contains("test-marker") == true
            }
            follower.terminate()
            texts[uid] = try String(contentsOf: log, encoding: .utf8)
        }
        let ownerText = texts[SecurityTests.owner] ?? ""
        let strangerText = texts[SecurityTests.stranger] ?? ""
        #expect(ownerText.contains("read.finished") && ownerText.contains(id) && ownerText.contains("card.inserted"))
        #expect(strangerText.contains("card.inserted"), "public events are replayed to everyone: \(strangerText)")
        #expect(!strangerText.contains(id) && !strangerText.contains("read."), "another uid got the job's events: \(strangerText)")
        try await daemon.stop()
    }
}
