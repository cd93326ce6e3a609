import FoundationEssentials
import Synchronization
import MRTDClient
import MRTDCore

/// Counters and gauges for `GET /metrics` (Prometheus text exposition format 0.0.4).
public final class DaemonMetrics: Sendable {
    private struct Counters {
        var readsByOutcome: [String: Int] = [:]
        var errorsByCode: [String: Int] = [:]
        var requestsByStatus: [Int: Int] = [:]
        var apdus = 0
        var durationBuckets: [Double: Int] = [:]
        var durationSum = 0.0
        var durationCount = 0
        var connectionsRefused = 0
        var transcriptsWritten = 0
        var transcriptsFailed = 0
        /// Scanned or pushed MRZs: captured, corrected (captured with a look-alike fixed),
        /// rejected (no read started), line errors. Counts only, never content.
        var mrzByOutcome: [String: Int] = [:]
    }

    private let counters = Mutex(Counters())
    static let mrzOutcomes = ["captured", "corrected", "rejected", "lineError"]
    static let buckets: [Double] = [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60]

    public init() {}

    func recordRead(outcome: String, seconds: Double?, apdus count: Int, errorCode: String?) {
        counters.withLock { c in
            c.readsByOutcome[outcome, default: 0] += 1
            c.apdus += count
            if let code = errorCode { c.errorsByCode[code, default: 0] += 1 }
            if let seconds {
                c.durationSum += seconds
                c.durationCount += 1
                for bucket in Self.buckets where seconds <= bucket { c.durationBuckets[bucket, default: 0] += 1 }
            }
        }
    }

    func recordRequest(status: Int, errorCode: String?) {
        counters.withLock { c in
            c.requestsByStatus[status, default: 0] += 1
            if let code = errorCode { c.errorsByCode[code, default: 0] += 1 }
        }
    }

    func recordTranscript(written: Bool) {
        counters.withLock { c in
            if written { c.transcriptsWritten += 1 } else { c.transcriptsFailed += 1 }
        }
    }

    func recordMRZ(_ outcome: String) {
        counters.withLock { c in c.mrzByOutcome[outcome, default: 0] += 1 }
    }

    /// Transcripts written and failed so far (`record-directory`).
    var transcripts: (written: Int, failed: Int) {
        counters.withLock { c in (c.transcriptsWritten, c.transcriptsFailed) }
    }

    func recordRefusedConnection() {
        counters.withLock { c in c.connectionsRefused += 1 }
    }

    /// Gauges read at scrape time.
    struct Gauges {
        var readers: Int
        var busyReaders: Int
        var activeJobs: Int
        var retainedResults: Int
        var connections: Int
        var eventSubscribers: Int
        var uptimeSeconds: Double
    }

    func render(_ gauges: Gauges) -> String {
        counters.withLock { c in
            var out = ""
            func family(_ name: String, _ type: String, _ help: String) {
                out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            }
            family("mrtdd_reads_total", "counter", "Reads finished, by outcome (valid, invalid, unverified, failed, cancelled).")
            for outcome in ["valid", "invalid", "unverified", "failed", "cancelled"] {
                out += "mrtdd_reads_total{outcome=\"\(outcome)\"} \(c.readsByOutcome[outcome, default: 0])\n"
            }
            family("mrtdd_read_duration_seconds", "histogram", "Duration of chip sessions.")
            for bucket in Self.buckets {
                out += "mrtdd_read_duration_seconds_bucket{le=\"\(bucket)\"} \(c.durationBuckets[bucket, default: 0])\n"
            }
            out += "mrtdd_read_duration_seconds_bucket{le=\"+Inf\"} \(c.durationCount)\n"
            out += "mrtdd_read_duration_seconds_sum \(c.durationSum)\nmrtdd_read_duration_seconds_count \(c.durationCount)\n"
            family("mrtdd_apdus_total", "counter", "Command/response exchanges with chips.")
            out += "mrtdd_apdus_total \(c.apdus)\n"
            family("mrtdd_errors_total", "counter", "Errors by stable code (read failures and API errors).")
            for (code, n) in c.errorsByCode.sorted(by: { $0.key < $1.key }) {
                out += "mrtdd_errors_total{code=\"\(code)\"} \(n)\n"
            }
            family("mrtdd_http_requests_total", "counter", "API requests answered, by status.")
            for (status, n) in c.requestsByStatus.sorted(by: { $0.key < $1.key }) {
                out += "mrtdd_http_requests_total{status=\"\(status)\"} \(n)\n"
            }
            family("mrtdd_connections_refused_total", "counter", "Connections refused with 429 (too many clients).")
            out += "mrtdd_connections_refused_total \(c.connectionsRefused)\n"
            family("mrtdd_transcripts_total", "counter", "Session transcripts written to record-directory, by outcome (written, failed).")
            out += "mrtdd_transcripts_total{outcome=\"written\"} \(c.transcriptsWritten)\n"
            out += "mrtdd_transcripts_total{outcome=\"failed\"} \(c.transcriptsFailed)\n"
            family("mrtdd_mrz_total", "counter", "MRZs from scanners and POST /v1/mrz, by outcome (captured, corrected: captured with a look-alike character fixed, rejected: no read started, lineError).")
            for outcome in Self.mrzOutcomes {
                out += "mrtdd_mrz_total{outcome=\"\(outcome)\"} \(c.mrzByOutcome[outcome, default: 0])\n"
            }
            family("mrtdd_readers", "gauge", "Readers attached.")
            out += "mrtdd_readers \(gauges.readers)\n"
            family("mrtdd_readers_busy", "gauge", "Readers in a chip session.")
            out += "mrtdd_readers_busy \(gauges.busyReaders)\n"
            family("mrtdd_jobs_active", "gauge", "Jobs waiting for a card or reading.")
            out += "mrtdd_jobs_active \(gauges.activeJobs)\n"
            family("mrtdd_results_retained", "gauge", "Finished jobs kept in memory until their retention ends.")
            out += "mrtdd_results_retained \(gauges.retainedResults)\n"
            family("mrtdd_connections", "gauge", "Open API connections.")
            out += "mrtdd_connections \(gauges.connections)\n"
            family("mrtdd_event_subscribers", "gauge", "Open event streams.")
            out += "mrtdd_event_subscribers \(gauges.eventSubscribers)\n"
            family("mrtdd_uptime_seconds", "gauge", "Seconds since start.")
            out += "mrtdd_uptime_seconds \(gauges.uptimeSeconds)\n"
            return out
        }
    }

