import ArgumentParser
import FoundationEssentials
import Logging
import MRTDCore
import MRTDClient
import MRTDDaemon
import MRTDReaders
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import MRTDVerification
import MRTDCrypto
import Glibc
import MRTDPlatform

@main
struct MRTDD: AsyncParsableCommand, Sendable {
    static let configuration = CommandConfiguration(
        commandName: "mrtdd",
        abstract: "The eMRTD reader daemon: reads e-passports and ID cards for local clients over a Unix socket.",
        discussion: """
            Settings come from the configuration file (key = value lines, see docs/configuration.md), \
            then from flags. SIGTERM or SIGINT stops the daemon gracefully; SIGHUP (systemctl reload mrtdd) \
            reloads configuration and trust store (a broken store is refused, the running one stays); \
            SIGUSR1 logs a state summary. The shipped CSCA master lists (DE, NL) are trusted unless \
            default-trust = no (or --no-default-trust).
            """,
        version: Daemon.version)

    @Option(help: "Configuration file (missing is fine for the default path).")
    var config: String = DaemonConfiguration.defaultPath

    @Option(help: "Unix socket path (ignored when systemd passes a socket).")
    var socket: String?

    @Option(name: .customLong("trust-store"), help: "Trust store directory or file; repeat for several.")
    var trustStore: [String] = []

    @Option(name: .customLong("access-policy"), help: "auto (PACE when offered, else BAC, falling back to BAC when PACE fails), pace or bac.")
    var accessPolicy: String?

    @Option(name: .customLong("read-timeout"), help: "Longest wait for a card plus read, e.g. 60s.")
    var readTimeout: String?

    @Option(name: .customLong("result-retention"), help: "How long results stay fetchable, e.g. 5m.")
    var resultRetention: String?

    @Option(help: "Reader backends, comma separated: pcsc,libnfc.")
    var backends: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error, critical.")
    var logLevel: String?

    @Option(name: .customLong("record-directory"), help: "Write a transcript of every chip session here (personal data: holds the access key).")
    var recordDirectory: String?

    @Option(name: .customLong("mrz-source"), help: ArgumentHelp(
        "An MRZ scanner whose scans start reads (docs/kiosk.md), repeatable: KIND:DEVICE[,option=value...], KIND serial, hidraw or evdev; options framing=desko|rte|lines, baud=9600, parity=none|even|odd, reader=NAME, layout=us|de|fr, report-size=64, enable-report=HEX, name=LABEL.",
        valueName: "KIND:DEVICE[,option=value...]"))
    var mrzSources: [String] = []

    @Option(name: .customLong("set"), help: "Any configuration key: --set max-jobs=8 (repeatable).")
    var settings: [String] = []

    @Flag(help: "Serve built-in virtual readers presenting the specimen documents; trust only the TEST-ONLY CSCA made for this run.")
    var simulate = false

    @Option(name: .customLong("sim-readers"), help: "Number of virtual readers with --simulate.")
    var simReaders = 1

    @Option(name: .customLong("sim-latency-ms"), help: "Delay per APDU of the virtual readers, in milliseconds.")
    var simLatency = 0

    @Option(name: .customLong("sim-quirk"), help: ArgumentHelp(
        "With --simulate: a behaviour of real chips from field reports (docs/field-quirks.md) on every virtual chip, repeatable: \(VirtualChipQuirk.names).",
        valueName: "NAME"))
    var simQuirks: [String] = []

    @Option(name: .customLong("sim-auth-fault"), help: ArgumentHelp(
        "With --simulate, TEST ONLY: a Chip or Active Authentication fault of the virtual passport, repeatable: \(SimulatedAuthenticationFault.names).",
        valueName: "NAME"))
    var simAuthFaults: [String] = []

    func validate() throws {
        for name in simAuthFaults where SimulatedAuthenticationFault(rawValue: name) == nil {
            throw ValidationError("--sim-auth-fault '\(name)': expected one of \(SimulatedAuthenticationFault.names)")
        }
        if !simulate && !simAuthFaults.isEmpty { throw ValidationError("--sim-auth-fault needs --simulate") }
        for name in simQuirks where VirtualChipQuirk(name: name) == nil {
            throw ValidationError("--sim-quirk '\(name)': expected one of \(VirtualChipQuirk.names)")
        }
        if !simulate && !simQuirks.isEmpty { throw ValidationError("--sim-quirk needs --simulate") }
        guard (1...64).contains(simReaders) else { throw ValidationError("--sim-readers must be between 1 and 64") }
        guard (0...60_000).contains(simLatency) else { throw ValidationError("--sim-latency-ms must be between 0 and 60000") }
    }

