import Glibc
import HummingbirdCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// Hummingbird's HTTP/1 channel behind the console's own gates, set up on each accepted connection:
/// `ConsoleAdmission` decides whether it is served at all (a refused one is closed at once), and
/// `RequestTargetGate` sits between NIO's HTTP/1 decoder and Hummingbird's conversion of the
/// request head. Hummingbird's idle timeout (`HTTP1Channel.Configuration.idleTimeout`) closes a
/// connection that sends no complete request head in time, before its first request or after an
/// answer; an answer being written (the event stream) is never cut by it.
struct ConsoleChannel: ServerChildChannel {
    typealias Value = HTTP1Channel.Value
    let http: HTTP1Channel
    let admission: ConsoleAdmission

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        let admitted = admission.admit(channel)
        // A failed setup would end Hummingbird's accept loop: a refused connection gets its
        // pipeline like any other and is closed, so that its handling ends at once.
        return http.setup(channel: channel, logger: logger).map { value in
            let pipeline = channel.pipeline.syncOperations
            guard admitted,
                  let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPRequestDecoder>.self),
                  (try? pipeline.addHandler(RequestTargetGate(), position: .after(decoder))) != nil
            else {
                channel.close(promise: nil)
                return value
            }
            // A fixed send buffer instead of the kernel's autotuning (up to 4 MiB on loopback): what a
            // browser that stops reading can hold in the kernel stays small, and the relay's bound
            // (`ConsoleServer.relayBound`) is reached soon after.
            try? channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: ConsoleServer.sendBuffer)
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await http.handle(value: value, logger: logger)
    }
}

/// How many connections the console serves at once, and from whom. The console's legitimate
/// client is a browser of the user who started it; another local user can connect to 127.0.0.1
/// too (without the token, only to be refused), so connections from any other uid, or whose uid
/// cannot be told (`LoopbackPeer`), are held to `perForeignUser` each: idle connections from
/// another user can never crowd out the owner's. All connections together stay below the
/// file-descriptor limit (each may hold a second descriptor: its request proxied to mrtdd).
/// Beyond either bound a connection is closed as soon as it is accepted, unanswered: it never
/// holds a descriptor, so accept(2) never fails with EMFILE (and NIO's accept backoff never has
/// to step in).
final class ConsoleAdmission: Sendable {
    let limit: Int
    let owner: UInt32
    static let perForeignUser = 8
    /// Descriptors kept for everything but connections: the listener, the launch page, stdio.
    static let reservedDescriptors = 32
    static let maxConnections = 1024
    private let open = Mutex<(total: Int, byUID: [UInt32: Int])>((0, [:]))

    init(owner: UInt32 = getuid(), descriptors: Int = ConsoleAdmission.descriptorLimit()) {
        self.owner = owner
        limit = max(1, min(Self.maxConnections, (descriptors - Self.reservedDescriptors) / 2))
    }

    static func descriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return .max }
        return Int(clamping: limit.rlim_cur)
    }

    /// Whether `uid` (nil: unknown) may open one more connection; if so it is counted until `release`.
    func take(_ uid: UInt32?) -> Bool {
        let key = uid ?? .max
        return open.withLock { open in
            guard open.total < limit, key == owner || open.byUID[key, default: 0] < Self.perForeignUser else { return false }
            open.total += 1
            open.byUID[key, default: 0] += 1
            return true
        }
    }

    func release(_ uid: UInt32?) {
        let key = uid ?? .max
        open.withLock { open in
            guard let held = open.byUID[key] else { return }
            open.total -= 1
            open.byUID[key] = held > 1 ? held - 1 : nil
        }
    }

    /// Takes a slot for a newly accepted connection, given back when it closes.
    func admit(_ channel: any Channel) -> Bool {
        let uid = LoopbackPeer.uid(of: channel)
        guard take(uid) else { return false }
        channel.closeFuture.whenComplete { _ in self.release(uid) }
        return true
    }
}

