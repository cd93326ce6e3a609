import FoundationEssentials
public import HTTPTypes
public import Hummingbird
public import MRTDCore
import MRTDReaders
public import MRTDClient

/// An error the API answers with: an HTTP status, a stable code from the registry (`ErrorCode`) and
/// a message free of personal data.
///
/// The one place errors become HTTP answers: the domain (scheduler, event bus, readers, protocol)
/// throws its own `CodedError`s; `init(_:)` gives each its status (`status(for:)`). Every error
/// response is an RFC 9457 problem document (`application/problem+json`) that keeps the original
/// `{"error": code, "message": message}` members: `Problem`. The codes are a contract
/// (docs/openapi.yaml lists them all) and never change meaning.
public struct APIError: Error, Sendable, Equatable, HTTPResponseError, CustomStringConvertible, CodedError {
    public var status: HTTPResponse.Status
    public var errorCode: ErrorCode
    public var message: String

    public init(_ status: HTTPResponse.Status, _ code: ErrorCode, _ message: String) {
        self.status = status
        self.errorCode = code
        self.message = message
    }

    /// A registry code with the status `status(for:)` gives it.
    public init(_ code: ErrorCode, _ message: String) {
        self.init(Self.status(for: code), code, message)
    }

    /// A domain error as the API answers it: its code, its status, its description as the message.
    public init(_ error: some CodedError & CustomStringConvertible) {
        self.init(error.errorCode, error.description)
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// The JSON body every error carries.
    public typealias Body = APIErrorBody

    /// An error answer: RFC 9457 problem details that keep `error` and `message` (the fields clients
    /// had before problem details; `detail` repeats `message`, `title` is the status's reason phrase).
    public struct Problem: Codable, Sendable, Equatable {
        /// The stable code.
        public var error: ErrorCode
        public var message: String
        /// `https://mrtdd.invalid/problems/<code>`: identifies the problem type; not meant to be
        /// dereferenced (`.invalid` never resolves).
        public var type: String
        public var title: String
        public var status: Int
        public var detail: String
        /// The request path the problem occurred on, when there is a request to name.
        public var instance: String?
    }

    /// The problem type URI of a code.
    public static func type(of code: ErrorCode) -> String { "https://mrtdd.invalid/problems/\(code.rawValue)" }

    /// The media type of every error answer.
    public static let problemMediaType = "application/problem+json"

    /// This error as a problem document.
    public func problem(instance: String?) -> Problem {
        Problem(
            error: errorCode, message: message, type: Self.type(of: errorCode), title: status.reasonPhrase, status: status.code,
            detail: message, instance: instance)
    }

    /// The problem document's bytes: compact JSON, `/` unescaped, members in a fixed order with the
    /// earlier `error` and `message` first (JSONEncoder's order is not stable), so every answer to the
    /// same error is the same bytes.
    func body(instance: String?) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        func json(_ value: String) -> String {
            (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? #""""#
        }
        let problem = problem(instance: instance)
        var members = [
            ("error", json(problem.error.rawValue)), ("message", json(problem.message)), ("type", json(problem.type)),
            ("title", json(problem.title)), ("status", String(problem.status)), ("detail", json(problem.detail)),
        ]
        if let instance = problem.instance { members.append(("instance", json(instance))) }
        return Array(("{" + members.map { #""\#($0.0)":\#($0.1)"# }.joined(separator: ",") + "}").utf8)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        response(instance: request.uri.path)
    }

    /// The HTTP answer: status, `application/problem+json`, Retry-After on 429, the problem document.
    func response(instance: String?) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = Self.problemMediaType
        if status == .tooManyRequests { headers[.retryAfter] = "1" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body(instance: instance))))
    }

    /// The status each code is answered with. Codes that only appear inside a job or a result
    /// (chip session failures) are never an HTTP answer of their own: 500 if one ever were.
    public static func status(for code: ErrorCode) -> HTTPResponse.Status {
        switch code {
        case .malformedJSON, .invalidRequest, .unknownField, .invalidAccessKey, .canNeedsPACE, .malformedBody,
             .nonCanonicalPath, .invalidFormat, .invalidChallenge, .invalidDisclosure:
            return .badRequest
        case .peerUnknown: return .forbidden
        case .notFound, .jobNotFound, .readerNotFound, .noFace, .noImage, .evidenceNotAvailable: return .notFound
        case .methodNotAllowed: return .methodNotAllowed
        case .resultNotReady, .noCard: return .conflict
        case .bodyTooLarge: return .contentTooLarge
        case .unsupportedMediaType, .faceConversionUnsupported: return .unsupportedMediaType
        case .faceUndecodable, .mrzUnreadable, .mrzCheckDigitsWrong, .mrzCorrectionAmbiguous: return .unprocessableContent
        case .tooManyJobs, .tooManyJobsForUser, .tooManyClients, .tooManyClientsForUser, .tooManySubscribers,
             .tooManySubscribersForUser:
            return .tooManyRequests
        case .faceConverterUnavailable: return .notImplemented
        case .shuttingDown, .noReaders, .readerServiceFailure: return .serviceUnavailable
        case .timeout: return .gatewayTimeout
        default: return .internalServerError
        }
    }
}

// The API layer's own refusals, and the domain's under the names the routes and tests use.
extension APIError {
    // Requests
    static func malformedJSON(_ why: String) -> APIError { .init(.malformedJSON, "the body is not valid JSON: \(why)") }
    static func invalidRequest(_ why: String) -> APIError { .init(SchedulerError.invalidRequest(why)) }
    static func unknownField(_ name: String) -> APIError { .init(.unknownField, "unknown field '\(name)'") }
    static func invalidAccessKey(_ why: String) -> APIError { .init(SchedulerError.invalidAccessKey(why)) }
    static let malformedBody = APIError(.malformedBody, "the request body is malformed (chunk sizes, length or transfer encoding)")
    static let nonCanonicalPath = APIError(.nonCanonicalPath, "the path is not canonical (empty, '.' or '..' segments, or an encoded '/' or '.')")
    static let bodyTooLarge = APIError(.bodyTooLarge, "the request body exceeds the limit")
    static let unsupportedMediaType = APIError(.unsupportedMediaType, "send the body as application/json")
    static let notFound = APIError(.notFound, "no such path")
    static let methodNotAllowed = APIError(.methodNotAllowed, "method not allowed on this path")
    static let jobNotFound = APIError(SchedulerError.jobNotFound)
    static func readerNotFound(_ name: String) -> APIError { .init(SchedulerError.readerNotFound(name)) }
    // Capacity
    static let tooManyJobs = APIError(SchedulerError.tooManyJobs)
    static let tooManyClients = APIError(.tooManyClients, "too many clients are connected")
    static let tooManySubscribers = APIError(SchedulerError.tooManySubscribers)
    static let tooManyJobsForUser = APIError(SchedulerError.tooManyJobsForUser)
    static let tooManyClientsForUser = APIError(.tooManyClientsForUser, "this user has too many connections open")
    static let tooManySubscribersForUser = APIError(SchedulerError.tooManySubscribersForUser)
    static let shuttingDown = APIError(SchedulerError.shuttingDown)
    // Results
    static let resultNotReady = APIError(SchedulerError.resultNotReady)
    static let noFace = APIError(SchedulerError.noFace)
    static let noImage = APIError(SchedulerError.noImage)
    static let faceConversionUnsupported = APIError(.faceConversionUnsupported, "?format=png converts JPEG 2000 faces only; this face is displayable as stored")
    static let faceConverterUnavailable = APIError(.faceConverterUnavailable, "no JPEG 2000 decoder (opj_decompress) is installed")
    static let faceUndecodable = APIError(.faceUndecodable, "the face image could not be decoded")
    static let invalidFormat = APIError(.invalidFormat, "format must be 'png' (or omitted for the image as stored)")
    static let invalidChallenge = APIError(.invalidChallenge, "aaChallenge must be 16 hex digits (8 bytes)")
    static let invalidDisclosure = APIError(.invalidDisclosure, "disclose must list data group numbers 1-16, comma-separated")
    static let evidenceNotAvailable = APIError(
        .evidenceNotAvailable, "the read has no evidence (it failed, was cancelled, or was not asked to keep it: keepEvidence or aaChallenge)")
    // Access
    static let canNeedsPACE = APIError(SchedulerError.canNeedsPACE)
    static let peerUnknown = APIError(SchedulerError.peerUnknown)
    static let internalError = APIError(.internalError, "internal error")

    /// Maps Hummingbird's own errors (routing, body limits) onto the codes above.
    static func from(_ error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: return .notFound
        case .methodNotAllowed: return .methodNotAllowed
        case .contentTooLarge: return .bodyTooLarge
        case .badRequest: return .invalidRequest(error.body ?? "bad request")
        default: return .init(error.status, .httpError, error.body ?? error.status.reasonPhrase)
        }
    }
}
