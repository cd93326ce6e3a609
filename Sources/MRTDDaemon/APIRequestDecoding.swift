import Foundation
import HummingbirdCore
import Hummingbird

/// The layer that turns a client's bytes into an API request: content type and length checks,
/// the strict JSON decoding of `POST /v1/reads` bodies, the access secret, the query parameters and
/// path checks. The routes call exactly these functions; they are public for the fuzz target
/// (`Fuzz/Sources/fuzz_ipc_frame`, docs/fuzzing.md).
///
/// Every refusal is an `APIError` whose code is one of `errorCodes`; messages never repeat the
/// access secret.
public enum APIRequestDecoding {
    /// The codes these functions refuse with.
    public static let errorCodes: Set<String> = [
        "malformedJSON", "invalidRequest", "unknownField", "invalidAccessKey", "bodyTooLarge",
        "unsupportedMediaType", "invalidFormat", "jobNotFound", "nonCanonicalPath", "malformedBody",
    ]

    /// Whether a request path is canonical: absolute, no empty segment (`//`, a trailing `/`), no `.`
    /// or `..` segment, no percent-encoded `/`, `.` or `\\` and no backslash. Other paths are
    /// refused (400 `nonCanonicalPath`) before routing, so no variant of a path can reach a route
    /// another way than the canonical one.
    public static func isCanonicalPath(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        let lower = path.lowercased()
        if lower.contains("%2f") || lower.contains("%2e") || lower.contains("%5c") || path.contains("\\") { return false }
        let segments = path.dropFirst().split(separator: "/", omittingEmptySubsequences: false)
        return segments.allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// `POST /v1/reads` headers: JSON (or curl's form default, decided by the body) within `maxBody`.
    public static func checkBodyHeaders(contentType: String?, contentLength: String?, maxBody: Int) throws(APIError) {
        if let type = contentType?.lowercased(),
           !type.hasPrefix("application/json"), !type.hasPrefix("application/x-www-form-urlencoded") {
            throw .unsupportedMediaType
        }
        if let length = contentLength.flatMap(Int.init), length > maxBody { throw .bodyTooLarge }
    }

    /// `POST /v1/reads` body → request. Strict: malformed JSON, unknown fields and wrong types each
    /// get their own code.
    public static func readJobRequest(_ body: [UInt8]) throws(APIError) -> ReadJobRequest {
        try APIRoutes.decode(body)
    }

    /// The access part of a request → the secret its job holds (MRZ parsed, key fields checked, CAN
    /// six digits).
    public static func accessSecret(_ access: ReadJobRequest.Access) throws(APIError) -> AccessSecret.Value {
        try ReadScheduler.accessSecret(access)
    }

    /// A job's time limit from `timeoutSeconds` (range-checked before conversion; above `cap`, `cap`).
    public static func timeout(_ seconds: Double?, cap: Duration) throws(APIError) -> Duration {
        try ReadScheduler.timeout(seconds, cap: cap)
    }

    /// `?wait=true` (or `1`) on `POST /v1/reads`.
    static func waits(_ uri: URI) -> Bool {
        uri.queryParameters.get("wait").map { $0 == "true" || $0 == "1" } ?? false
    }

    /// `waits(_:)` for a request target as sent (`/v1/reads?wait=true`).
    public static func waits(uri: String) -> Bool { waits(URI(uri)) }

    /// `wantsPNG(_:)` for a request target as sent.
    public static func wantsPNG(uri: String) throws(APIError) -> Bool { try wantsPNG(URI(uri)) }

    /// `?format=png` on the face: true for PNG, false for the image as stored.
    static func wantsPNG(_ uri: URI) throws(APIError) -> Bool {
        let format = uri.queryParameters.get("format")
        guard format == nil || format == "png" else { throw .invalidFormat }
        return format == "png"
    }

    /// A job id path parameter (at most 64 characters; anything else is no such job).
    public static func jobID(_ parameter: String?) throws(APIError) -> String {
        guard let id = parameter, id.count <= 64 else { throw .jobNotFound }
        return id
    }

    /// Whether a path names a resource (so a 404 from routing means the method is wrong).
    public static func isKnownPath(_ path: String) -> Bool {
        ErrorMiddleware.isKnownPath(path)
    }
}
