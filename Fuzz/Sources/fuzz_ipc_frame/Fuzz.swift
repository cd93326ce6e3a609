import Foundation
import FuzzSupport
import MRTDDaemon
import NIOCore
import NIOEmbedded
import NIOHTTP1
import MRTDClient

/// Client bytes on the daemon's socket → API request (RELIABILITY IPC-01, docs/fuzzing.md).
/// Mode byte, then either (even) a `POST /v1/reads` JSON body, or (odd) raw HTTP/1.1 bytes parsed
/// by NIO's HTTP/1.1 decoder (the one Hummingbird's server runs) in an in-memory channel, each
/// request then going through the daemon's request decoding (`APIRequestDecoding`: the functions the
/// routes call). Oracles: no trap; every refusal is an `APIError` with one of our codes and a 4xx
/// status whose message never repeats the access secret; a decoded request encodes and decodes to
/// itself; a body over the cap never decodes.
@main enum FuzzIPCFrame {
    static func main() { FuzzDriver.run(test) }

    static let maxBody = 16 * 1024

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let mode = input.byte()
        let rest = input.rest()
        if mode & 1 == 0 {
            body(rest)
        } else {
            http(rest)
        }
        return 0
    }

    static func refused(_ error: APIError, _ what: String, secrets: [String] = []) {
        fuzzCheck(APIRequestDecoding.errorCodes.contains(error.code), "\(what): unexpected code \(error.code)")
        fuzzCheck((400..<500).contains(error.status.code), "\(what): status \(error.status.code) for \(error.code)")
        for secret in secrets where secret.count >= 6 && secret.filter(\.isNumber).count >= 4 {
            fuzzCheck(!error.message.contains(secret), "\(what): the message repeats the access secret")
        }
    }

    /// A `POST /v1/reads` body through the strict decoder and the access-secret check.
    static func body(_ bytes: [UInt8]) {
        let request: ReadJobRequest
        do {
            request = try APIRequestDecoding.readJobRequest(bytes)
        } catch {
            refused(error, "body")
            return
        }
        // decode(encode(x)) == x.
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let encoded = try? encoder.encode(request) else {
            // Only non-finite numbers cannot be encoded, and JSON cannot carry them in the first place.
            fuzzCheck(false, "a decoded request does not encode")
            return
        }
        do {
            let again = try APIRequestDecoding.readJobRequest(Array(encoded))
            fuzzCheck(again == request, "decode(encode(x)) != x")
        } catch {
            fuzzCheck(false, "the encoding of a decoded request is refused: \(error.code)")
        }
        // Numeric extremes: the job's time limit is computed from any decoded timeoutSeconds without a trap.
        do {
            let limit = try APIRequestDecoding.timeout(request.timeoutSeconds, cap: .seconds(60))
            fuzzCheck(limit > .zero && limit <= .seconds(60), "a job time limit outside (0, cap]")
        } catch {
            refused(error, "timeoutSeconds")
        }
        let access = request.access
        let secrets = [access.mrz, access.can, access.mrzKey?.documentNumber, access.mrzKey?.dateOfBirth, access.mrzKey?.dateOfExpiry]
            .compactMap { $0 }
        do {
            _ = try APIRequestDecoding.accessSecret(access)
        } catch {
            refused(error, "access", secrets: secrets)
        }
    }

    /// Raw bytes through NIO's HTTP/1.1 request decoder, each complete request into the decoding layer.
    static func http(_ bytes: [UInt8]) {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        do {
            try channel.pipeline.syncOperations.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes)))
            try channel.writeInbound(channel.allocator.buffer(bytes: bytes))
        } catch {
            // A malformed request: the server answers 400 and closes; nothing reaches our code.
        }
        var head: HTTPRequestHead?
        var collected: [UInt8] = []
        var overCap = false
        while let part = try? channel.readInbound(as: HTTPServerRequestPart.self) {
            switch part {
            case .head(let h):
                head = h
                collected = []
                overCap = false
            case .body(var buffer):
                if collected.count + buffer.readableBytes > maxBody {
                    overCap = true
                } else if let chunk = buffer.readBytes(length: buffer.readableBytes) {
                    collected += chunk
                }
            case .end:
                if let head { request(head, body: collected, overCap: overCap) }
                head = nil
            }
        }
    }

    static func request(_ head: HTTPRequestHead, body: [UInt8], overCap: Bool) {
        let path = String(head.uri.prefix { $0 != "?" })
        // The server answers 400 nonCanonicalPath before routing: only canonical paths go on, and a
        // canonical path has no spelling variant (empty, "." or ".." segment, encoded "/" or ".").
        guard APIRequestDecoding.isCanonicalPath(path) else { return }
        let segments = path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()
        fuzzCheck(path == "/" || segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }, "a path variant passed as canonical")
        fuzzCheck(!path.lowercased().contains("%2f") && !path.lowercased().contains("%2e"), "an encoded path variant passed as canonical")
        let known = APIRequestDecoding.isKnownPath(path)
        let parts = path.split(separator: "/", omittingEmptySubsequences: true)
        if known, parts.count >= 3 {
            do {
                let id = try APIRequestDecoding.jobID(String(parts[2]))
                fuzzCheck(id.count <= 64, "a job id over 64 characters was accepted")
            } catch {
                refused(error, "job id")
            }
        }
        _ = try? APIRequestDecoding.wait(uri: head.uri)
        do {
            _ = try APIRequestDecoding.wantsPNG(uri: head.uri)
        } catch {
            refused(error, "format")
        }
        guard head.method == .POST, path == "/v1/reads" else { return }
        do {
            try APIRequestDecoding.checkBodyHeaders(
                contentType: head.headers.first(name: "content-type"), contentLength: head.headers.first(name: "content-length"),
                maxBody: maxBody)
        } catch {
            refused(error, "headers")
            return
        }
        // The route collects at most maxBody bytes (Request.body.collect(upTo:)) before decoding.
        guard !overCap else { return }
        Self.body(body)
    }
}