/// The uid that owns the other end of a TCP connection over loopback, from the kernel's socket
/// table: one NETLINK_SOCK_DIAG query for exactly that socket (what `ss -tae` shows as `uid:`).
/// SO_PEERCRED exists for Unix sockets only; reading /proc/net/tcp would cost a pass over every
/// socket of the machine per connection.
enum LoopbackPeer {
    static func uid(of channel: any Channel) -> UInt32? {
        guard case .v4(let peer)? = channel.remoteAddress, case .v4(let local)? = channel.localAddress else { return nil }
        return uid(client: peer.address, server: local.address)
    }

    /// The owner of the socket whose local end is `client` and remote end `server`.
    static func uid(client: sockaddr_in, server: sockaddr_in) -> UInt32? {
        let sockDiag: Int32 = 4, sockDiagByFamily: UInt16 = 20, requestFlag: UInt16 = 1, listening: UInt8 = 10
        let fd = socket(AF_NETLINK, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), sockDiag)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var timeout = timeval(tv_sec: 1, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        // struct nlmsghdr (16 bytes), then struct inet_diag_req_v2 (56): family, protocol, ext,
        // pad, states, and the inet_diag_sockid (ports and addresses in network byte order).
        var request = [UInt8](repeating: 0, count: 72)
        func put<T>(_ value: T, at offset: Int) {
            withUnsafeBytes(of: value) { request.replaceSubrange(offset..<offset + $0.count, with: $0) }
        }
        put(UInt32(request.count), at: 0)
        put(sockDiagByFamily, at: 4)
        put(requestFlag, at: 6)
        request[16] = UInt8(AF_INET)
        request[17] = UInt8(IPPROTO_TCP)
        put(UInt32.max, at: 20)  // every TCP state
        put(client.sin_port, at: 24)
        put(server.sin_port, at: 26)
        put(client.sin_addr.s_addr, at: 28)
        put(server.sin_addr.s_addr, at: 44)
        put(UInt64.max, at: 64)  // INET_DIAG_NOCOOKIE
        guard request.withUnsafeBytes({ send(fd, $0.baseAddress, $0.count, 0) }) == request.count else { return nil }

        // The answer: struct nlmsghdr, then struct inet_diag_msg: family, state, timer, retrans,
        // the sockid (48 bytes), expires, rqueue, wqueue, uid, inode.
        var answer = [UInt8](repeating: 0, count: 512)
        let received = answer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        guard received >= 16 + 72 else { return nil }
        func get<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
            answer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: T.self) }
        }
        guard get(UInt16.self, at: 4) == sockDiagByFamily, answer[17] != listening,
              get(UInt16.self, at: 20) == client.sin_port, get(UInt16.self, at: 22) == server.sin_port
        else { return nil }
        return get(UInt32.self, at: 16 + 64)
    }
}

/// Between NIO's HTTP/1 decoder and Hummingbird's conversion of the request head, which keeps the
/// first of several Host fields and turns an absolute-form target (`GET http://host/path`) into a
/// plain path, so that neither can be seen afterwards: such a request (and any target that is not
/// a path) is answered 400 and its connection closed. The console's Host check (421) then sees the
/// only Host there is.
final class RequestTargetGate: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart
    private var refused = false

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if !refused, case .head(let head) = unwrapInboundIn(data),
           !head.uri.hasPrefix("/") || head.headers["host"].count > 1 {
            refused = true
            refuse(context)
        }
        // Nothing of a refused request goes further.
        guard !refused else { return }
        context.fireChannelRead(data)
    }

    private func refuse(_ context: ChannelHandlerContext) {
        let body = "bad request: one Host and a path (origin-form) only\n"
        let headers = HTTPHeaders([
            ("content-type", "text/plain; charset=utf-8"), ("content-length", "\(body.utf8.count)"),
            ("connection", "close"), ("cache-control", "no-store"),
        ])
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .badRequest, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: body)))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}
