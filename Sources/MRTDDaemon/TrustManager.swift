public import FoundationEssentials
public import Logging
public import MRTDVerification
import Synchronization
public import MRTDClient
import MRTDCore

/// The trust store passive authentication uses, swapped atomically on reload (SIGHUP,
/// `systemctl reload mrtdd`).
///
/// A read takes the store current when it starts and keeps it to the end, so a reload never
/// disturbs a job in flight. A new store replaces the running one only when it loads without
/// errors (``TrustStoreReport/errors``: a path missing, a master list that does not verify, a file
/// that is not trust material, a rejected CRL, no CSCA); otherwise the old store stays and the
/// reason is logged, shown by `GET /v1/health` (`trustStore.lastReload`) and counted in `/metrics`.
public final class TrustManager: Sendable {
    private struct State {
        var store: TrustStore?
        var summary: TrustStoreSummary
        var lastReload: TrustReloadStatus?
        var reloads: [String: Int] = [:]
    }
    private let state: Mutex<State>
    /// False for a fixed store (`--simulate`, tests): reloads are refused.
    public let reloadable: Bool
    private let logger: Logger

    /// A fixed store (simulation, tests): reload refuses.
    public init(store: TrustStore?, summary: TrustStoreSummary, logger: Logger = Logger(label: "mrtdd.trust")) {
        state = Mutex(State(store: store, summary: summary))
        reloadable = false
        self.logger = logger
    }

    /// Loads the configured trust (the default master lists unless `default-trust = no`, then
    /// `trust-store`). At start a store with errors is still used (there is no older one); the
    /// errors are logged as warnings.
    public init(configuration: DaemonConfiguration, logger: Logger) {
        self.logger = logger
        reloadable = true
        let paths = configuration.effectiveTrustPaths()
        guard !paths.isEmpty else {
            logger.warning("no trust store configured: passive authentication is not performed and results stay unverified")
            state = Mutex(State(store: nil, summary: TrustStoreSummary(paths: [])))
            return
        }
        var store = TrustStore.load(paths: paths, limits: configuration.trustLimits)
        store.verificationProfile = configuration.verificationProfile
        Self.log(store.report, logger: logger)
        state = Mutex(State(store: store, summary: Self.summary(store, paths: paths, configuration: configuration)))
    }

    /// The store for a read starting now.
    public var store: TrustStore? { state.withLock { $0.store } }

    /// What `GET /v1/health` shows.
    public var summary: TrustStoreSummary {
        let current = state.withLock { $0 }
        var summary = current.summary
        summary.lastReload = current.lastReload
        return summary
    }

    /// Reloads, by outcome (`succeeded`, `failed`), for `/metrics`.
    var reloadCounts: [String: Int] { state.withLock { $0.reloads } }

    /// Loads the trust of `configuration` and swaps it in when it has no errors; otherwise keeps the
    /// running store. Either way the outcome is logged and kept for health and metrics.
    @discardableResult
    public func reload(configuration: DaemonConfiguration, at date: Date = Date()) -> TrustReloadStatus {
        guard reloadable else {
            return record(.init(at: ISOTime.string(date), succeeded: false, error: "this trust store is fixed (--simulate); nothing to reload"))
        }
        let paths = configuration.effectiveTrustPaths()
        guard !paths.isEmpty else {
            state.withLock { $0.store = nil; $0.summary = TrustStoreSummary(paths: []) }
            logger.warning("trust store reloaded: none configured; results stay unverified")
            return record(.init(at: ISOTime.string(date), succeeded: true, error: nil))
        }
        var store = TrustStore.load(paths: paths, at: date, limits: configuration.trustLimits)
        store.verificationProfile = configuration.verificationProfile
        let report = store.report
        guard report.errors.isEmpty else {
            let why = report.errors.prefix(5).joined(separator: "; ") + (report.errors.count > 5 ? "; …" : "")
            logger.error("trust store reload refused, the running store stays", metadata: ["errors": "\(why)"])
            return record(.init(at: ISOTime.string(date), succeeded: false, error: why))
        }
        Self.log(report, logger: logger)
        let summary = Self.summary(store, paths: paths, configuration: configuration, at: date)
        state.withLock { $0.store = store; $0.summary = summary }
        logger.notice("trust store reloaded", metadata: ["cscas": "\(store.anchors.count)", "crls": "\(store.crls.count)"])
        return record(.init(at: ISOTime.string(date), succeeded: true, error: nil))
    }

