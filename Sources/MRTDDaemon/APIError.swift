import Foundation
public import HTTPTypes
public import Hummingbird
import MRTDReaders

/// An error the API answers with: an HTTP status, a stable code and a message free of personal data.
///
/// Every error response of the daemon is `{"error": code, "message": message}`; the codes are a
/// contract (docs/openapi.yaml lists them) and never change meaning.
public struct APIError: Error, Sendable, Equatable, HTTPResponseError, CustomStringConvertible {
    public var status: HTTPResponse.Status
    public var code: String
    public var message: String

    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// The JSON body every error carries.
    public typealias Body = APIErrorBody

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        APIError.response(status: status, code: code, message: message)
    }

    static func response(status: HTTPResponse.Status, code: String, message: String) -> Response {
        let body = (try? JSONEncoder().encode(Body(error: code, message: message))) ?? Data()
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        if status == .tooManyRequests { headers[.retryAfter] = "1" }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }
}

// The one place errors become API codes and statuses.
extension APIError {
    // Requests
    static func malformedJSON(_ why: String) -> APIError { .init(.badRequest, "malformedJSON", "the body is not valid JSON: \(why)") }
    static func invalidRequest(_ why: String) -> APIError { .init(.badRequest, "invalidRequest", why) }
    static func unknownField(_ name: String) -> APIError { .init(.badRequest, "unknownField", "unknown field '\(name)'") }
    static func invalidAccessKey(_ why: String) -> APIError { .init(.badRequest, "invalidAccessKey", "the access key is not valid: \(why)") }
    static let malformedBody = APIError(.badRequest, "malformedBody", "the request body is malformed (chunk sizes, length or transfer encoding)")
    static let nonCanonicalPath = APIError(.badRequest, "nonCanonicalPath", "the path is not canonical (empty, '.' or '..' segments, or an encoded '/' or '.')")
    static let bodyTooLarge = APIError(.contentTooLarge, "bodyTooLarge", "the request body exceeds the limit")
    static let unsupportedMediaType = APIError(.unsupportedMediaType, "unsupportedMediaType", "send the body as application/json")
    static let notFound = APIError(.notFound, "notFound", "no such path")
    static let methodNotAllowed = APIError(.methodNotAllowed, "methodNotAllowed", "method not allowed on this path")
    static let jobNotFound = APIError(.notFound, "jobNotFound", "no read job with this id (never created, or purged after its retention time)")
    static func readerNotFound(_ name: String) -> APIError { .init(.notFound, "readerNotFound", "no reader named '\(name)' is attached") }
    // Capacity
    static let tooManyJobs = APIError(.tooManyRequests, "tooManyJobs", "too many read jobs are waiting or reading")
    static let tooManyClients = APIError(.tooManyRequests, "tooManyClients", "too many clients are connected")
    static let tooManySubscribers = APIError(.tooManyRequests, "tooManySubscribers", "too many event streams are open")
    static let tooManyJobsForUser = APIError(.tooManyRequests, "tooManyJobsForUser", "this user has too many read jobs waiting or reading")
    static let tooManyClientsForUser = APIError(.tooManyRequests, "tooManyClientsForUser", "this user has too many connections open")
    static let tooManySubscribersForUser = APIError(.tooManyRequests, "tooManySubscribersForUser", "this user has too many event streams open")
    static let shuttingDown = APIError(.serviceUnavailable, "shuttingDown", "the daemon is shutting down")
    // Results
    static let resultNotReady = APIError(.conflict, "resultNotReady", "the read has not finished")
    static let noFace = APIError(.notFound, "noFace", "the read has no face image")
    static let noImage = APIError(.notFound, "noImage", "the read has no image of this name (see the result's images)")
    static let faceConversionUnsupported = APIError(.unsupportedMediaType, "faceConversionUnsupported", "?format=png converts JPEG 2000 faces only; this face is displayable as stored")
    static let faceConverterUnavailable = APIError(.notImplemented, "faceConverterUnavailable", "no JPEG 2000 decoder (opj_decompress) is installed")
    static let faceUndecodable = APIError(.unprocessableContent, "faceUndecodable", "the face image could not be decoded")
    static let invalidFormat = APIError(.badRequest, "invalidFormat", "format must be 'png' (or omitted for the image as stored)")
    // Access
    static let canNeedsPACE = APIError(.badRequest, "canNeedsPACE", "a CAN opens a chip with PACE only; accessPolicy 'bac' cannot use it")
    static let peerUnknown = APIError(.forbidden, "peerUnknown", "the caller's credentials (SO_PEERCRED) are unknown")
    static let internalError = APIError(.internalServerError, "internalError", "internal error")

    /// Errors of reader discovery, for job failures and HTTP answers.
    static func from(_ error: ReaderError) -> APIError {
        switch error {
        case .readerNotFound(let name): return readerNotFound(name)
        case .noReaders: return .init(.serviceUnavailable, error.code, error.description)
        case .noCard: return .init(.conflict, error.code, "no card on the reader")
        case .timeout: return .init(.gatewayTimeout, error.code, error.description)
        case .backendFailure: return .init(.serviceUnavailable, error.code, error.description)
        }
    }

    /// Maps Hummingbird's own errors (routing, body limits) onto the codes above.
    static func from(_ error: HTTPError) -> APIError {
        switch error.status {
        case .notFound: return .notFound
        case .methodNotAllowed: return .methodNotAllowed
        case .contentTooLarge: return .bodyTooLarge
        case .badRequest: return .invalidRequest(error.body ?? "bad request")
        default: return .init(error.status, "httpError", error.body ?? error.status.reasonPhrase)
        }
    }
}
