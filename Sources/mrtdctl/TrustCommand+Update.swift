import ArgumentParser
import FoundationEssentials
import Glibc
import MRTDCore
import MRTDPlatform
import MRTDVerification

extension Trust {
    /// `mrtdctl trust update`: fetches or takes published trust lists, verifies them, installs them
    /// atomically into the daemon's trust directory and reloads the daemon (docs/trust-update.md).
    struct Update: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Fetch, verify and install published master lists, deviation lists and CRLs.",
            discussion: """
                Each source (--from, repeatable, else the lines of --sources) is an http(s) URL or a file: a ZIP \
                holding .ml files (BSI, RDW), a bare .ml CMS master list, a deviation list, an ICAO PKD LDIF \
                (CscaMasterListData;binary or pkdMasterListContent;binary, certificateRevocationList;binary) or a \
                CRL. Every list must verify (CMS signature, signer chained to a CSCA of the current trust, or to one \
                pinned for the source with --pin or pin=sha256:HEX on its --sources line; a list anchored only in \
                itself is refused), be dated no later than a day from now, and be no older than the installed one \
                of its country (CRLs: of its issuer); otherwise nothing of that source is installed. A plain http:// \
                source needs a pin; redirects go to https only. Files go into the trust directory atomically (0644), the \
                outcome per source into its .trust-update.json, and the daemon is reloaded (systemctl reload \
                mrtdd when it runs under systemd, or SIGHUP to --daemon-pid). Exit status: 0 every source \
                installed or already current, 1 a source refused, 75 a source could not be fetched (no network: \
                nothing changed).
                """)

        @Option(name: .customLong("from"), help: ArgumentHelp("A source: an http(s) URL or a file. Repeatable.", valueName: "URL|FILE"))
        var sources: [String] = []

        @Option(name: .customLong("sources"), help: ArgumentHelp("A file listing sources, one per line (# comments), each optionally followed by pin=sha256:HEX (repeatable); used when no --from is given.", valueName: "FILE"))
        var sourcesFile = "/etc/mrtdd/trust-sources"

        @Option(name: .customLong("pin"), help: ArgumentHelp("sha256:HEX of a CSCA certificate that may anchor the --from sources' master lists besides the current trust (repeatable): how a new publisher, or a list anchored only in itself, is installed on purpose.", valueName: "sha256:HEX"))
        var pins: [String] = []

        @Option(name: .customLong("trust-dir"), help: ArgumentHelp("The daemon's trust directory (its trust-store setting).", valueName: "DIR"))
        var trustDirectory = "/etc/mrtdd/trust"

        @Flag(name: .customLong("no-default-trust"), help: "Do not count the shipped master lists as installed trust (signers and dates are then checked against --trust-dir alone).")
        var noDefaultTrust = false

        @Option(help: ArgumentHelp("The largest source accepted, in bytes (a ZIP may inflate to twice as much).", valueName: "BYTES"))
        var maxSize = TrustUpdate.Limits.standard.sourceBytes

        @Option(help: ArgumentHelp("Seconds one download may take.", valueName: "SECONDS"))
        var timeout = 120

        @Flag(name: .customLong("no-reload"), help: "Install without asking the daemon to reload.")
        var noReload = false

        @Option(name: .customLong("daemon-pid"), help: ArgumentHelp("Reload the mrtdd with this process id (SIGHUP) instead of through systemd.", valueName: "PID"))
        var daemonPID: Int32?

        func validate() throws {
            for pin in pins where TrustUpdate.Pins.parse(pin) == nil {
                throw ValidationError("--pin \(pin): expected sha256: and 64 hex digits")
            }
            guard maxSize > 0, maxSize <= 1 << 32 else { throw ValidationError("--max-size must be between 1 and 4294967296") }
            guard timeout > 0, timeout <= 3600 else { throw ValidationError("--timeout must be between 1 and 3600 seconds") }
        }

        /// A source and the CSCAs pinned for it.
        struct Source {
            var location: String
            var pins: TrustUpdate.Pins
        }

        /// The sources: --from (with --pin), else the lines of the sources file (absent: none),
        /// each `URL|FILE [pin=sha256:HEX ...]`.
        func sourceList() throws -> [Source] {
            if !sources.isEmpty {
                let pinned = TrustUpdate.Pins(Set(pins.compactMap(TrustUpdate.Pins.parse)))
                return sources.map { Source(location: $0, pins: pinned) }
            }
            guard FileManager.default.fileExists(atPath: sourcesFile) else { return [] }
            let bytes: [UInt8]
            do { bytes = try FileProvenance.read(sourcesFile, limit: 1 << 20) } catch {
                throw ValidationError("--sources \(sourcesFile): \(error.reason)")
            }
            var list: [Source] = []
            for line in String(decoding: bytes, as: UTF8.self).split(whereSeparator: \.isNewline) {
                let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
                guard let location = fields.first, !location.hasPrefix("#") else { continue }
                var pinned: Set<String> = []
                for field in fields.dropFirst() {
                    guard field.hasPrefix("pin="), let pin = TrustUpdate.Pins.parse(String(field.dropFirst(4))) else {
                        throw ValidationError("--sources \(sourcesFile): \(TerminalText.escaped(field)): expected pin=sha256:HEX (64 hex digits)")
                    }
                    pinned.insert(pin)
                }
                list.append(Source(location: location, pins: TrustUpdate.Pins(pinned)))
            }
            return list
        }

        func run() async throws {
            let list = try sourceList()
            guard !list.isEmpty else {
                print("trust update: no sources (give --from URL|FILE, or list them in \(sourcesFile)); nothing to do")
                return
            }
            var info = stat()
            if lstat(trustDirectory, &info) == 0, info.st_mode & S_IFMT != S_IFDIR {
                throw ValidationError("--trust-dir \(trustDirectory): not a directory (a symbolic link is not followed)")
            }
            let installer = TrustInstaller(directory: trustDirectory)
            var state = TrustUpdateState.load(directory: trustDirectory)
            let limits = TrustUpdate.Limits(sourceBytes: maxSize, inflatedBytes: maxSize * 2)
            var installedAny = false
            var refused = 0
            var unavailable = 0
            for entry in list {
                let source = entry.location
                let shown = TrustFetcher.redacted(source)
                let now = Date()
                // The outcome is set below on every path.
                var record = state.sources.first { $0.source == shown } ?? .init(source: shown, lastAttempt: "", outcome: .unavailable)
                record.lastAttempt = UTCStamp.string(now)
                do throws(TrustUpdateError) {
                    if TrustFetcher.isPlainHTTP(source) && entry.pins.isEmpty {
                        throw TrustUpdateError(.trustUpdateInsecureSource,
                                               "\(shown): plain http: anyone on the path could answer it; use https, or pin the CSCA that anchors its lists (pin=sha256:HEX)")
                    }
                    let bytes = try await acquire(source, limits: limits)
                    let items = try TrustUpdate.items(in: bytes, name: PathString.lastComponent(shown), limits: limits)
                    // The trust in use now: what the daemon loads (shipped lists unless turned off, then the trust directory).
                    var paths = noDefaultTrust ? [] : DefaultTrust.locate().map { [$0] } ?? []
                    if FileManager.default.fileExists(atPath: trustDirectory) { paths.append(trustDirectory) }
                    let store = TrustStore.load(paths: paths, at: now)
                    let planned = try TrustUpdate.plan(items, store: store, installedDirectory: trustDirectory, pins: entry.pins, at: now)
                    let changed = planned.filter { !$0.unchanged }
                    if !changed.isEmpty {
                        do { try installer.install(changed.map { ($0.relativePath, $0.bytes) }) } catch {
                            throw TrustUpdateError(.trustUpdateInstallFailed, error.description)
                        }
                        installedAny = true
                    }
                    record.outcome = changed.isEmpty ? .unchanged : .installed
                    record.error = nil
                    record.lastSuccess = record.lastAttempt
                    if let newest = planned.map(\.issued).max() { record.issued = UTCStamp.string(newest) }
                    record.files = planned.map(\.relativePath)
                    for item in planned {
                        print(TerminalText.escaped("\(shown): \(item.unchanged ? "already installed" : "installed") \(item.relativePath) (\(item.kind.rawValue) of \(item.country), issued \(UTCStamp.string(item.issued)), from \(item.origin))"))
                    }
                } catch {
                    let fetchFailure = error.errorCode == .trustUpdateFetchFailed
                    if fetchFailure { unavailable += 1 } else { refused += 1 }
                    record.outcome = fetchFailure ? .unavailable : .refused
                    record.error = error.description
                    StandardError.write(TerminalText.escaped("\(shown): \(fetchFailure ? "not fetched" : "REFUSED"), nothing installed from it: \(error)") + "\n")
                }
                if let index = state.sources.firstIndex(where: { $0.source == shown }) { state.sources[index] = record } else { state.sources.append(record) }
            }
            do {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                try installer.install([(TrustUpdateState.fileName, Array(try encoder.encode(state)))])
            } catch {
                StandardError.write("trust update: the state file was not written: \(error)\n")
            }
            // Also after a run that installed nothing: the reload reads the state file for health and metrics.
            await reload(installed: installedAny)
            if unavailable > 0 && refused == 0 {
                StandardError.write("trust update: \(unavailable) source\(unavailable == 1 ? "" : "s") could not be fetched or read (no network?); nothing of \(unavailable == 1 ? "it" : "them") changed\n")
            }
            if refused > 0 { throw ExitCode(1) }
            if unavailable > 0 { throw ExitCode(75) }
        }

        /// The bytes of a URL or a file, bounded.
        func acquire(_ source: String, limits: TrustUpdate.Limits) async throws(TrustUpdateError) -> [UInt8] {
            if TrustFetcher.isURL(source) {
                return try await TrustFetcher.fetch(source, options: .init(maxBytes: limits.sourceBytes, timeoutSeconds: timeout))
            }
            guard FileManager.default.fileExists(atPath: source) else {
                throw TrustUpdateError(.trustUpdateFetchFailed, "\(source): no such file or directory")
            }
            var info = stat()
            if stat(source, &info) == 0, Int(info.st_size) > limits.sourceBytes {
                throw TrustUpdateError(.trustUpdateTooLarge, "\(source): \(info.st_size) bytes, more than the limit of \(limits.sourceBytes)")
            }
            do { return try FileProvenance.read(source, limit: limits.sourceBytes) } catch {
                throw TrustUpdateError(.trustUpdateFetchFailed, "\(source): \(error.reason)")
            }
        }

        /// Asks the daemon to reload its trust: SIGHUP to --daemon-pid (an mrtdd), else `systemctl
        /// reload mrtdd.service` when systemd runs it; otherwise says how.
        func reload(installed: Bool) async {
            if noReload {
                if installed { print("trust update: installed; the daemon was not asked to reload (--no-reload)") }
                return
            }
            if let pid = daemonPID {
                let comm = Self.processName(pid)
                guard comm == "mrtdd" else {
                    StandardError.write("trust update: process \(pid) is not mrtdd (\(comm ?? "no such process")); not signalled\n")
                    return
                }
                if kill(pid, SIGHUP) == 0 { print("trust update: mrtdd (pid \(pid)) asked to reload (SIGHUP)") } else {
                    StandardError.write("trust update: SIGHUP to \(pid): \(String(cString: strerror(errno)))\n")
                }
                return
            }
            let systemctl = ["/usr/bin/systemctl", "/bin/systemctl"].first { FileManager.default.isExecutableFile(atPath: $0) }
            guard let systemctl, FileManager.default.fileExists(atPath: "/run/systemd/system"),
                  await run(systemctl, ["is-active", "--quiet", "mrtdd.service"]) == 0 else {
                print("trust update: mrtdd is not running under systemd here; reload it (systemctl reload mrtdd, or SIGHUP)\(installed ? " to use what was installed" : "")")
                return
            }
            let status = await run(systemctl, ["reload", "mrtdd.service"])
            if status == 0 { print("trust update: mrtdd reloaded (systemctl reload mrtdd)") } else {
                StandardError.write("trust update: systemctl reload mrtdd failed (status \(status))\n")
            }
        }

        /// `/proc/PID/comm` (the daemon runs as user mrtdd: its proc files are not ours, and not trust material).
        static func processName(_ pid: Int32) -> String? {
            let fd = open("/proc/\(pid)/comm", O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: 64)
            let count = read(fd, &buffer, buffer.count)
            guard count > 0 else { return nil }
            return String(decoding: buffer.prefix(count), as: UTF8.self).trimmingWhitespace()
        }

        private func run(_ path: String, _ arguments: [String]) async -> Int32 {
            guard let pid = try? ChildProcess.spawn(path, arguments: arguments, environment: ["PATH": "/usr/bin:/bin"]) else { return -1 }
            return await ChildProcess.wait(pid, timeout: .seconds(60))
        }
    }
}

/// RFC 3339 UTC seconds (`2026-11-28T03:20:00Z`).
enum UTCStamp {
    static func string(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle())
    }
}