    @Flag(name: .customLong("no-default-trust"), help: "Do not trust the shipped master lists (default-trust = no).")
    var noDefaultTrust = false

    /// The configuration file, then the flags on top (read again on every reload).
    func makeConfiguration() throws -> DaemonConfiguration {
        var configuration = DaemonConfiguration()
        do {
            // read(2), not Data(contentsOf:): `--config /dev/null` and `--config <(...)` are files too.
            if let text = try? FileContents.text(config, limit: 1 << 20) {
                try configuration.apply(file: text, name: config)
            } else if config != DaemonConfiguration.defaultPath {
                throw ConfigurationError.unreadable(config)
            }
            if let socket { try configuration.set("socket", socket) }
            if !trustStore.isEmpty { configuration.trustStorePaths = trustStore }
            if noDefaultTrust { configuration.defaultTrust = false }
            if let accessPolicy { try configuration.set("access-policy", accessPolicy) }
            if let readTimeout { try configuration.set("read-timeout", readTimeout) }
            if let resultRetention { try configuration.set("result-retention", resultRetention) }
            if let backends { try configuration.set("backends", backends) }
            if let logLevel { try configuration.set("log-level", logLevel) }
            if let recordDirectory { try configuration.set("record-directory", recordDirectory) }
            for source in mrzSources { try configuration.set("mrz-source", source) }
            for setting in settings {
                let parts = setting.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ValidationError("--set takes key=value") }
                try configuration.set(parts[0].trimmingSpaces(), parts[1].trimmingSpaces())
            }
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
        return configuration
    }

    func run() async throws {
        let configuration = try makeConfiguration()

        Self.raiseDescriptorLimit()

        let level = configuration.logLevel
        LoggingSystem.bootstrap { label in JournalLogHandler(label: label, level: level) }
        let logger = Logger(label: "mrtdd")

        var readerBackends: [any ReaderBackend] = []
        var engine: StandardReadEngine
        if simulate {
            readerBackends.append(try SimulatedDocument.daemonBackend(
                readers: max(1, simReaders), latency: .milliseconds(simLatency),
                quirks: Set(simQuirks.compactMap { VirtualChipQuirk(name: $0) }),
                authenticationFaults: simAuthFaults.compactMap(SimulatedAuthenticationFault.init(rawValue:))))
            // Passive authentication in simulation trusts the run's TEST-ONLY CSCA and nothing else.
            var store = try SimulationPKI.trustStore()
            store.verificationProfile = configuration.verificationProfile
            engine = StandardReadEngine(
                store: store,
                summary: TrustStoreSummary(paths: [SimulationPKI.trustSource], certificates: 1, crls: 0, testOnly: true))
            logger.notice("simulation: virtual readers with the specimen documents; only the run's TEST-ONLY CSCA is trusted")
        } else {
            readerBackends = ReaderBackends.make(configuration.backends, logger: logger)
            engine = StandardReadEngine(trust: TrustManager(configuration: configuration, logger: logger))
            // Loading the trust store freed several MiB of parse temporaries: back to the system now.
            Heap.trim()
        }
        if let directory = configuration.terminalDirectory {
            do {
                let credentials = try TerminalCredentials.load(directory: directory)
                for warning in credentials.warnings {
                    logger.warning("terminal credentials: \(warning)")
                }
                logger.info("terminal credentials loaded", metadata: [
                    "directory": "\(directory)", "terminals": "\(credentials.terminals.count)",
                    "certificates": "\(credentials.certificates.count)",
                ])
                engine.terminal = credentials
            } catch {
                throw ValidationError("terminal-directory: \(error)")
            }
        } else if simulate {
            // The virtual passport trusts the run's TEST-ONLY CVCA; its terminal is the daemon's.
            engine.terminal = try SimulationPKI.eac().credentials()
            logger.notice("simulation: a TEST-ONLY EAC terminal made for this run reads DG3 and DG4")
        }
        let command = self
        let daemon = Daemon(
            configuration: configuration, backends: readerBackends, engine: engine, logger: logger,
            reloadConfiguration: { try command.makeConfiguration() })
        logger.info("starting", metadata: [
            "version": "\(Daemon.version)", "backends": "\(readerBackends.map(\.kind.rawValue))",
            "mrzSources": "\(configuration.mrzSources.map(\.label))",
        ])
        for key in configuration.retiredSettings {
            logger.warning("setting '\(key)' is retired and ignored: \(DaemonConfiguration.retiredKeys[key] ?? "")")
        }
        if !Heap.threadCacheOff {
            logger.warning("freed memory is overwritten except glibc's per-thread cache of small blocks; GLIBC_TUNABLES=glibc.malloc.tcache_count=0 (as the unit sets) covers those too")
        }
        try await daemon.run()
    }
}

