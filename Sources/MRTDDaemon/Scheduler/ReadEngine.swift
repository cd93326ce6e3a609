import FoundationEssentials
public import MRTDCore
public import MRTDProtocol
public import MRTDVerification
import MRTDReaders
import MRTDTranscript
import Synchronization
public import MRTDClient

/// The access secret of one job. Held only while the job waits or reads; `wipe()` drops it the
/// moment the read ends. (Swift strings cannot be zeroed in place: dropping the last reference is
/// what is possible; the session keys derived from it are wiped by the protocol layer.)
public final class AccessSecret: Sendable {
    private let key: Mutex<AccessKey?>

    public init(_ key: AccessKey) {
        self.key = Mutex(key)
    }

    /// The key, or nil once wiped.
    public func take() -> AccessKey? { key.withLock { $0 } }

    public func wipe() { key.withLock { $0 = nil } }

    /// `MRZ` or `CAN` (`wiped` once wiped), for logs and metrics.
    public var kind: String { key.withLock { $0?.passwordType ?? "wiped" } }
}

/// What a job asks the engine to do.
public struct ReadParameters: Sendable {
    public var access: AccessSecret
    public var dataGroups: [Int]
    public var accessPolicy: AccessPolicy
    /// Where the session's transcript goes (`record-directory`); nil: not recorded. Engines other
    /// than `StandardReadEngine` may ignore it.
    public var recording: SessionRecording?
    /// The caller's Active Authentication challenge (`aaChallenge`); nil: the reader draws one.
    public var aaChallenge: [UInt8]? = nil
    /// The data page's MRZ DG1 must equal (`checks.mrzMatch`); dropped when the read ends.
    public var pageMRZ: MRZ? = nil
}

/// Performs the chip session of a job: the daemon's seam to the protocol layer (tests and other
/// builds can pass their own engine to `Daemon`).
public protocol ReadEngine: Sendable {
    /// Refuses, before a job is created, what this engine cannot do (a CAN under the `bac` policy).
    func validate(access: AccessKey, policy: AccessPolicy) throws(SchedulerError)
    /// Reads the chip behind `transport`. After a link fault (card pulled, chip silent) `reconnect`
    /// gives a fresh link to the card when it is presented again, so the read can resume. A failed
    /// read is a result with `status: failed`.
    func read(
        transport: any APDUTransport, reconnect: @escaping @Sendable () async throws -> any APDUTransport,
        parameters: ReadParameters, progress: @escaping ReadProgressHandler
    ) async -> DocumentReader.Read
    /// What passive authentication trusts (for `GET /v1/health`).
    var trustStore: TrustStoreSummary { get }
    /// The reloadable trust store, if this engine has one (SIGHUP reloads it).
    var trust: TrustManager? { get }
}

extension ReadEngine {
    public var trust: TrustManager? { nil }
}

/// The engine of this build: `DocumentReader` with BAC or PACE (MRZ or CAN) under the job's access
/// policy, chip and active authentication, and passive authentication against the trust store.
public struct StandardReadEngine: ReadEngine {
    public let trust: TrustManager?
    private let manager: TrustManager

    public var trustStore: TrustStoreSummary { manager.summary }
    /// EAC terminal credentials (`terminal-directory`); nil: DG3 / DG4 stay skipped.
    public var terminal: TerminalCredentials? = nil

    /// - Parameters:
    ///   - store: what passive authentication trusts; `nil` leaves every result `unverified`.
    ///   - summary: how `GET /v1/health` describes it.
    public init(store: TrustStore?, summary: TrustStoreSummary) {
        self.init(trust: TrustManager(store: store, summary: summary))
    }

    /// An engine whose trust store reloads (each read uses the store current when it starts).
    public init(trust: TrustManager) {
        self.manager = trust
        self.trust = trust
    }

    public func validate(access: AccessKey, policy: AccessPolicy) throws(SchedulerError) {
        // A CAN is a PACE password only (BSI TR-03110-2); BAC has no use for it.
        if case .can = access, policy == .bac { throw .canNeedsPACE }
    }

    public func read(
        transport: any APDUTransport, reconnect: @escaping @Sendable () async throws -> any APDUTransport,
        parameters: ReadParameters, progress: @escaping ReadProgressHandler
    ) async -> DocumentReader.Read {
        guard let key = parameters.access.take() else {
            return DocumentReader.Read(
                result: ReadResult(status: .failed, error: .init(code: .cancelled, message: "the access key was wiped before the read")),
                files: [:])
        }
        var options = ReadOptions(
            accessKey: key, dataGroups: parameters.dataGroups, access: parameters.accessPolicy, trustStore: manager.store)
        options.terminal = terminal
        options.activeAuthenticationChallenge = parameters.aaChallenge
        options.pageMRZ = parameters.pageMRZ
        // The first link is the one the scheduler opened; later ones come from `reconnect`.
        let first = FirstLink(transport)
        let connect: @Sendable () async throws -> any APDUTransport = {
            if let transport = first.take() { return transport }
            return try await reconnect()
        }
        // The same recording as `mrtdctl read --record` (a reconnecting read, every link in one transcript).
        let connection = transport as? any CardConnection
        let reader = Transcript.Reader(
            name: connection?.reader.name ?? "unknown", backend: connection?.reader.backend.rawValue ?? "unknown",
            capabilities: transport.capabilities)
        let (read, transcript) = await Transcript.read(
            .reconnecting(connect), reader: reader, atr: connection?.atr, options: options,
            recording: parameters.recording != nil, progress: progress)
        if let recording = parameters.recording, let transcript {
            recording.directory.save(transcript, job: recording.job, started: recording.started)
        }
        return read
    }
}

/// Hands out the scheduler's first connection once; the read's later connections are reconnects.
private final class FirstLink: Sendable {
    private let transport: Mutex<(any APDUTransport)?>
    init(_ transport: any APDUTransport) { self.transport = Mutex(transport) }
    func take() -> (any APDUTransport)? {
        transport.withLock { $0.take() }
    }
}
