import FoundationEssentials
public import Logging
public import MRTDVerification
import MRTDReaders
import MRTDProtocol
public import MRTDCore
import MRTDPlatform
import MRTDClient

/// Everything `mrtdd` is configured with: the configuration file, then command-line flags on top.
///
/// The file format is deliberately tiny: one `key = value` per line, `#` starts a comment, blank
/// lines are ignored, a key given twice keeps the last value (`trust-store` accumulates). Durations
/// take an optional unit: `90`, `90s`, `5m`, `1h`. See `docs/configuration.md`.
public struct DaemonConfiguration: Sendable, Equatable {
    /// Where the daemon listens, unless systemd passes a socket (`LISTEN_FDS`).
    public var socketPath = DaemonClient.defaultSocketPath
    /// The group owning the socket (when the group exists); mode is `socketMode`.
    public var socketGroup = "mrtd"
    public var socketMode: UInt16 = 0o660
    /// Trust store locations (CSCA certificates, master lists, CRLs), read by passive authentication.
    public var trustStorePaths: [String] = ["/etc/mrtdd/trust"]
    /// The most a trust store load reads: per file (`trust-max-file-size`) and in all
    /// (`trust-max-size`), in bytes. Beyond either the file is rejected, and a reload keeps the
    /// running store.
    public var trustLimits = TrustStore.LoadLimits.standard
    /// Whether the shipped CSCA master lists (DE, NL) are trusted as well (`default-trust`).
    public var defaultTrust = true
    /// Where the shipped master lists are (`default-trust-path`); nil: found as ``DefaultTrust/locate(environment:executable:)`` says.
    public var defaultTrustPath: String?
    /// How literally passive authentication reads the specifications (`verification-profile`):
    /// `strict` (the default) fails the SOD and DSC deviations BSI TR-03105-5.1 fails,
    /// `tolerate-sod-deviations` verifies them and warns (docs/verification.md, "Verification profiles").
    public var verificationProfile = VerificationProfile.strict
    public var accessPolicy = AccessPolicy.auto
    /// How long a job may wait for a card and read it, unless the request asks for less.
    public var readTimeout: Duration = .seconds(60)
    /// How long results (and faces) stay fetchable after a read ends.
    public var resultRetention: Duration = .seconds(300)
    /// Which reader libraries to use.
    public var backends: [ReaderBackendKind] = [.pcsc, .libnfc]
    public var logLevel = Logger.Level.info
    /// Jobs waiting or reading at once; more get 429.
    public var maxActiveJobs = 32
    /// Finished results kept at once. Beyond this the oldest result of the uid holding the most
    /// goes early, so one user's burst of jobs pushes out its own results, not another user's.
    public var maxRetainedResults = 2000
    /// Finished results one uid keeps at once (root included); beyond, that uid's oldest goes
    /// early. nil: `maxRetainedResults`.
    public var maxRetainedResultsPerUser: Int?
    /// Open connections; more get 429.
    public var maxClients = 256
    /// Open event streams; more get 429.
    public var maxEventSubscribers = 64
    /// Per-uid quotas (root is bound by the global limits only): open connections, jobs waiting or
    /// reading, open event streams. One user cannot hold every slot; beyond its quota it gets 429.
    public var maxClientsPerUser = 64
    public var maxActiveJobsPerUser = 8
    public var maxEventSubscribersPerUser = 8
    /// Largest request body, in bytes.
    public var maxRequestBody = 16 * 1024
    /// Idle connections are closed after this (slow or stuck clients).
    public var idleTimeout: Duration = .seconds(30)
    /// The JPEG 2000 decoder used for `?format=png`, run in a child process with resource limits.
    public var faceDecoder = "/usr/bin/opj_decompress"
    /// When set, the transcript of every chip session is written into this directory
    /// (docs/transcripts.md). Off by default: transcripts hold the access key (personal data).
    public var recordDirectory: String?
    /// EAC terminal credentials (`NAME.cvcert` with `NAME.pkcs8` / `NAME.pkcs11`, docs/authentication.md):
    /// with them, reads asking for DG3 / DG4 run Terminal Authentication. Unset: those groups stay skipped.
    public var terminalDirectory: String?
    /// MRZ scanners (docs/kiosk.md): `mrz-source = KIND:DEVICE[,option=value...]` lines and
    /// `[mrz-source]` sections, in order.
    public var mrzSources: [MRZSourceConfiguration] = []
    /// How long a scanned MRZ waits for its card (`mrz-window`; either order: a card already present is read at once).
    public var mrzWindow: Duration = .seconds(30)
    /// The uid owning the reads scanners start (`mrz-owner`); nil: the daemon's own uid.
    public var mrzOwner: UInt32?

    public init() {}

