import FoundationEssentials
import HummingbirdCore
public import MRTDCore
import Hummingbird
public import MRTDClient
import MRTDPlatform
public import MRTDProtocol

/// The layer that turns a client's bytes into an API request: content type and length checks,
/// the strict JSON decoding of `POST /v1/reads` bodies, the access secret, the query parameters and
/// path checks. The routes call exactly these functions; they are public for the fuzz target
/// (`Fuzz/Sources/fuzz_ipc_frame`, docs/fuzzing.md).
///
/// Every refusal is an `APIError` whose code is one of `errorCodes`; messages never repeat the
/// access secret.
public enum APIRequestDecoding {
    /// The codes these functions refuse with.
    public static let errorCodes: Set<String> = Set(refusals.map(\.rawValue))

    /// `errorCodes` as registry codes.
    public static let refusals: Set<ErrorCode> = [
        .malformedJSON, .invalidRequest, .unknownField, .invalidAccessKey, .bodyTooLarge,
        .unsupportedMediaType, .invalidFormat, .jobNotFound, .nonCanonicalPath, .malformedBody,
        .invalidChallenge, .invalidDisclosure,
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
        // The media type itself (RFC 9110 §8.3.1: parameters after `;`, case-insensitive), compared
        // whole: `application/jsonx` or `application/json-seq` is not JSON.
        if let type = contentType?.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false).first?
            .trimmingSpaces().lowercased(),
           type != "application/json", type != "application/x-www-form-urlencoded" {
            throw .unsupportedMediaType
        }
        if let length = contentLength.flatMap(Int.init), length > maxBody { throw .bodyTooLarge }
    }

    /// `POST /v1/mrz` body → request. Strict as `POST /v1/reads`: unknown fields and wrong types refused.
    public static func mrzPush(_ body: [UInt8]) throws(APIError) -> MRZPushRequest {
        let data = Data(body)
        let probe: [String: JSONProbe]
        do {
            probe = try JSONDecoder().decode([String: JSONProbe].self, from: data)
        } catch DecodingError.typeMismatch {
            throw .invalidRequest("the body must be a JSON object")
        } catch {
            throw .malformedJSON("cannot parse")
        }
        if let unknown = probe.keys.sorted().first(where: { !MRZPushRequest.fields.contains($0) }) { throw .unknownField(unknown) }
        do {
            let push = try JSONDecoder().decode(MRZPushRequest.self, from: data)
            guard push.mrz.utf8.count <= 512 else { throw APIError.invalidRequest("mrz: at most 512 characters") }
            if let reader = push.reader, reader.isEmpty || reader.utf8.count > 256 { throw APIError.invalidRequest("reader: 1 to 256 characters") }
            return push
        } catch let error as APIError {
            throw error
        } catch DecodingError.keyNotFound(let key, _) {
            throw .invalidRequest("missing field '\(key.stringValue)'")
        } catch {
            throw .invalidRequest("mrz must be a string, reader a string")
        }
    }

    /// Any JSON value (the member names of a body are checked before it is decoded).
    struct JSONProbe: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// `POST /v1/reads` body → request. Strict: malformed JSON, unknown fields and wrong types each
    /// get their own code.
    public static func readJobRequest(_ body: [UInt8]) throws(APIError) -> ReadJobRequest {
        try APIRoutes.decode(body)
    }

    /// The access part of a request → the secret its job holds (MRZ parsed, key fields checked, CAN
    /// six digits).
    public static func accessSecret(_ access: ReadJobRequest.Access) throws(APIError) -> AccessKey {
        let given = [access.mrz != nil, access.mrzKey != nil, access.can != nil].filter { $0 }.count
        guard given == 1 else { throw .invalidRequest("access: give exactly one of mrz, mrzKey, can") }
        do {
            if let mrz = access.mrz { return .mrz(try MRZ(mrz).accessKey) }
            if let key = access.mrzKey {
                return .mrz(try MRZKey(documentNumber: key.documentNumber, dateOfBirth: key.dateOfBirth, dateOfExpiry: key.dateOfExpiry))
            }
        } catch {
            throw .invalidAccessKey(error.description)
        }
        let can = access.can ?? ""
        // BSI TR-03110-2: the CAN is six decimal digits.
        guard can.count == 6, can.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw .invalidAccessKey("a CAN is six digits")
        }
        return .can(can)
    }

    /// A decoded `POST /v1/reads` body → the scheduler's order (the access secret checked and
    /// parsed; the rest the scheduler checks against its configuration).
    public static func order(_ request: ReadJobRequest) throws(APIError) -> ReadJobOrder {
        var challenge: [UInt8]?
        if let text = request.aaChallenge {
            guard let bytes = ReadJobRequest.challengeBytes(text) else { throw .invalidChallenge }
            challenge = bytes
        }
        return ReadJobOrder(
            reader: request.reader, access: try accessSecret(request.access), dataGroups: request.dataGroups,
            accessPolicy: request.accessPolicy, timeoutSeconds: request.timeoutSeconds,
            // A full MRZ is the data page's: DG1 is compared with it (checks.mrzMatch).
            pageMRZ: request.access.mrz.flatMap { try? MRZ($0) }, aaChallenge: challenge,
            keepEvidence: request.keepEvidence ?? (challenge != nil))
    }

    /// `?disclose=` on `GET /v1/reads/{id}/evidence`: data group numbers 1-16, comma-separated
    /// (`1,14,15`); absent: every group read is disclosed; empty: none (hashes only).
    static func disclose(_ uri: URI) throws(APIError) -> Set<Int>? {
        guard let text = uri.queryParameters.get("disclose") else { return nil }
        guard text.utf8.count <= 64 else { throw .invalidDisclosure }
        var groups: Set<Int> = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) where !(text.isEmpty) {
            let label = part.uppercased().hasPrefix("DG") ? part.dropFirst(2) : part[...]
            guard label.utf8.count <= 2, let n = Int(label), (1...16).contains(n) else { throw .invalidDisclosure }
            groups.insert(n)
        }
        return groups
    }

    /// `disclose(_:)` for a request target as sent.
    public static func disclose(uri: String) throws(APIError) -> Set<Int>? { try disclose(URI(uri)) }

    /// A job's time limit from `timeoutSeconds` (range-checked before conversion; above `cap`, `cap`).
    public static func timeout(_ seconds: Double?, cap: Duration) throws(APIError) -> Duration {
        do {
            return try ReadScheduler.timeout(seconds, cap: cap)
        } catch {
            throw APIError(error)
        }
    }

    /// `?wait=true` on `POST /v1/reads`: `true` or `false` (a boolean, docs/openapi.yaml), absent is
    /// false; any other value (`1` included, which once meant true) is 400 `invalidRequest`.
    static func wait(_ uri: URI) throws(APIError) -> Bool {
        switch uri.queryParameters.get("wait") {
        case nil, "false": return false
        case "true": return true
        default: throw .invalidRequest("wait must be true or false")
        }
    }

    /// `wait(_:)` for a request target as sent (`/v1/reads?wait=true`).
    public static func wait(uri: String) throws(APIError) -> Bool { try wait(URI(uri)) }

    /// `wantsPNG(_:)` for a request target as sent.
    public static func wantsPNG(uri: String) throws(APIError) -> Bool { try wantsPNG(URI(uri)) }

    /// `?format=png` on the face: true for PNG, false for the image as stored.
    static func wantsPNG(_ uri: URI) throws(APIError) -> Bool {
        let format = uri.queryParameters.get("format")
        guard format == nil || format == "png" else { throw .invalidFormat }
        return format == "png"
    }

    /// The `Last-Event-ID` of `GET /v1/events` (a reconnecting client's last event id): absent or
    /// empty is none; otherwise decimal digits that fit 64 bits, or 400 `invalidRequest`.
    public static func lastEventID(_ header: String?) throws(APIError) -> UInt64? {
        guard let header = header?.trimmingSpaces(), !header.isEmpty else { return nil }
        guard let id = EventID.parse(header) else {
            throw .invalidRequest("Last-Event-ID must be an event id (decimal digits)")
        }
        return id
    }

    /// A job id path parameter (at most 64 characters; anything else is no such job).
    public static func jobID(_ parameter: String?) throws(APIError) -> String {
        guard let id = parameter, id.count <= 64 else { throw .jobNotFound }
        return id
    }
}
