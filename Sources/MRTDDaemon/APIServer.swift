import Foundation
import HTTPTypes
public import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
public import ServiceLifecycle
#if canImport(Glibc)
import Glibc
#endif

/// The request context of every API handler: Hummingbird's core context plus the caller's
/// credentials from `SO_PEERCRED`.
public struct DaemonRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connecting process (nil when the socket does not carry credentials).
    public var peer: PeerCredentials?
    var bodyLimit = 16 * 1024

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = nil
    }

    public var maxUploadSize: Int { bodyLimit }
}

/// Where the API listens.
public enum ListenAddress: Sendable, Equatable {
    /// A Unix socket path (created with the configured mode and group; a stale socket is replaced).
    case unixSocket(path: String)
    /// A listening socket already bound, inherited from systemd (`LISTEN_FDS`, sd_listen_fds(3)).
    case inherited(fd: Int32)

    /// The socket systemd passed, if this process was socket-activated: fd 3 when `LISTEN_PID` is
    /// this process and `LISTEN_FDS` ≥ 1. Clears the variables, as sd_listen_fds(unset=1) does.
    public static func fromSystemd(environment: [String: String] = ProcessInfo.processInfo.environment) -> ListenAddress? {
        guard let pid = environment["LISTEN_PID"].flatMap(Int32.init), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap(Int.init), count >= 1 else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        return .inherited(fd: 3)
    }
}

/// The HTTP/1.1 server on the Unix socket. Hummingbird's `Server` cannot take an inherited socket
/// or cap connections with an answer, so this service runs Hummingbird's HTTP/1 channel on its own
/// NIO listener: socket activation, 429 beyond `maxClients`, peer credentials per request, and a
/// graceful shutdown that stops accepting, ends event streams and lets answers in flight finish.
public final class APIServer: Service, CustomStringConvertible, Sendable {
    public var description: String { "APIServer" }
    private let address: ListenAddress
    private let configuration: DaemonConfiguration
    private let responder: RouterResponder<DaemonRequestContext>
    private let logger: Logger
    private let metrics: DaemonMetrics
    private let onShutdown: @Sendable () async -> Void
    private let openConnections = Locked(0)
    private let boundPath = Locked<String?>(nil)
    private let ready = Locked<[CheckedContinuation<Void, Never>]?>([])

    init(
        address: ListenAddress, configuration: DaemonConfiguration, responder: RouterResponder<DaemonRequestContext>,
        metrics: DaemonMetrics, logger: Logger, onShutdown: @escaping @Sendable () async -> Void
    ) {
        self.address = address
        self.configuration = configuration
        self.responder = responder
        self.metrics = metrics
        self.logger = logger
        self.onShutdown = onShutdown
    }

    /// Open API connections now.
    public var connections: Int { openConnections.current }

