import CLibCurl
import FoundationEssentials
import MRTDClient
import MRTDCore
import MRTDPlatform
import MRTDVerification
import Synchronization

/// Fetches a trust source over http or https with libcurl (no URLSession: product code has
/// FoundationEssentials only). The transfer blocks, so it runs on a ``BlockingThread`` of its own.
/// Bounded: `maxBytes` (the body is abandoned past it, also when Content-Length announces more),
/// a connect timeout and a whole-transfer timeout, at most 5 redirects, http/https and only https
/// after a redirect. TLS certificates and host names are verified (libcurl's defaults, kept).
enum TrustFetcher {
    struct Options {
        var maxBytes: Int
        var timeoutSeconds: Int
        var connectTimeoutSeconds = 15
    }

    /// Whether `source` names a URL (rather than a file).
    static func isURL(_ source: String) -> Bool {
        let lower = source.lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }

    /// Whether `source` is a plain `http://` URL.
    static func isPlainHTTP(_ source: String) -> Bool {
        source.lowercased().hasPrefix("http://")
    }

    /// The URL as scheme, host and path only (`https://user:secret@host/x?token=…#f` →
    /// `https://host/x`), for output, logs, the state file and so `GET /v1/health` and `/metrics`:
    /// user information, query strings (access tokens, presigned signatures) and fragments stay out.
    static func redacted(_ source: String) -> String {
        guard isURL(source), let scheme = source.firstRange(of: "://") else { return source }
        var rest: Substring = source[scheme.upperBound...]
        if let end = rest.firstIndex(where: { $0 == "?" || $0 == "#" }) { rest = rest[..<end] }
        let authorityEnd: String.Index = rest.firstIndex { $0 == "/" } ?? rest.endIndex
        if let at = rest[..<authorityEnd].lastIndex(of: "@") { rest = rest[rest.index(after: at)...] }
        return String(source[..<scheme.upperBound]) + String(rest)
    }

    /// `3`: CURL_GLOBAL_DEFAULT (SSL | WIN32), a macro Swift does not import.
    private static let initialised: Bool = curl_global_init(3) == CURLE_OK

    static func fetch(_ url: String, options: Options) async throws(TrustUpdateError) -> [UInt8] {
        let thread = BlockingThread(name: "mrtdctl-fetch")
        defer { thread.stop() }
        let outcome: Swift.Result<[UInt8], TrustUpdateError>
        do {
            outcome = try await thread.run { () -> Swift.Result<[UInt8], TrustUpdateError> in
                do throws(TrustUpdateError) { return .success(try transfer(url, options: options)) } catch { return .failure(error) }
            }
        } catch {
            throw TrustUpdateError(.trustUpdateFetchFailed, "\(redacted(url)): the fetch thread stopped")
        }
        return try outcome.get()
    }

    /// The body collected by the write callback; `@unchecked Sendable`: used by one transfer on one thread at a time.
    private final class Sink: @unchecked Sendable {
        var bytes: [UInt8] = []
        let limit: Int
        var exceeded = false
        init(limit: Int) { self.limit = limit }
    }

    private static func transfer(_ url: String, options: Options) throws(TrustUpdateError) -> [UInt8] {
        guard initialised, let handle = curl_easy_init() else {
            throw TrustUpdateError(.trustUpdateFetchFailed, "\(redacted(url)): libcurl did not initialise")
        }
        defer { curl_easy_cleanup(handle) }
        let sink = Sink(limit: options.maxBytes)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        var errorBuffer = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code: CURLcode = withExtendedLifetime(sink) {
            errorBuffer.withUnsafeMutableBufferPointer { errors in
                _ = mrtd_curl_set_string(handle, CURLOPT_URL, url)
                _ = mrtd_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
                // A redirect may only go to https, whatever the first URL's scheme: a plain http hop
                // would hand the source to anyone on the path.
                _ = mrtd_curl_set_string(handle, CURLOPT_REDIR_PROTOCOLS_STR, "https")
                _ = mrtd_curl_set_long(handle, CURLOPT_FOLLOWLOCATION, 1)
                _ = mrtd_curl_set_long(handle, CURLOPT_MAXREDIRS, 5)
                _ = mrtd_curl_set_long(handle, CURLOPT_CONNECTTIMEOUT, options.connectTimeoutSeconds)
                _ = mrtd_curl_set_long(handle, CURLOPT_TIMEOUT, options.timeoutSeconds)
                _ = mrtd_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
                _ = mrtd_curl_set_long(handle, CURLOPT_FAILONERROR, 1)
                _ = mrtd_curl_set_long(handle, CURLOPT_MAXFILESIZE, options.maxBytes)
                _ = mrtd_curl_set_string(handle, CURLOPT_USERAGENT, "mrtdctl/\(MRTDVersion.string) (trust update)")
                _ = mrtd_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, errors.baseAddress)
                _ = mrtd_curl_set_pointer(handle, CURLOPT_WRITEDATA, context)
                _ = mrtd_curl_set_write_function(handle) { data, size, count, context in
                    guard let data, let context else { return 0 }
                    let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
                    let length = size * count
                    guard sink.bytes.count + length <= sink.limit else {
                        sink.exceeded = true
                        return 0  // aborts the transfer (CURLE_WRITE_ERROR)
                    }
                    data.withMemoryRebound(to: UInt8.self, capacity: length) { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
                    return length
                }
                return curl_easy_perform(handle)
            }
        }
        if sink.exceeded || code == CURLE_FILESIZE_EXCEEDED {
            throw TrustUpdateError(.trustUpdateTooLarge, "\(redacted(url)): larger than the limit of \(options.maxBytes) bytes")
        }
        guard code == CURLE_OK else {
            let detail = String(decoding: errorBuffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            let status = mrtd_curl_response_code(handle)
            let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
            throw TrustUpdateError(.trustUpdateFetchFailed, "\(redacted(url)): \(status >= 400 ? "HTTP \(status): " : "")\(reason)")
        }
        return sink.bytes
    }
}
