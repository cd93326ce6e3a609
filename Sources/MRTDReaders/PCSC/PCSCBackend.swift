public import MRTDCore
internal import CPCSCLite
import MRTDPlatform

/// Readers behind pcscd (CCID readers, and any reader with a pcsc-lite driver), through libpcsclite.
///
/// - Every blocking call runs on a dedicated thread: one monitor thread (started by the first
///   `events()`) that waits in `SCardGetStatusChange`, and one thread per open session.
/// - A session holds `SCardBeginTransaction` from `connect` to `close`.
/// - When pcscd goes away the monitor reports every reader removed and `backendUnavailable`, retries
///   with a growing delay, and reports `backendRecovered` and the readers again once pcscd is back.
///   `readers()` and `connect` establish a fresh context each time, so they work as soon as pcscd does.
// Invariant: immutable after init; what changes lives in the registry, cache and monitor, each behind a Mutex.
public final class PCSCBackend: ReaderBackend, @unchecked Sendable {
    public let kind = ReaderBackendKind.pcsc
    public let options: PCSCOptions
    private let registry = ConnectionRegistry()
    private let cache = CapabilityCache()
    private let monitor: PCSCMonitor

    public init(options: PCSCOptions = PCSCOptions()) {
        self.options = options
        let cache = cache
        monitor = PCSCMonitor(options: options) { context, name in
            Self.describe(reader: name, context: context, cache: cache, options: options)
        }
    }

    /// Sessions opened by `connect` and not yet closed (for leak checks and status pages).
    public var openConnections: Int { registry.open }

    /// Whether pcscd answered the monitor's last request (true before monitoring starts).
    public var isServiceAvailable: Bool { monitor.isServiceAvailable }

    public func readers() async throws -> [ReaderDescriptor] {
        let worker = BlockingThread(name: "pcsc-list")
        defer { worker.stop() }
        let (cache, options) = (cache, options)
        return try await worker.run { () throws -> [ReaderDescriptor] in
            let context: PCSCContext
            do throws(PCSCStatus) { context = try PCSCContext.establish() } catch {
                throw ReaderError.backendFailure(.pcsc, error.description)
            }
            defer { context.release() }
            let names: [String]
            do throws(PCSCStatus) { names = try context.listReaders() } catch {
                throw ReaderError.backendFailure(.pcsc, error.description)
            }
            var states = names.map { PCSCContext.ReaderState(name: $0, currentState: UInt(SCARD_STATE_UNAWARE)) }
            let status = states.isEmpty ? .success : context.statusChange(&states, timeout: 0)
            return states.map { state in
                var descriptor = Self.describe(reader: state.name, context: context, cache: cache, options: options)
                descriptor.cardPresent = status == .success && state.eventState & UInt(SCARD_STATE_PRESENT) != 0
                return descriptor
            }
        }
    }

    public func events() -> AsyncStream<ReaderEvent> {
        monitor.subscribe()
    }

    public func connect(reader: String) async throws -> any CardConnection {
        try await PCSCConnection.open(reader: reader, options: options, registry: registry, cache: cache)
    }

    public func shutdown() async {
        await monitor.shutdown()
    }

    /// The reader's descriptor: capabilities learnt earlier, or asked of its driver through a
    /// direct connection (no card needed), or the options' default. On a PC/SC thread.
    static func describe(
        reader name: String, context: PCSCContext, cache: CapabilityCache, options: PCSCOptions
    ) -> ReaderDescriptor {
        var capabilities: TransportCapabilities
        switch options.extendedLength {
        case .never: capabilities = .shortOnly
        case .always: capabilities = .extended
        case .auto:
            if let known = cache.capabilities(name) {
                capabilities = known
            } else if let direct = try? context.connectDirect(reader: name) {
                let probed = ReaderCapabilityProbe.probe(direct)
                direct.disconnect(reset: false)
                let (caps, source) = ReaderCapabilityProbe.decide(readerName: name, probed: probed)
                capabilities = caps
                if source != .assumed { cache.store(name, caps, source: source) }
            } else {
                capabilities = ReaderCapabilityProbe.decide(readerName: name, probed: nil).0
            }
        }
        return ReaderDescriptor(name: name, backend: .pcsc, capabilities: capabilities, cardPresent: false)
    }
}
