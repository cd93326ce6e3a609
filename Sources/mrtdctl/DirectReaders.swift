import ArgumentParser
import FoundationEssentials
import MRTDCore
import MRTDProtocol
import MRTDReaders

/// `mrtdctl readers`: the readers attached, with what each carries.
struct Readers: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List the attached readers.",
        discussion: """
            With --direct the readers are asked for in-process (PC/SC through pcscd, libnfc). Without it, \
            the list comes from the mrtdd daemon (--socket).
            """)

    @Flag(help: "Ask the reader libraries in-process instead of the daemon.")
    var direct = false

    @Flag(help: "Print the list as JSON.")
    var json = false

    @OptionGroup(title: "Through the daemon (without --direct)")
    var daemon: DaemonOptions

    /// The JSON shape: every reader, and the backends that could not be asked.
    struct Listing: Codable {
        struct BackendError: Codable {
            var backend: ReaderBackendKind
            var code: String
            var message: String
        }
        var readers: [ReaderDescriptor]
        var errors: [BackendError]
    }

    func run() async throws {
        guard direct else { return try await DaemonReaders.run(daemon: daemon, json: json) }
        var listing = Listing(readers: [], errors: [])
        for backend in DirectBackends.all() {
            do {
                listing.readers += try await backend.readers()
            } catch {
                let failure = (error as? ReaderError) ?? .backendFailure(backend.kind, "\(error)")
                listing.errors.append(.init(backend: backend.kind, code: failure.code, message: failure.description))
            }
            await backend.shutdown()
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(listing), as: UTF8.self))
        } else {
            print(Self.table(listing))
        }
        // Nothing could be asked at all: a failure (pcscd not running, for one).
        if listing.readers.isEmpty && !listing.errors.isEmpty { throw ExitStatus.readFailed }
    }

    static func table(_ listing: Listing) -> String {
        var lines: [String] = []
        if listing.readers.isEmpty {
            lines.append("No readers attached.")
        } else {
            let width = max(6, listing.readers.map(\.name.count).max() ?? 0)
            func pad(_ s: String, _ n: Int) -> String { s + String(repeating: " ", count: max(0, n - s.count)) }
            lines.append(pad("READER", width) + "  BACKEND  CARD  EXTENDED  MAX COMMAND")
            for r in listing.readers {
                lines.append(pad(r.name, width) + "  " + pad(r.backend.rawValue, 7) + "  " + pad(r.cardPresent ? "yes" : "no", 4)
                    + "  " + pad(r.capabilities.extendedLength ? "yes" : "no", 8) + "  \(r.capabilities.maxCommandLength)")
            }
        }
        for e in listing.errors {
            lines.append("\(e.backend.rawValue): \(e.message) [\(e.code)]")
        }
        return lines.joined(separator: "\n")
    }
}

/// `read --direct`: read in-process from a reader attached to this machine.
struct DirectReadOptions: ParsableArguments {
    @Flag(help: "Read in-process from an attached reader (PC/SC) instead of through the daemon.")
    var direct = false

    @Option(help: "The reader to use: with --direct its full name or a unique part of it (default: the first reader with a card); through the daemon its name (default: any reader).")
    var reader: String?

    @Option(help: "With --direct: wait up to this many seconds for a card to be presented.")
    var wait: Double?

    func validate(simulate: Bool, hasAccessKey: Bool) throws {
        if direct && simulate { throw ValidationError("give either --direct or --simulate, not both") }
        if simulate && reader != nil { throw ValidationError("--reader does not apply to --simulate") }
        if !direct && wait != nil { throw ValidationError("--wait needs --direct (through the daemon use --timeout)") }
        if let wait, !(wait > 0 && wait <= 86_400) { throw ValidationError("--wait must be between 0 and 86400 seconds") }
        if direct && !hasAccessKey { throw ValidationError("--direct needs the document's access key (--mrz, --mrz-key, --can or --access-file)") }
    }
}

/// Which reader `read --direct` uses.
enum DirectReaderSelection {
    static func locate(
        in backends: [any ReaderBackend], reader: String?, wait: Duration?
    ) async throws -> (any ReaderBackend, String) {
        if let wait { return try await waitForCard(in: backends, reader: reader, wait: wait) }
        var all: [(any ReaderBackend, ReaderDescriptor)] = []
        var failure: ReaderError?
        for backend in backends {
            do {
                all += try await backend.readers().map { (backend, $0) }
            } catch {
                failure = (error as? ReaderError) ?? .backendFailure(backend.kind, "\(error)")
            }
        }
        if all.isEmpty { throw failure ?? ReaderError.noReaders }
        let candidates = try match(reader, in: all.map(\.1))
        guard let chosen = candidates.first(where: \.cardPresent) else {
            throw ReaderError.noCard(reader: candidates.first?.name ?? "")
        }
        guard let backend = all.first(where: { $0.1.name == chosen.name })?.0 else { throw ReaderError.noReaders }
        return (backend, chosen.name)
    }

    /// The readers `name` designates: an exact name, else the one reader whose name contains it
    /// (case-insensitive); every reader when `name` is nil.
    static func match(_ name: String?, in readers: [ReaderDescriptor]) throws -> [ReaderDescriptor] {
        guard let name else { return readers }
        if let exact = readers.first(where: { $0.name == name }) { return [exact] }
        let partial = readers.filter { $0.name.lowercased().contains(name.lowercased()) }
        guard partial.count == 1 else { throw ReaderError.readerNotFound(name) }
        return partial
    }

    private static func waitForCard(
        in backends: [any ReaderBackend], reader: String?, wait: Duration
    ) async throws -> (any ReaderBackend, String) {
        // A partial name is resolved against what is attached now; an exact name may be a reader
        // not plugged in yet.
        var exact = reader
        if let reader {
            var attached: [ReaderDescriptor] = []
            for backend in backends { attached += (try? await backend.readers()) ?? [] }
            if let found = try? match(reader, in: attached).first { exact = found.name }
        }
        let target = exact
        return try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, backend) in backends.enumerated() {
                group.addTask { (index, try await backend.waitForCard(reader: target, timeout: wait)) }
            }
            defer { group.cancelAll() }
            var lastError: any Error = ReaderError.timeout
            while let next = await group.nextResult() {
                switch next {
                case .success(let (index, name)): return (backends[index], name)
                case .failure(let error): lastError = error
                }
            }
            throw lastError
        }
    }
}
