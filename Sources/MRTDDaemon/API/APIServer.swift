public import FoundationEssentials
import HTTPTypes
public import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import NIOExtras
import NIOHTTP1
import NIOPosix
public import ServiceLifecycle
import Synchronization
#if canImport(Glibc)
import Glibc
import CDispatch
import MRTDCore
#endif
import MRTDPlatform

/// The request context of every API handler: Hummingbird's core context plus the caller's
/// credentials from `SO_PEERCRED`.
public struct DaemonRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// The connecting process, taken once when the connection was accepted. The server closes a
    /// connection whose credentials cannot be read, so requests over the socket always carry them.
    public var peer: PeerCredentials?
    var bodyLimit = 16 * 1024
    /// The connection (the event stream closes it when its subscriber falls behind).
    var channel: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = nil
        channel = source.channel
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

/// Why the server cannot start.
public enum APIServerError: Error, CustomStringConvertible {
    /// A live daemon answers on the socket path: starting would steal its socket.
    case socketInUse(String)
    /// Something that is not a socket sits at the socket path.
    case notASocket(String)

    public var description: String {
        switch self {
        case .socketInUse(let path): return "another mrtdd is already listening on \(path); not starting"
        case .notASocket(let path): return "\(path) exists and is not a socket; not replacing it"
        }
    }
}

