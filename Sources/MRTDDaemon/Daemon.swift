import FoundationEssentials
public import Logging
public import MRTDReaders
public import ServiceLifecycle
public import UnixSignals
import Synchronization
import Glibc
import MRTDCore
import Hummingbird
import MRTDPlatform
public import MRTDClient

/// mrtdd assembled: a reader monitor over any number of backends, the read scheduler and the API
/// server, run as one `ServiceGroup` that shuts down gracefully on SIGTERM and SIGINT.
///
/// ```swift
/// let daemon = Daemon(configuration: config, backends: [pcsc, libnfc],
///                     engine: StandardReadEngine(store: store, summary: summary), logger: logger)
/// try await daemon.run()
/// ```
public final class Daemon: Sendable {
    public let configuration: DaemonConfiguration
    public let backends: [any ReaderBackend]
    public let engine: any ReadEngine
    public let logger: Logger
    public let events: EventBus
    public let metrics: DaemonMetrics
    public let scheduler: ReadScheduler
    public let server: APIServer
    /// Turns scanned and pushed MRZs into reads.
    public let pairing: MRZPairing
    /// Where session transcripts go, when `record-directory` is set.
    public let transcripts: TranscriptDirectory?
    /// Reads the configuration again for a reload (file + flags); nil: reloads reuse `configuration`.
    private let reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)?
    private let group = Mutex<ServiceGroup?>(nil)
    private let stopRequested = Mutex(false)
    /// This build's version, reported by `GET /v1/health`.
    public static let version = MRTDVersion.string

    /// - Parameters:
    ///   - address: where to listen; by default the socket systemd passed, else `configuration.socketPath`.
    ///   - backends: the reader libraries (PC/SC, libnfc, virtual); hot-plug comes from their event streams.
    ///   - engine: performs chip sessions (`StandardReadEngine`: BAC/PACE, CA/AA, passive authentication).
    public init(
        configuration: DaemonConfiguration, address: ListenAddress? = nil, backends: [any ReaderBackend],
        engine: any ReadEngine, logger: Logger, reloadConfiguration: (@Sendable () throws -> DaemonConfiguration)? = nil
    ) {
        self.configuration = configuration
        self.reloadConfiguration = reloadConfiguration
        self.backends = backends
        self.engine = engine
        self.logger = logger
        events = EventBus(maxSubscribers: configuration.maxEventSubscribers, maxSubscribersPerUser: configuration.maxEventSubscribersPerUser)
        let metrics = DaemonMetrics()
        self.metrics = metrics
        let transcripts = configuration.recordDirectory.map { TranscriptDirectory(path: $0, metrics: metrics, logger: logger) }
        self.transcripts = transcripts
        scheduler = ReadScheduler(
            engine: engine, events: events, metrics: metrics, configuration: configuration, logger: logger,
            transcripts: transcripts)
        let scheduler = self.scheduler
        let events = self.events
        let pairing = MRZPairing(
            scheduler: scheduler, events: events, metrics: metrics, logger: logger, window: configuration.mrzWindow,
            owner: PeerCredentials(pid: getpid(), uid: configuration.mrzOwner ?? getuid(), gid: getgid()))
        self.pairing = pairing
        let connectionCount = Locked<APIServer?>(nil)
        let routes = APIRoutes(
            scheduler: scheduler, events: events, metrics: metrics, engine: engine, configuration: configuration,
            version: Self.version, backends: backends.map(\.kind.rawValue), started: .now, pairing: pairing,
            faceConverter: FaceConverter(decoder: configuration.faceDecoder),
            connections: { connectionCount.current?.connections ?? 0 })
        server = APIServer(
            address: address ?? ListenAddress.fromSystemd() ?? .unixSocket(path: configuration.socketPath),
            configuration: configuration, responder: routes.router().buildResponder(), metrics: metrics, logger: logger,
            onShutdown: {
                // Order matters: no new jobs, running reads cancelled and their keys wiped, then the
                // event streams end so their connections can close.
                await scheduler.shutdown()
                await transcripts?.drain()
                events.finishAll()
            })
        connectionCount.withValue { $0 = server }
    }

    /// Starts the same graceful shutdown as SIGTERM.
    public func shutdown() async {
        stopRequested.withLock { $0 = true }
        await group.withLock { $0 }?.triggerGracefulShutdown()
    }

    /// The services in start order; the group stops them in reverse (API first, readers last).
    public var services: [any Service] {
        var services: [any Service] = [
            ReaderMonitor(backends: backends, scheduler: scheduler, logger: logger), SchedulerService(scheduler: scheduler), server,
            HeartbeatService(events: events), MemoryTrimService(scheduler: scheduler),
        ]
        if !configuration.mrzSources.isEmpty {
            services.insert(MRZSourceService(sources: configuration.mrzSources, pairing: pairing, logger: logger), at: 2)
        }
        return services
    }

    /// Reloads configuration and trust store, as SIGHUP does: the configuration is read again; the
    /// trust settings (`trust-store`, `default-trust`, `default-trust-path`, `verification-profile`) take effect at once,
    /// atomically (a store with errors is refused and the running one stays); other settings take
    /// effect at the next restart (logged). Jobs in flight keep the store they started with.
    /// Returns nil when the engine has no reloadable trust store.
    @discardableResult
    public func reload() async -> TrustReloadStatus? {
        guard let trust = engine.trust else {
            logger.warning("reload: this engine has no reloadable trust store")
            return nil
        }
        let fresh: DaemonConfiguration
        do {
            fresh = try reloadConfiguration?() ?? configuration
        } catch {
            let status = trust.refuse("configuration: \(error)")
            logger.error("reload refused: the configuration does not load; configuration and trust store unchanged", metadata: ["error": "\(error)"])
            return status
        }
        var comparable = fresh
        comparable.trustStorePaths = configuration.trustStorePaths
        comparable.defaultTrust = configuration.defaultTrust
        comparable.defaultTrustPath = configuration.defaultTrustPath
        comparable.verificationProfile = configuration.verificationProfile
        if comparable != configuration {
            logger.notice("reload: settings other than the trust store changed; they take effect at the next restart")
        }
        // Loading verifies every master list signature (about half a second): on a thread of its
        // own, not on the cooperative pool that serves the API and the reads.
        return await withCheckedContinuation { continuation in
            BlockingThread.detach(name: "mrtdd-trust") {
                let status = trust.reload(configuration: fresh)
                // The load's temporaries (several MiB for the shipped master lists) go back now,
                // not at the next idle trim.
                Heap.trim()
                continuation.resume(returning: status)
            }
        }
    }

    /// A state summary for the log (SIGUSR1): counts only, no personal data.
    public func logState() async {
        let stats = await scheduler.stats()
        let trust = engine.trustStore
        logger.notice("state", metadata: [
            "readers": "\(stats.readers)", "busyReaders": "\(stats.busyReaders)", "activeJobs": "\(stats.activeJobs)",
            "retainedResults": "\(stats.retainedResults)", "eventSubscribers": "\(events.subscriberCount)",
            "trustCSCAs": "\(trust.certificates ?? 0)", "trustCRLs": "\(trust.crls ?? 0)",
            "lastReload": "\(trust.lastReload.map { "\($0.at) \($0.succeeded ? "succeeded" : "failed")" } ?? "none")",
        ])
    }

    /// Runs until SIGTERM or SIGINT (or until the task is cancelled, for in-process use). With
    /// signals (the default), SIGHUP reloads (``reload()``) and SIGUSR1 logs a state summary
    /// (``logState()``); neither ends the daemon.
    public func run(signals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        var services = self.services.map { ServiceGroupConfiguration.ServiceConfiguration(service: $0) }
        if !signals.isEmpty {
            services.append(.init(service: SignalService(daemon: self, signals: await UnixSignalsSequence(trapping: .sighup, .sigusr1))))
        }
        let group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: signals, logger: logger))
        self.group.withLock { $0 = group }
        if let transcripts {
            logger.notice("recording every chip session (transcripts hold the access key: personal data)", metadata: ["directory": "\(transcripts.path)"])
        }
        if stopRequested.withLock({ $0 }) { await group.triggerGracefulShutdown() }
        try await group.run()
        logger.info("stopped")
    }
}