    /// The trust store gauges (docs/api.md): CSCAs, CSCAs expiring within 90 days, seconds to the
    /// nearest CRL nextUpdate, CRLs past it or rejected, the last reload and its outcome.
    static func renderTrust(_ trust: TrustStoreSummary, reloads: [String: Int], now: Date = Date()) -> String {
        var out = ""
        func gauge(_ name: String, _ help: String, _ value: String) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) gauge\n\(name) \(value)\n"
        }
        gauge("mrtdd_trust_cscas", "CSCA certificates trusted.", "\(trust.certificates ?? 0)")
        gauge("mrtdd_trust_cscas_expiring", "Trusted CSCAs whose validity ends within 90 days.", "\(trust.expiringCSCAs ?? 0)")
        gauge("mrtdd_trust_crls", "CRLs in use.", "\(trust.crls ?? 0)")
        gauge("mrtdd_trust_crls_rejected", "CRLs refused at load (no signing CSCA, broken signature).", "\(trust.rejectedCRLs ?? 0)")
        gauge("mrtdd_trust_crls_past_next_update", "CRLs in use past their nextUpdate.", "\(trust.crlsPastNextUpdate ?? 0)")
        if let next = trust.nextCRLUpdate.flatMap(ISOTime.parse) {
            gauge("mrtdd_trust_crl_next_update_seconds", "Seconds to the nearest CRL nextUpdate (negative: past).",
                  "\(next.timeIntervalSince(now).rounded())")
        }
        if let ages = trust.masterLists?.compactMap(\.ageDays), let oldest = ages.max() {
            gauge("mrtdd_trust_master_list_max_age_days", "Age of the oldest master list loaded, in days.", "\(oldest)")
        }
        if let last = trust.lastReload {
            gauge("mrtdd_trust_last_reload_timestamp_seconds", "When the last reload was attempted (Unix time).",
                  "\(ISOTime.parse(last.at).map { $0.timeIntervalSince1970.rounded() } ?? 0)")
            gauge("mrtdd_trust_last_reload_success", "1 when the last reload replaced the trust store, 0 when it was refused.",
                  last.succeeded ? "1" : "0")
        }
        if let sources = trust.updateSources, !sources.isEmpty {
            func label(_ text: String) -> String {
                text.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"").replacing("\n", with: "\\n")
            }
            out += "# HELP mrtdd_trust_source_age_seconds Age of what a trust update source installed (since its signingTime or thisUpdate).\n# TYPE mrtdd_trust_source_age_seconds gauge\n"
            for source in sources {
                if let issued = source.issued.flatMap(ISOTime.parse) {
                    out += "mrtdd_trust_source_age_seconds{source=\"\(label(source.source))\"} \(now.timeIntervalSince(issued).rounded())\n"
                }
            }
            out += "# HELP mrtdd_trust_source_last_attempt_timestamp_seconds When trust update last tried a source (Unix time).\n# TYPE mrtdd_trust_source_last_attempt_timestamp_seconds gauge\n"
            for source in sources {
                out += "mrtdd_trust_source_last_attempt_timestamp_seconds{source=\"\(label(source.source))\"} \(ISOTime.parse(source.lastAttempt).map { $0.timeIntervalSince1970.rounded() } ?? 0)\n"
            }
            out += "# HELP mrtdd_trust_source_last_success 1 when a source's last trust update installed it or found it current, 0 when it was refused or not fetched.\n# TYPE mrtdd_trust_source_last_success gauge\n"
            for source in sources {
                out += "mrtdd_trust_source_last_success{source=\"\(label(source.source))\",outcome=\"\(source.outcome.rawValue)\"} \(source.outcome.succeeded ? 1 : 0)\n"
            }
        }
        out += "# HELP mrtdd_trust_reloads_total Trust store reloads, by outcome.\n# TYPE mrtdd_trust_reloads_total counter\n"
        for outcome in ["succeeded", "failed"] {
            out += "mrtdd_trust_reloads_total{outcome=\"\(outcome)\"} \(reloads[outcome, default: 0])\n"
        }
        return out
    }
}