/// The HTTP/1.1 server on the Unix socket. Hummingbird's `Server` cannot take an inherited socket
/// or cap connections with an answer, so this service runs Hummingbird's HTTP/1 channel on its own
/// NIO listener: socket activation, per-connection peer credentials (`SO_PEERCRED`, taken once at
/// accept and carried with every request), 429 at once beyond `maxClients` or a uid's quota, a
/// connection cap below the file-descriptor limit, and a graceful shutdown that stops accepting,
/// ends event streams and lets answers in flight finish.
public final class APIServer: Service, CustomStringConvertible, Sendable {
    public var description: String { "APIServer" }
    private let address: ListenAddress
    private let configuration: DaemonConfiguration
    private let responder: RouterResponder<DaemonRequestContext>
    private let logger: Logger
    private let metrics: DaemonMetrics
    private let onShutdown: @Sendable () async -> Void
    private let admission: Mutex<UIDQuota>
    /// Each accepted connection's credentials and whether it was admitted, by channel.
    private let accepted = Mutex<[ObjectIdentifier: (peer: PeerCredentials?, admitted: Bool)]>([:])
    private let bound = Mutex<(path: String, identity: [Int])?>(nil)
    private let ready = Mutex<[CheckedContinuation<Void, Never>]?>([])
    /// Refused connections not closed yet.
    private let lingering = Mutex(0)
    /// Descriptors API connections may use, admitted and refused ones together.
    private let descriptorBudget: Int
    /// File descriptors kept free for everything but API connections (readers, pcscd, trust store,
    /// transcripts, the face decoder's pipes).
    static let reservedDescriptors = 64
    /// Connections the kernel queues before they are accepted.
    static let backlog: Int32 = 512

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
        let descriptors = Self.descriptorLimit()
        descriptorBudget = descriptors == .max ? .max : descriptors - Self.reservedDescriptors
        admission = Mutex(UIDQuota(
            limit: Self.connectionLimit(configured: configuration.maxClients, descriptors: descriptors),
            perUser: configuration.maxClientsPerUser))
    }

    /// Open API connections now (admitted ones).
    public var connections: Int { admission.withLock { $0.total } }

    /// How many connections are admitted at once: `maxClients`, and never so many that the process
    /// runs out of file descriptors (`RLIMIT_NOFILE`, less `reservedDescriptors`).
    public var connectionLimit: Int { admission.withLock { $0.limit } }

    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return .max }
        return Int(clamping: limit.rlim_cur)
    }

    static func connectionLimit(configured: Int, descriptors: Int) -> Int {
        max(1, min(configured, descriptors == .max ? configured : descriptors - reservedDescriptors - 16))
    }

    /// Returns once the socket accepts connections.
    public func waitUntilListening() async {
        await withCheckedContinuation { continuation in
            let now: Bool = ready.withLock { waiters in
                guard waiters != nil else { return true }
                waiters?.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    private func markListening() {
        let waiters = ready.withLock { waiters in
            defer { waiters = nil }
            return waiters ?? []
        }
        for waiter in waiters { waiter.resume() }
    }

    /// The raw answer to a refused connection (written by `RefusingHandler`, before the HTTP codec).
    static func refusal(_ error: APIError) -> ByteBuffer {
        let body = String(decoding: error.body(instance: nil), as: UTF8.self)
        return ByteBuffer(string: "HTTP/1.1 \(error.status.code) \(error.status.reasonPhrase)\r\ncontent-type: \(APIError.problemMediaType)\r\n"
            + "retry-after: 1\r\ncontent-length: \(body.utf8.count)\r\nconnection: close\r\n\r\n\(body)")
    }

    /// Decides, when a connection is accepted, whether it is served: takes its credentials, then a
    /// slot of the global limit and of its uid's quota. A refused connection is answered 429 and
    /// closed by a handler placed before the HTTP codec (`RefusingHandler`); one without
    /// credentials is closed unanswered.
    private func admit(_ channel: any Channel) -> EventLoopFuture<Void> {
        Self.peerCredentialsFuture(of: channel).map { peer in
            guard let peer else {
                self.logger.warning("connection without peer credentials closed")
                self.accepted.withLock { $0[ObjectIdentifier(channel)] = (nil, false) }
                channel.close(promise: nil)
                return
            }
            let refusal = self.admission.withLock { $0.take(peer.uid) }
            self.accepted.withLock { $0[ObjectIdentifier(channel)] = (peer, refusal == nil) }
            guard let refusal else { return }
            self.metrics.recordRefusedConnection()
            let error: APIError = refusal == .global ? .tooManyClients : .tooManyClientsForUser
            // Refusals wait for the client's request for a second, unless descriptors run short.
            let lingering = self.lingering.withLock { count in
                count += 1
                return count
            }
            let open = self.admission.withLock { $0.total } + lingering
            let grace: TimeAmount = open >= self.descriptorBudget ? .zero : .seconds(1)
            channel.closeFuture.whenComplete { _ in self.lingering.withLock { $0 -= 1 } }
            try? channel.pipeline.syncOperations.addHandler(RefusingHandler(answer: Self.refusal(error), grace: grace), position: .first)
        }
    }

    public func run() async throws {
        let limit = configuration.maxRequestBody
        let responder = self.responder
        let logger = self.logger
        let serve: HTTPChannelHandler.Responder = { request, responseWriter, channel in
            var context = DaemonRequestContext(source: .init(channel: channel, logger: logger))
            context.bodyLimit = limit
            // Every request carries the credentials its connection was accepted with; a connection
            // without them is never served.
            guard let peer = self.accepted.withLock({ $0[ObjectIdentifier(channel)]?.peer }) else {
                throw ChannelError.ioOnClosedChannel
            }
            context.peer = peer
            let response: Response
            if !APIRequestDecoding.isCanonicalPath(request.uri.path) {
                // The path is not echoed back: no `instance`.
                response = APIError.nonCanonicalPath.response(instance: nil)
            } else {
                do {
                    response = try await responder.respond(to: request, context: context)
                } catch let error as HTTPParserError {
                    throw error
                } catch {
                    response = APIError.internalError.response(instance: request.uri.path)
                }
            }
            try await responseWriter.write(response: response.head, body: response.body)
        }
        var decoder = HTTP1Channel.Configuration.DecoderConfiguration()
        decoder.maxHeaderFieldSize = 8 * 1024
        decoder.maxHeaderListSize = 32 * 1024
        decoder.maxHeaderFieldCount = 100
        let idle = TimeAmount.nanoseconds(Int64(configuration.idleTimeout.seconds * 1e9))
        let http = HTTP1Channel(responder: serve, configuration: .init(idleTimeout: idle, httpDecoderConfiguration: decoder))

        let group = MultiThreadedEventLoopGroup.singleton
        let quiescing = ServerQuiescingHelper(group: group)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: Self.backlog)
            .serverChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(quiescing.makeServerChannelHandler(channel: channel))
                }
            }
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
        let setup: @Sendable (any Channel) -> EventLoopFuture<HTTP1Channel.Value> = { [self] channel in
            admit(channel).flatMap { http.setup(channel: channel, logger: logger) }
        }

        let server: NIOAsyncChannel<HTTP1Channel.Value, Never>
        switch address {
        case .unixSocket(let path):
            try prepareDirectory(for: path)
            try Self.claim(path, logger: logger)
            // Bound here, not by NIO: NIO unlinks the path of a socket it bound when it closes it,
            // whoever's socket the path names by then.
            let fd = try Self.listeningSocket(at: path)
            server = try await bootstrap.bind(fd, childChannelInitializer: setup)
            // NIO listens again on a socket it is given, with its default backlog (128): restore ours.
            listen(fd, Self.backlog)
            applyPermissions(path)
            bound.withLock { $0 = Self.identity(of: path).map { (path, $0) } }
            logger.info("listening", metadata: ["socket": "\(path)", "maxConnections": "\(connectionLimit)"])
        case .inherited(let fd):
            // systemd owns this socket (and its file): it is never unlinked here.
            server = try await bootstrap.bind(fd, childChannelInitializer: setup)
            listen(fd, Self.backlog)
            logger.info("listening on the socket passed by systemd", metadata: ["fd": "\(fd)", "maxConnections": "\(connectionLimit)"])
        }
        markListening()

        await withGracefulShutdownHandler {
            await withDiscardingTaskGroup { tasks in
                do {
                    try await server.executeThenClose { inbound in
                        for try await child in inbound {
                            let key = ObjectIdentifier(child.channel)
                            let entry = self.accepted.withLock { $0[key] }
                            tasks.addTask {
                                if let entry, entry.admitted, let peer = entry.peer {
                                    await http.handle(value: child, logger: logger)
                                    self.admission.withLock { $0.release(peer.uid) }
                                } else {
                                    // Refused or without credentials: answered (or not) and closed by now.
                                    try? await child.channel.closeFuture.get()
                                }
                                self.accepted.withLock { _ = $0.removeValue(forKey: key) }
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
        if let socket = bound.withLock({ $0 }) {
            // Only the socket this process created, if it is still there: a daemon started later on
            // the same path (after this one's was removed) keeps its socket.
            if Self.identity(of: socket.path) == socket.identity {
                unlink(socket.path)
                logger.info("socket closed", metadata: ["socket": "\(socket.path)"])
            } else {
                logger.notice("socket closed; the socket file is no longer this daemon's and stays", metadata: ["socket": "\(socket.path)"])
            }
        }
    }

    /// What tells one socket file from a later one at the same path: device, inode (which a new file
    /// may reuse at once) and change time to the nanosecond.
    static func identity(of path: String) -> [Int]? {
        var info = stat()
        guard lstat(path, &info) == 0 else { return nil }
        return [Int(info.st_dev), Int(info.st_ino), info.st_ctim.tv_sec, info.st_ctim.tv_nsec]
    }

    /// Makes `path` free for binding: nothing there, or a stale socket (no one answers) that is
    /// removed. Refuses when a live daemon answers on it or when it is not a socket.
    static func claim(_ path: String, logger: Logger) throws {
        var info = stat()
        guard lstat(path, &info) == 0 else { return }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else { throw APIServerError.notASocket(path) }
        if isAnswering(path) { throw APIServerError.socketInUse(path) }
        logger.notice("removing a stale socket (no daemon answers on it)", metadata: ["socket": "\(path)"])
        unlink(path)
    }

    /// `path` as a Unix socket address (nil when too long for one).
    static func unixAddress(_ path: String) -> sockaddr_un? {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else { return nil }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in bytes.enumerated() { raw[i] = b }
        }
        return address
    }

    /// A Unix stream socket bound to `path` and listening (the path must be free: `claim`).
    static func listeningSocket(at path: String) throws -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw IOError(errnoCode: errno, reason: "socket") }
        guard var address = unixAddress(path) else {
            close(fd)
            throw IOError(errnoCode: ENAMETOOLONG, reason: "socket path too long")
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            if code == EADDRINUSE { throw APIServerError.socketInUse(path) }
            throw IOError(errnoCode: code, reason: "bind \(path)")
        }
        return fd
    }

    /// Whether something accepts connections on the Unix socket at `path`.
    static func isAnswering(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        guard var address = unixAddress(path) else { return false }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        // EAGAIN: a live listener whose backlog is full.
        return result == 0 || errno == EAGAIN
    }

    /// `SO_PEERCRED` of a Unix socket connection (Linux `struct ucred`: pid, uid, gid); nil when unreadable.
    static func peerCredentialsFuture(of channel: any Channel) -> EventLoopFuture<PeerCredentials?> {
        #if os(Linux)
        guard let provider = channel as? any SocketOptionProvider else { return channel.eventLoop.makeSucceededFuture(nil) }
        let future: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: SocketOptionLevel(SOL_SOCKET), name: SocketOptionName(SO_PEERCRED))
        return future.map { Optional($0) }.recover { _ in nil }
        #else
        return channel.eventLoop.makeSucceededFuture(nil)
        #endif
    }

    private func prepareDirectory(for path: String) throws {
        let directory = PathString.parent(path)
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

/// Sits first in a refused connection's pipeline and passes nothing on to the HTTP codec: answers
/// the 429 as soon as the client's request arrives and closes the connection once it is written;
/// a client that sends nothing within `grace` is closed unanswered. With descriptors short
/// (`grace` zero) the answer is written and the connection closed at once. A refused connection
/// so holds its descriptor for one request at most, never for an idle timeout. (HTTP clients
/// refuse an answer that comes before their request, hence the wait for it.)
final class RefusingHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let answer: ByteBuffer
    let grace: TimeAmount
    private var started = false
    private var answered = false

    init(answer: ByteBuffer, grace: TimeAmount) {
        self.answer = answer
        self.grace = grace
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        if grace == .zero { return answerAndClose(context) }
        let channel = context.channel
        channel.eventLoop.scheduleTask(in: grace) { channel.close(promise: nil) }
    }

    private func answerAndClose(_ context: ChannelHandlerContext) {
        guard !answered else { return }
        answered = true
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(answer)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        answerAndClose(context)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if event is ChannelEvent { context.close(promise: nil) }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        // The HTTP codec behind writes nothing on a refused connection.
        promise?.fail(ChannelError.ioOnClosedChannel)
    }
}