/// Follows every backend's event stream (hot-plug, card presence) into the scheduler. On
/// shutdown, calls each backend's `shutdown()` (SCardCancel, nfc_abort_command), which ends the streams.
struct ReaderMonitor: Service, CustomStringConvertible {
    var description: String { "ReaderMonitor" }
    let backends: [any ReaderBackend]
    let scheduler: ReadScheduler
    let logger: Logger

    func run() async throws {
        let backends = self.backends
        if backends.isEmpty {
            // `backends =` (no reader library): the API still serves; this service waits for shutdown
            // instead of ending, which the service group would take for a failure.
            try? await gracefulShutdown()
            return
        }
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { group in
                for backend in backends {
                    group.addTask {
                        for await event in backend.events() {
                            await scheduler.handle(event, from: backend)
                        }
                    }
                }
            }
        } onGracefulShutdown: {
            Task {
                for backend in backends { await backend.shutdown() }
            }
        }
        logger.debug("reader monitor stopped")
    }
}

/// SIGHUP: reload; SIGUSR1: log the state. Trapping them replaces their default action
/// (terminate), so neither ends the daemon.
struct SignalService: Service, CustomStringConvertible {
    var description: String { "SignalHandler" }
    let daemon: Daemon
    let signals: UnixSignalsSequence