extension MRTDD {
    /// Raises the soft limit on open files to the hard one (systemd's unit sets both; a shell often
    /// leaves the soft one at 1024). The server still caps connections below whatever it gets.
    static func raiseDescriptorLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}

extension MRTDD {
    /// The entry point: the allocator is configured before anything else runs, core dumps are
    /// turned off, then the command line is parsed and `run()` called as ArgumentParser does.
    static func main() async {
        configureMalloc()
        // Access keys, session keys and results live in this process: no core dump of it, and its
        // /proc files (mem, environ, maps) root's only, whatever ulimit -c or
        // the unit says.
        if !ProcessHardening.disableCoreDumps() { StandardError.write("mrtdd: warning: cannot turn off core dumps (prctl)\n") }
        await main(nil)
    }

    /// glibc's allocator as the daemon wants it (docs/performance.md); the environment's
    /// own settings win.
    ///
    /// - One malloc arena (unless MALLOC_ARENA_MAX is set). glibc's default is eight per core, each
    ///   opened when threads contend for the heap: the daemon's event-loop, pool and reader threads
    ///   did, and each new arena was a step of about a megabyte of RssAnon that never went back. Two
    ///   still cost a megabyte once the result store turns over: a purged result's chunks go back to
    ///   the arena that allocated them, and the thread allocating the next result may be on the
    ///   other one, so each arena keeps holes the other cannot fill. With one, the bench's store-full
    ///   growth went from 1.0-1.1 MB to 0.1-0.2 MB over 10,000 reads, for 3-4 % fewer reads per second
    ///   on a CPU-bound simulator (a card link, not the CPU, bounds a real reader).
    /// - Freed memory overwritten (unless MALLOC_PERTURB_ is set; Heap.overwriteFreedMemory): a decoded
    ///   access key, a request body or a purged result does not stay readable in freed heap blocks
    ///   (15-21 copies of a document number 4 s after its read ended, 0 with this
    ///   and the unit's GLIBC_TUNABLES=glibc.malloc.tcache_count=0, 1-2 without the latter). It costs
    ///   a memset per allocation and per free: docs/performance.md has the figure.
    /// - mmap and trim thresholds fixed at glibc's starting 128 KiB (unless MALLOC_MMAP_THRESHOLD_,
    ///   MALLOC_TRIM_THRESHOLD_ or a GLIBC_TUNABLES threshold is set; Heap.fixThresholds): without
    ///   this the idle daemon kept 12.5 MiB of heap after loading the shipped master lists.
    ///
    /// Called first thing in `main`, on the main thread: M_ARENA_MAX only limits the arenas glibc has
    /// yet to make, and `run()` runs on a thread of the concurrency pool whose first allocation has
    /// already made a second arena (called from `run()`, a limit of one still left two).
    static func configureMalloc() {
        // An empty variable is no setting (glibc ignores it too).
        func set(_ name: String) -> Bool { getenv(name).map { $0.pointee != 0 } ?? false }
        if !set("MALLOC_ARENA_MAX") { Heap.limitArenas(to: 1) }
        Heap.overwriteFreedMemory()
        if !set("MALLOC_MMAP_THRESHOLD_"), !set("MALLOC_TRIM_THRESHOLD_"),
           !(getenv("GLIBC_TUNABLES").map { String(cString: $0).contains("threshold") } ?? false) {
            Heap.fixThresholds(mmap: 128 * 1024, trim: 128 * 1024)
        }
    }
}

/// The real reader libraries (ReaderBackendFactory), with a warning for `virtual` outside `--simulate`.
enum ReaderBackends {
    static func make(_ kinds: [ReaderBackendKind], logger: Logger) -> [any ReaderBackend] {
        if kinds.contains(.virtual) { logger.warning("the virtual backend is only available with --simulate") }
        return ReaderBackendFactory.make(kinds)
    }
}