    /// The default configuration file.
    public static let defaultPath = "/etc/mrtdd/mrtdd.conf"

    /// Applies the `key = value` lines of a configuration file.
    public mutating func apply(file text: String, name: String = "mrtdd.conf") throws(ConfigurationError) {
        var trust: [String]?
        /// The `[mrz-source]` section being read: its options and where it started.
        var section: (options: [(String, String)], line: Int)?
        func endSection() throws(ConfigurationError) {
            guard let open = section else { return }
            section = nil
            try mrzSources.append(Self.source(options: open.options, file: name, line: open.line))
        }
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first
                .map { $0.trimmingSpaces() } ?? ""
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                try endSection()
                guard line == "[mrz-source]" else {
                    throw .syntax(file: name, line: index + 1, "unknown section \(line) (the one section is [mrz-source])")
                }
                section = ([], index + 1)
                continue
            }
            guard let equals = line.firstIndex(of: "=") else {
                throw .syntax(file: name, line: index + 1, "expected 'key = value'")
            }
            let key = line[..<equals].trimmingSpaces()
            var value = line[line.index(after: equals)...].trimmingSpaces()
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            if section != nil {
                section!.options.append((key, value))
                continue
            }
            if key == "trust-store" {
                trust = (trust ?? []) + Self.list(value)
                continue
            }
            do {
                try set(key, value)
            } catch {
                throw .syntax(file: name, line: index + 1, error.description)
            }
        }
        try endSection()
        if let trust { trustStorePaths = trust }
    }

    /// A `[mrz-source]` section: `kind` and `device` required, the other options as on the command line.
    static func source(options: [(String, String)], file: String, line: Int) throws(ConfigurationError) -> MRZSourceConfiguration {
        guard let kindName = options.last(where: { $0.0 == "kind" })?.1, let kind = MRZSourceConfiguration.Kind(rawValue: kindName),
              let device = options.last(where: { $0.0 == "device" })?.1, device.hasPrefix("/") else {
            throw .syntax(file: file, line: line, "[mrz-source] needs kind (serial, hidraw, evdev) and device (an absolute path)")
        }
        var source = MRZSourceConfiguration(kind: kind, device: device)
        for (option, value) in options where option != "kind" && option != "device" {
            do {
                try source.set(option, value)
            } catch {
                throw .syntax(file: file, line: line, error.description)
            }
        }
        return source
    }

    /// Sets one setting by its file key (flags use the same names).
    public mutating func set(_ key: String, _ value: String) throws(ConfigurationError) {
        switch key {
        case "socket": socketPath = try Self.nonEmpty(key, value)
        case "socket-group": socketGroup = value
        case "socket-mode":
            guard let mode = UInt16(value, radix: 8), mode <= 0o777 else { throw .invalidValue(key, value) }
            socketMode = mode
        case "trust-store": trustStorePaths = Self.list(value)
        case "default-trust": defaultTrust = try Self.boolean(key, value)
        case "default-trust-path": defaultTrustPath = value.isEmpty ? nil : value
        case "verification-profile": verificationProfile = try Self.choice(key, value)
        case "access-policy": accessPolicy = try Self.choice(key, value)
        case "read-timeout": readTimeout = try Self.duration(key, value)
        case "result-retention": resultRetention = try Self.duration(key, value)
        case "idle-timeout": idleTimeout = try Self.duration(key, value)
        case "backends":
            var kinds: [ReaderBackendKind] = []
            for name in Self.list(value) {
                kinds.append(try Self.choice(key, name))
            }
            backends = kinds
        case "log-level": logLevel = try Self.choice(key, value)
        case "max-jobs": maxActiveJobs = try Self.count(key, value, max: 10_000)
        case "max-results": maxRetainedResults = try Self.count(key, value, max: 1_000_000)
        case "trust-max-file-size": trustLimits.fileBytes = try Self.count(key, value, max: 1 << 32)
        case "trust-max-size": trustLimits.totalBytes = try Self.count(key, value, max: 1 << 34)
        case "max-results-per-user": maxRetainedResultsPerUser = try Self.count(key, value, max: 1_000_000)
        case "max-clients": maxClients = try Self.count(key, value, max: 1_000_000)
        case "max-event-streams": maxEventSubscribers = try Self.count(key, value, max: 100_000)
        case "max-clients-per-user": maxClientsPerUser = try Self.count(key, value, max: 1_000_000)
        case "max-jobs-per-user": maxActiveJobsPerUser = try Self.count(key, value, max: 10_000)
        case "max-event-streams-per-user": maxEventSubscribersPerUser = try Self.count(key, value, max: 100_000)
        case "max-request-body": maxRequestBody = try Self.count(key, value, max: 16 * 1024 * 1024)
        case "face-decoder": faceDecoder = try Self.nonEmpty(key, value)
        case "record-directory":
            // Empty turns recording off; a relative path would depend on the working directory.
            guard value.isEmpty || value.hasPrefix("/") else { throw .invalidValue(key, value) }
            recordDirectory = value.isEmpty ? nil : value
        case "terminal-directory":
            guard value.isEmpty || value.hasPrefix("/") else { throw .invalidValue(key, value) }
            terminalDirectory = value.isEmpty ? nil : value
        case "mrz-source": mrzSources.append(try MRZSourceConfiguration(parsing: value))
        case "mrz-window": mrzWindow = try Self.duration(key, value)
        case "mrz-owner":
            guard let uid = UInt32(value) else { throw .invalidValue(key, value) }
            mrzOwner = uid
        case _ where Self.retiredKeys[key] != nil:
            if !retiredSettings.contains(key) { retiredSettings.append(key) }
        default: throw .unknownKey(key)
        }
    }

    /// Settings of earlier versions whose mechanism is gone: accepted and ignored, so that an edited
    /// configuration file does not stop the daemon after an upgrade; the start log warns of each.
    public static let retiredKeys = [
        "release-code-pages": "the release of code mappings was removed (it bought an idle-RSS figure, not memory an operator gets back)",
    ]

    /// The retired settings the configuration named (``retiredKeys``), in order.
    public var retiredSettings: [String] = []

    /// The shipped master lists' directory, when `default-trust` is on and they are found.
    public func resolvedDefaultTrustPath() -> String? {
        guard defaultTrust else { return nil }
        return defaultTrustPath ?? DefaultTrust.locate()
    }

    /// What the trust store loads: the default master lists (unless turned off), then `trust-store`.
    /// A configured trust-store path that does not exist stays in the list (the load reports it);
    /// the default `/etc/mrtdd/trust` is skipped when absent.
    public func effectiveTrustPaths() -> [String] {
        var paths = resolvedDefaultTrustPath().map { [$0] } ?? []
        for path in trustStorePaths where path != "/etc/mrtdd/trust" || FileManager.default.fileExists(atPath: path) {
            paths.append(path)
        }
        return paths
    }

    /// One of the values an enumeration names (`access-policy = pace`, `log-level = debug`, …).
    static func choice<Value: RawRepresentable>(_ key: String, _ value: String) throws(ConfigurationError) -> Value
    where Value.RawValue == String {
        guard let choice = Value(rawValue: value) else { throw .invalidValue(key, value) }
        return choice
    }

    static func boolean(_ key: String, _ value: String) throws(ConfigurationError) -> Bool {
        switch value.lowercased() {
        case "yes", "true", "on", "1": true
        case "no", "false", "off", "0": false
        default: throw .invalidValue(key, value)
        }
    }

    static func list(_ value: String) -> [String] {
        value.split(separator: ",").map { $0.trimmingSpaces() }.filter { !$0.isEmpty }
    }

    static func nonEmpty(_ key: String, _ value: String) throws(ConfigurationError) -> String {
        guard !value.isEmpty else { throw .invalidValue(key, value) }
        return value
    }

    /// A positive whole number up to `max` (range-checked here, so no later arithmetic can overflow).
    static func count(_ key: String, _ value: String, max: Int) throws(ConfigurationError) -> Int {
        guard let n = Int(value), n > 0, n <= max else { throw .invalidValue(key, value) }
        return n
    }

    /// `90`, `90s`, `1500ms`, `5m`, `1h`.
    static func duration(_ key: String, _ value: String) throws(ConfigurationError) -> Duration {
        let units: [(String, Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600)]
        var number = value
        var scale = 1.0
        for (suffix, factor) in units where value.hasSuffix(suffix) {
            number = String(value.dropLast(suffix.count))
            scale = factor
            break
        }
        guard let n = Double(number.trimmingSpaces()), n.isFinite, n * scale >= 0.001, n * scale <= 86_400 * 30 else {
            throw .invalidValue(key, value)
        }
        return .milliseconds(Int64((n * scale * 1000).rounded()))
    }
}

/// A configuration file or flag that cannot be used.
public enum ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownKey(String)
    case invalidValue(String, String)
    case syntax(file: String, line: Int, String)
    case unreadable(String)

    public var description: String {
        switch self {
        case .unknownKey(let key): return "unknown setting '\(key)'"
        case .invalidValue(let key, let value): return "invalid value '\(value)' for '\(key)'"
        case .syntax(let file, let line, let why): return "\(file):\(line): \(why)"
        case .unreadable(let path): return "cannot read configuration file \(path)"
        }
    }
}

extension Duration {
    /// Seconds as a `Double` (for JSON and metrics).
    var seconds: Double {
        let (s, atto) = components
        return Double(s) + Double(atto) / 1e18
    }
}