    func run() async throws {
        await cancelWhenGracefulShutdown {
            for await signal in signals {
                if signal == .sighup {
                    daemon.logger.notice("SIGHUP: reloading configuration and trust store")
                    await daemon.reload()
                } else {
                    await daemon.logState()
                }
            }
        }
    }
}

/// Purges results whose retention ended.
struct SchedulerService: Service, CustomStringConvertible {
    var description: String { "ReadScheduler" }
    let scheduler: ReadScheduler

    func run() async throws {
        await cancelWhenGracefulShutdown {
            await scheduler.runSweeper()
        }
        await scheduler.shutdown()
    }
}

/// Sends an SSE comment every 15 s so dead event-stream clients are noticed and dropped.
struct HeartbeatService: Service, CustomStringConvertible {
    var description: String { "EventHeartbeat" }
    let events: EventBus

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(15))
                events.publish(.keepAlive)
            }
        }
    }
}

/// Gives memory back to the system: every 10 s, when jobs have finished or results been dropped
/// since the last trim, `malloc_trim(0)` returns the free pages of glibc's arena (a burst of reads,
/// or results purged after their retention, leaves megabytes of them). The first tick trims whatever
/// the counts say, giving back what start-up (the trust store, the services' own start) freed.
struct MemoryTrimService: Service, CustomStringConvertible {
    var description: String { "MemoryTrim" }
    let scheduler: ReadScheduler
    var schedule = TrimSchedule()

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var schedule = self.schedule
            while !Task.isCancelled {
                try? await Task.sleep(for: schedule.period)
                if schedule.next(changes: await scheduler.stats().changes) { Heap.trim() }
            }
        }
    }
}

/// When ``MemoryTrimService`` trims the heap: a pure state machine, one ``next(changes:)`` per
/// period, so that its rule is tested without clocks.
struct TrimSchedule: Sendable, Equatable {
    /// How often the service wakes.
    var period: Duration = .seconds(10)
    /// `changes` at the last trim; -1: the first tick trims.
    private(set) var trimmedAt = -1

    /// Whether to trim on this tick, given the scheduler's count of concluded and purged jobs.
    mutating func next(changes: Int) -> Bool {
        guard changes != trimmedAt else { return false }
        trimmedAt = changes
        return true
    }
}