    /// Returns once the socket accepts connections.
    public func waitUntilListening() async {
        await withCheckedContinuation { continuation in
            let now: Bool = ready.withValue { waiters in
                guard waiters != nil else { return true }
                waiters?.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func markListening() {
        let waiters = ready.withValue { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    public func run() async throws {
        let limit = configuration.maxRequestBody
        let responder = self.responder
        let logger = self.logger
        let metrics = self.metrics
        let serve: HTTPChannelHandler.Responder = { request, responseWriter, channel in
            var context = DaemonRequestContext(source: .init(channel: channel, logger: logger))
            context.bodyLimit = limit
            // Only jobs are owned and logged by uid; the other routes skip the getsockopt round trip.
            if request.uri.path.hasPrefix("/v1/reads") {
                context.peer = await Self.peerCredentials(of: channel)
            }
            let response: Response
            do {
                response = try await responder.respond(to: request, context: context)
            } catch let error as HTTPParserError {
                throw error
            } catch {
                response = APIError.response(status: .internalServerError, code: "internalError", message: "internal error")
            }
            try await responseWriter.write(response: response.head, body: response.body)
        }
        let refuse: HTTPChannelHandler.Responder = { _, responseWriter, _ in
            let error = APIError.tooManyClients
            let response = APIError.response(status: error.status, code: error.code, message: error.message)
            var head = response.head
            head.headerFields[.connection] = "close"
            try await responseWriter.write(response: head, body: response.body)
        }
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        decoder.maxHeaderFieldSize = 8 * 1024
        decoder.maxHeaderListSize = 32 * 1024
        decoder.maxHeaderFieldCount = 100
        let idle = TimeAmount.nanoseconds(Int64(configuration.idleTimeout.seconds * 1e9))
        let http = HTTP1Channel(responder: serve, configuration: .init(idleTimeout: idle, httpDecoderConfiguration: decoder))
        let refusing = HTTP1Channel(responder: refuse, configuration: .init(idleTimeout: .seconds(5), httpDecoderConfiguration: decoder))

        let group = MultiThreadedEventLoopGroup.singleton
        let quiescing = ServerQuiescingHelper(group: group)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 512)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)

        let server: NIOAsyncChannel<HTTP1Channel.Value, Never>
        switch address {
        case .unixSocket(let path):
            try prepareDirectory(for: path)
            server = try await bootstrap.bind(unixDomainSocketPath: path, cleanupExistingSocketFile: true) { channel in
                http.setup(channel: channel, logger: logger)
            }
            boundPath.withValue { $0 = path }
            applyPermissions(path)
            logger.info("listening", metadata: ["socket": "\(path)"])
        case .inherited(let fd):
            server = try await bootstrap.bind(fd) { channel in
                http.setup(channel: channel, logger: logger)
            }
            logger.info("listening on the socket passed by systemd", metadata: ["fd": "\(fd)"])
        }
        markListening()

        let maxClients = configuration.maxClients
        let open = openConnections
        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { tasks in
                do {
                    try await server.executeThenClose { inbound in
                        for try await child in inbound {
                            let admitted = open.withValue { count in
                                guard count < maxClients else { return false }
                                count += 1
                                return true
                            }
                            tasks.addTask {
                                if admitted {
                                    await http.handle(value: child, logger: logger)
                                    open.withValue { $0 -= 1 }
                                } else {
                                    metrics.recordRefusedConnection()
                                    await refusing.handle(value: child, logger: logger)
                                }
                            }
                        }
                    }
                } catch {
                    logger.error("listener failed", metadata: ["error": "\(error)"])
                }
            }
        } onGracefulShutdown: { [onShutdown] in
            Task {
                await onShutdown()
                let done = group.next().makePromise(of: Void.self)
                quiescing.initiateShutdown(promise: done)
                try? await done.futureResult.get()
            }
        }
        if let path = boundPath.current {
            unlink(path)
            logger.info("socket closed", metadata: ["socket": "\(path)"])
        }
    }

    /// `SO_PEERCRED` of a Unix socket connection (Linux `struct ucred`: pid, uid, gid).
    static func peerCredentials(of channel: any Channel) async -> PeerCredentials? {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else { return nil }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return try? await future.get()
        #else
        return nil
        #endif
    }

    private func prepareDirectory(for path: String) throws {
        let directory = (path as NSString).deletingLastPathComponent
        guard !directory.isEmpty else { return }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Mode (0660 by default) and group (`mrtd`, when that group exists) of the socket file.
    private func applyPermissions(_ path: String) {
        if chmod(path, mode_t(configuration.socketMode)) != 0 {
            logger.warning("cannot set the socket's mode", metadata: ["errno": "\(errno)"])
        }
        guard !configuration.socketGroup.isEmpty else { return }
        guard let group = getgrnam(configuration.socketGroup) else {
            logger.debug("socket group does not exist; group unchanged", metadata: ["group": "\(configuration.socketGroup)"])
            return
        }
        if chown(path, uid_t.max, group.pointee.gr_gid) != 0 {
            logger.warning("cannot set the socket's group", metadata: ["group": "\(configuration.socketGroup)", "errno": "\(errno)"])
        }
    }
}