    /// Records a reload that failed before the store was loaded (the configuration did not load).
    func refuse(_ why: String, at date: Date = Date()) -> TrustReloadStatus {
        record(.init(at: ISOTime.string(date), succeeded: false, error: why))
    }

    private func record(_ status: TrustReloadStatus) -> TrustReloadStatus {
        state.withLock {
            $0.lastReload = status
            $0.reloads[status.succeeded ? "succeeded" : "failed", default: 0] += 1
        }
        return status
    }

    static func log(_ report: TrustStoreReport, logger: Logger) {
        for rejected in report.rejected {
            logger.warning("trust material rejected", metadata: ["path": "\(rejected.path)", "reason": "\(rejected.reason)"])
        }
        for warning in report.warnings where !warning.hasPrefix("cscaExpiringSoon") {
            logger.warning("trust store: \(warning)")
        }
        if !report.expiringCSCAs.isEmpty {
            logger.warning("trust store: CSCAs expiring within \(TrustStoreReport.expiryHorizonDays) days", metadata: ["count": "\(report.expiringCSCAs.count)"])
        }
        logger.info("trust store loaded", metadata: [
            "cscas": "\(report.cscaCount)", "crls": "\(report.crlCount)", "countries": "\(report.countries.count)",
            "ms": "\(report.loadMilliseconds)",
        ])
    }

    /// The health view of a loaded store.
    public static func summary(_ store: TrustStore, paths: [String], configuration: DaemonConfiguration? = nil, at date: Date = Date()) -> TrustStoreSummary {
        let report = store.report
        var summary = TrustStoreSummary(
            paths: paths, certificates: store.anchors.count, crls: store.crls.count,
            testOnly: report.containsTestMaterial && store.anchors.allSatisfy(\.isTestMaterial))
        summary.defaultTrust = configuration.flatMap { $0.defaultTrust ? $0.resolvedDefaultTrustPath() : nil }
        summary.countries = report.countries.map(\.country)
        summary.masterLists = report.masterLists.map {
            .init(path: $0.path, country: $0.country, signature: $0.signature, certificates: $0.certificates,
                  issued: $0.issued, ageDays: $0.ageDays)
        }
        summary.expiringCSCAs = report.expiringCSCAs.count
        summary.crlsPastNextUpdate = report.crlsPastNextUpdate
        summary.rejectedCRLs = report.crls.count(where: { $0.status == "rejected" })
        summary.nextCRLUpdate = report.nextCRLUpdate
        summary.loadedAt = report.loadedAt
        summary.warnings = report.warnings.filter { !$0.hasPrefix("cscaExpiringSoon") }
        summary.errors = report.errors
        let sources = updateSources(paths: paths, at: date)
        summary.updateSources = sources.isEmpty ? nil : sources
        return summary
    }

    /// What `mrtdctl trust update` recorded in each trust directory (`.trust-update.json`).
    static func updateSources(paths: [String], at date: Date) -> [TrustSourceStatus] {
        var out: [TrustSourceStatus] = []
        for path in paths {
            // A file path has no state file beside it: load finds none.
            for var status in TrustUpdateState.load(directory: path).sources {
                // The files it installed stay in the state file; health tells their age instead.
                status.files = nil
                status.ageDays = status.issued.flatMap(ISOTime.parse).map { Int(date.timeIntervalSince($0) / 86_400) }
                out.append(status)
            }
        }
        return out
    }
}
