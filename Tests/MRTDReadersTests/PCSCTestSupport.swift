import Foundation
import MRTDCore
import MRTDProtocol
import MRTDReaders
import MRTDTesting
import Testing
import MRTDSimulation

/// What the PC/SC hardware-in-loop tests share: a private pcscd with vpcd, the specimen, bounded
/// waits, and skip-or-fail when the environment cannot run them.
enum PCSCTestSupport {
    static let specimen = try! SpecimenDocument.make()
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    /// Fails, unless the caller allowed skips (`MRTD_ALLOW_SKIPS=1`, Prerequisite): then skips loudly.
    static func unavailable(_ why: String, sourceLocation: SourceLocation = #_sourceLocation) {
        if !Prerequisite.skip("PC/SC hardware-in-loop test: \(why)") {
            Issue.record("PC/SC hardware-in-loop test cannot run: \(why)", sourceLocation: sourceLocation)
        }
    }

    static func chip(extendedLength: Bool = true, maxLe: Int? = nil) -> VirtualChip {
        VirtualChip(configuration: VirtualChipConfiguration(
            files: specimen.files, accessKey: key, extendedLength: extendedLength, maxReadLength: maxLe))
    }

    /// Starts a private pcscd, runs `body` with it and a fresh backend, then shuts both down, even
    /// when `body` throws. Returns without running `body` (skipped or failed) when the harness
    /// cannot run here.
    static func withDaemon(
        sourceLocation: SourceLocation = #_sourceLocation,
        _ body: (PCSCDaemon, PCSCBackend) async throws -> Void
    ) async throws {
        let daemon: PCSCDaemon
        do {
            daemon = try PCSCDaemon()
            try await daemon.start()
        } catch let why as PCSCDaemon.Unavailable {
            unavailable(why.description, sourceLocation: sourceLocation)
            return
        }
        let backend = PCSCBackend(options: PCSCOptions(retryDelay: .milliseconds(50), maxRetryDelay: .milliseconds(400)))
        do {
            try await body(daemon, backend)
        } catch {
            await backend.shutdown()
            print("pcscd log:\n\(daemon.logTail())")
            await daemon.stop()
            throw error
        }
        await backend.shutdown()
        await daemon.stop()
    }

    /// Runs `body`, failing after `limit` (MRTDTesting's `withTimeLimit`).
    static func within<T: Sendable>(
        _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withTimeLimit(limit, what, body)
    }

    static func read(_ connection: any APDUTransport, dataGroups: [Int] = [1, 2, 14, 15]) async -> DocumentReader.Read {
        await DocumentReader.read(transport: connection, options: ReadOptions(accessKey: .mrz(key), dataGroups: dataGroups))
    }
}

/// Records a backend's events and lets a test wait for the next one matching a condition.
actor EventRecorder {
    private(set) var events: [ReaderEvent] = []
    private var cursor = 0
    private var waiter: (id: Int, match: @Sendable (ReaderEvent) -> Bool, continuation: CheckedContinuation<ReaderEvent?, Never>)?
    private var nextWaiter = 0
    private var consumer: Task<Void, Never>?

    static func start(_ stream: AsyncStream<ReaderEvent>) async -> EventRecorder {
        let recorder = EventRecorder()
        await recorder.consume(stream)
        return recorder
    }

    private func consume(_ stream: AsyncStream<ReaderEvent>) {
        consumer = Task { [weak self] in
            for await event in stream { await self?.append(event) }
        }
    }

    private func append(_ event: ReaderEvent) {
        events.append(event)
        if let w = waiter, w.match(event) {
            waiter = nil
            cursor = events.count
            w.continuation.resume(returning: event)
        }
    }

    /// The next event after the last one returned that matches, waiting at most `timeout`.
    func next(within timeout: Duration = .seconds(10), where match: @escaping @Sendable (ReaderEvent) -> Bool) async -> ReaderEvent? {
        if cursor < events.count, let i = events[cursor...].firstIndex(where: match) {
            cursor = i + 1
            return events[i]
        }
        cursor = events.count
        nextWaiter += 1
        let id = nextWaiter
        return await withCheckedContinuation { continuation in
            waiter = (id, match, continuation)
            Task {
                try? await Task.sleep(for: timeout)
                self.expire(id)
            }
        }
    }

    private func expire(_ id: Int) {
        guard let w = waiter, w.id == id else { return }
        waiter = nil
        w.continuation.resume(returning: nil)
    }

    func stop() { consumer?.cancel() }
}

extension ReaderEvent {
    var isCardInserted: Bool { if case .cardInserted = self { return true } else { return false } }
    var isCardRemoved: Bool { if case .cardRemoved = self { return true } else { return false } }
    var isReaderAdded: Bool { if case .readerAdded = self { return true } else { return false } }
    var isReaderRemoved: Bool { if case .readerRemoved = self { return true } else { return false } }
    var isUnavailable: Bool { if case .backendUnavailable = self { return true } else { return false } }
    var isRecovered: Bool { if case .backendRecovered = self { return true } else { return false } }
    var readerName: String? {
        switch self {
        case .readerAdded(let d): return d.name
        case .readerRemoved(let n), .cardRemoved(let n): return n
        case .cardInserted(let n, _): return n
        default: return nil
        }
    }
}
