import Foundation
import Logging
import MRTDCore
import MRTDReaders
import MRTDTesting
import MRTDVerification
@testable import MRTDDaemon
import MRTDCrypto
import MRTDPlatform
import MRTDSimulation
import MRTDClient

/// Log lines captured from a daemon under test.
final class LogCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ line: String) { lock.withLock { lines.append(line) } }
    var text: String { lock.withLock { lines.joined() } }
}

/// The specimen documents, built once per test process (signing the SOD takes a moment).
enum Specimens {
    private static let cache = Locked<[String: VirtualChipConfiguration]>([:])

    static func passport(face: SpecimenDocument.FaceFormat = .jpeg) throws -> VirtualChipConfiguration {
        if let cached = cache.withValue({ $0[face.rawValue] }) { return cached }
        let document = try SpecimenDocument.make(face: face)
        let configuration = VirtualChipConfiguration(files: document.files, accessKey: try MRZ(SpecimenDocument.erikssonMRZ).accessKey)
        cache.withValue { $0[face.rawValue] = configuration }
        return configuration
    }

    /// The passport with DG5, DG7, DG11, DG12, DG13 and DG16 too.
    static func fullPassport() throws -> VirtualChipConfiguration {
        if let cached = cache.withValue({ $0["full-lds"] }) { return cached }
        let document = try SpecimenDocument.make(extraDataGroups: SpecimenDocument.additionalDataGroups())
        let configuration = VirtualChipConfiguration(files: document.files, accessKey: try MRZ(SpecimenDocument.erikssonMRZ).accessKey)
        cache.withValue { $0["full-lds"] = configuration }
        return configuration
    }

    static let mrzKey = ReadJobRequest.MRZKeyFields(documentNumber: "L898902C3", dateOfBirth: "740812", dateOfExpiry: "120415")
    static let access = ReadJobRequest.Access(mrzKey: mrzKey)
    /// `access` as the scheduler takes it (checked by the API layer, as a request body would be).
    static func order() throws -> ReadJobOrder { try APIRequestDecoding.order(.init(access: access)) }
    static let wrongAccess = ReadJobRequest.Access(
        mrzKey: .init(documentNumber: "L898902C3", dateOfBirth: "740813", dateOfExpiry: "120415"))
}

/// A daemon running in-process on a temporary socket, with a virtual reader backend (or the
/// backends a test passes, e.g. PC/SC against a private pcscd).
struct TestDaemon {
    let backends: [any ReaderBackend]
    let daemon: Daemon
    let client: DaemonClient
    let logs: LogCapture
    let socketPath: String
    let task: Task<Void, any Error>

    /// The virtual backend of a daemon started with `start(readers:)`.
    var backend: VirtualReaderBackend {
        guard let virtual = backends.first as? VirtualReaderBackend else { fatalError("this test daemon has no virtual backend") }
        return virtual
    }

    static func start(
        readers: [String] = ["R1"], logLevel: Logger.Level = .debug, engine: (any ReadEngine)? = nil,
        configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) async throws -> TestDaemon {
        let daemon = try await start(backends: [VirtualReaderBackend(readers: readers)], logLevel: logLevel, engine: engine, configure: configure)
        // The readers attach through the monitor, after the socket listens: a test naming one
        // must not race it.
        try await waitUntil("the daemon sees its \(readers.count) readers") {
            await daemon.daemon.scheduler.stats().readers >= readers.count
        }
        return daemon
    }

    static func start(
        backends: [any ReaderBackend], logLevel: Logger.Level = .debug, engine: (any ReadEngine)? = nil,
        configure: (inout DaemonConfiguration) -> Void = { _ in }
    ) async throws -> TestDaemon {
        var configuration = DaemonConfiguration()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-test-\(UUID().uuidString.prefix(8))")
        configuration.socketPath = directory.appendingPathComponent("api.sock").path
        configuration.socketGroup = ""
        configuration.logLevel = logLevel
        configure(&configuration)
        let logs = LogCapture()
        let logger = Logger(label: "mrtdd-test") { label in
            JournalLogHandler(label: label, level: logLevel) { logs.append($0) }
        }
        let daemon = Daemon(
            configuration: configuration, address: .unixSocket(path: configuration.socketPath), backends: backends,
            engine: try engine ?? StandardReadEngine(store: try testTrustStore(), summary: TrustStoreSummary(paths: ["test"], testOnly: true)),
            logger: logger)
        let task = Task { try await daemon.run(signals: []) }
        await daemon.server.waitUntilListening()
        return TestDaemon(
            backends: backends, daemon: daemon, client: DaemonClient(socketPath: configuration.socketPath), logs: logs,
            socketPath: configuration.socketPath, task: task)
    }

    func stop() async throws {
        await daemon.shutdown()
        try await task.value
        try? FileManager.default.removeItem(atPath: (socketPath as NSString).deletingLastPathComponent)
    }

    /// Polls a job until `done`, `failed` or `cancelled`.
    func waitFinished(_ id: String, timeout: Duration = .seconds(20)) async throws -> ReadJobView {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let view = try await client.job(id)
            if view.state.isFinished { return view }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("job \(id) did not finish in time")
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Passive authentication in the daemon tests trusts the TEST-ONLY CSCA that signs the specimens.
func testTrustStore() throws -> TrustStore {
    var store = TrustStore()
    _ = store.addAnchor(try TestPKI.csca(), source: "test CSCA", isTestMaterial: true)
    return store
}

extension PeerCredentials {
    /// In-process calls into the scheduler, as root (which sees every job).
    static let rootForTests = PeerCredentials(pid: getpid(), uid: 0, gid: 0)
}
