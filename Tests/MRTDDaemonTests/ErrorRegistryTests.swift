import Foundation
import HTTPTypes
import MRTDCore
import MRTDProtocol
import MRTDReaders
import Testing
@testable import MRTDDaemon
import NIOCore
import MRTDClient

/// The error registry and the one mapping to HTTP: every answer keeps the status, code and message it
/// had before the domain got its own errors (the triples below are the earlier literals, verbatim).
struct ErrorRegistryTests {
    typealias Triple = (error: APIError, status: Int, code: String, message: String)
    static let answers: [Triple] = [
        (.malformedJSON("cannot parse"), 400, "malformedJSON", "the body is not valid JSON: cannot parse"),
        (.invalidRequest("dataGroups: x"), 400, "invalidRequest", "dataGroups: x"),
        (.unknownField("access.pin"), 400, "unknownField", "unknown field 'access.pin'"),
        (.invalidAccessKey("a CAN is six digits"), 400, "invalidAccessKey", "the access key is not valid: a CAN is six digits"),
        (.malformedBody, 400, "malformedBody", "the request body is malformed (chunk sizes, length or transfer encoding)"),
        (.nonCanonicalPath, 400, "nonCanonicalPath", "the path is not canonical (empty, '.' or '..' segments, or an encoded '/' or '.')"),
        (.bodyTooLarge, 413, "bodyTooLarge", "the request body exceeds the limit"),
        (.unsupportedMediaType, 415, "unsupportedMediaType", "send the body as application/json"),
        (.notFound, 404, "notFound", "no such path"),
        (.methodNotAllowed, 405, "methodNotAllowed", "method not allowed on this path"),
        (.jobNotFound, 404, "jobNotFound", "no read job with this id (never created, or purged after its retention time)"),
        (.readerNotFound("R9"), 404, "readerNotFound", "no reader named 'R9' is attached"),
        (.tooManyJobs, 429, "tooManyJobs", "too many read jobs are waiting or reading"),
        (.tooManyClients, 429, "tooManyClients", "too many clients are connected"),
        (.tooManySubscribers, 429, "tooManySubscribers", "too many event streams are open"),
        (.tooManyJobsForUser, 429, "tooManyJobsForUser", "this user has too many read jobs waiting or reading"),
        (.tooManyClientsForUser, 429, "tooManyClientsForUser", "this user has too many connections open"),
        (.tooManySubscribersForUser, 429, "tooManySubscribersForUser", "this user has too many event streams open"),
        (.shuttingDown, 503, "shuttingDown", "the daemon is shutting down"),
        (.resultNotReady, 409, "resultNotReady", "the read has not finished"),
        (.noFace, 404, "noFace", "the read has no face image"),
        (.noImage, 404, "noImage", "the read has no image of this name (see the result's images)"),
        (.faceConversionUnsupported, 415, "faceConversionUnsupported", "?format=png converts JPEG 2000 faces only; this face is displayable as stored"),
        (.faceConverterUnavailable, 501, "faceConverterUnavailable", "no JPEG 2000 decoder (opj_decompress) is installed"),
        (.faceUndecodable, 422, "faceUndecodable", "the face image could not be decoded"),
        (.invalidFormat, 400, "invalidFormat", "format must be 'png' (or omitted for the image as stored)"),
        (.canNeedsPACE, 400, "canNeedsPACE", "a CAN opens a chip with PACE only; accessPolicy 'bac' cannot use it"),
        (.peerUnknown, 403, "peerUnknown", "the caller's credentials (SO_PEERCRED) are unknown"),
        (.internalError, 500, "internalError", "internal error"),
    ]

    @Test func everyAnswerKeepsItsStatusCodeAndMessage() {
        for answer in Self.answers {
            #expect(answer.error.status.code == answer.status, "\(answer.code)")
            #expect(answer.error.code == answer.code)
            #expect(answer.error.message == answer.message, "\(answer.code)")
            // The status comes from the one table, whichever way the error was made.
            #expect(APIError.status(for: answer.error.errorCode).code == answer.status, "\(answer.code)")
        }
    }

    /// Domain errors carry no HTTP; the API layer gives each the status and message above.
    @Test(arguments: [
        (SchedulerError.shuttingDown, 503), (.peerUnknown, 403), (.invalidRequest("x"), 400), (.invalidAccessKey("x"), 400),
        (.canNeedsPACE, 400), (.readerNotFound("R"), 404), (.tooManyJobs, 429), (.tooManyJobsForUser, 429),
        (.tooManySubscribers, 429), (.tooManySubscribersForUser, 429), (.jobNotFound, 404), (.resultNotReady, 409),
        (.noFace, 404), (.noImage, 404),
    ])
    func schedulerErrorsMapToTheirHTTPAnswer(error: SchedulerError, status: Int) {
        let api = APIError(error)
        #expect(api.status.code == status)
        #expect(api.errorCode == error.errorCode)
        #expect(api.message == error.description)
        #expect(Self.answers.contains { $0.code == api.code && $0.status == status })
    }

    /// The scheduler takes a domain order and refuses with domain errors (no HTTP status in sight);
    /// the engine's own check (a CAN under `bac`) is a domain error too.
    @Test func theSchedulerRefusesOrdersWithDomainErrors() async throws {
        let daemon = try await TestDaemon.start(readers: ["R1", "EMPTY"])
        let scheduler = daemon.daemon.scheduler
        let peer = PeerCredentials(pid: 1, uid: 4242, gid: 4242)
        let key = try Specimens.order().access
        await #expect(throws: SchedulerError.canNeedsPACE) {
            try await scheduler.create(ReadJobOrder(access: .can("123456"), accessPolicy: .bac), peer: peer)
        }
        await #expect(throws: SchedulerError.invalidRequest("dataGroups: each must be a data group number 1-16")) {
            try await scheduler.create(ReadJobOrder(access: key, dataGroups: [17]), peer: peer)
        }
        await #expect(throws: SchedulerError.invalidRequest("timeoutSeconds must be a positive number")) {
            try await scheduler.create(ReadJobOrder(access: key, timeoutSeconds: -1), peer: peer)
        }
        await #expect(throws: SchedulerError.readerNotFound("nope")) {
            try await scheduler.create(ReadJobOrder(reader: "nope", access: key), peer: peer)
        }
        let waiting = try await scheduler.create(ReadJobOrder(reader: "EMPTY", access: key), peer: peer)
        await #expect(throws: SchedulerError.resultNotReady) { try await scheduler.face(id: waiting.id, peer: peer) }
        await #expect(throws: SchedulerError.resultNotReady) { try await scheduler.image(id: waiting.id, name: "portrait-1", peer: peer) }
        // Cancelled: the job keeps a domain failure, shown as the job's {error, message}.
        let cancelled = try #require(try await scheduler.cancel(id: waiting.id, peer: peer))
        #expect(ReadJobView(cancelled).error == .init(error: .cancelled, message: "cancelled by request"))
        try await daemon.stop()
    }

    /// A job that failed before its chip session reports what the API reported before.
    @Test func readerFailuresOfAJobKeepTheirCodeAndMessage() throws {
        #expect(JobFailure(ReaderError.noCard(reader: "R1")) == JobFailure(.noCard, message: "no card on the reader"))
        #expect(JobFailure(ReaderError.readerNotFound("R9")) == JobFailure(.readerNotFound, message: "no reader named 'R9' is attached"))
        #expect(JobFailure(ReaderError.timeout) == JobFailure(.timeout, message: "no card presented in time"))
        #expect(JobFailure(ReaderError.noReaders).errorCode == .noReaders)
        #expect(JobFailure(ReaderError.backendFailure(.pcsc, "gone")).errorCode == .readerServiceFailure)
        // A result error keeps its code when the registry has it; anything else is readFailed.
        #expect(JobFailure(ReadResult.ErrorInfo(code: .accessDenied, message: "m")) == JobFailure(.accessDenied, message: "m"))
        // A result's code this build does not know (a newer daemon's) reads as readFailed, its message kept.
        let unknown = try JSONDecoder().decode(ReadResult.ErrorInfo.self, from: Data(#"{"code":"made-up","message":"m"}"#.utf8))
        #expect(JobFailure(unknown) == JobFailure(.readFailed, message: "m"))
    }

    /// The Chip and Terminal Authentication reasons keep their spelling (they were raw values).
    @Test func authenticationFailureCodesKeepTheirSpelling() {
        let ca: [(ChipAuthenticationFailure, String)] = [
            (.unsupportedProtocol, "chipAuthenticationUnsupported"), (.securityInfosMalformed, "chipAuthenticationDG14Malformed"),
            (.keyIDMismatch, "chipAuthenticationKeyIDMismatch"), (.publicKeyInvalid, "chipAuthenticationPublicKeyInvalid"),
            (.domainParametersInvalid, "chipAuthenticationDomainParametersInvalid"),
            (.keyReferenceRejected, "chipAuthenticationKeyReferenceRejected"), (.chipRefused, "chipAuthenticationRefused"),
            (.chipResponseInvalid, "chipAuthenticationResponseInvalid"),
            (.keyConfirmationFailed, "chipAuthenticationKeyConfirmationFailed"),
        ]
        let ta: [(TerminalAuthenticationFailure, String)] = [
            (.trustPointUnknown, "terminalTrustPointUnknown"), (.dvNotUnderTrustPoint, "terminalDVNotUnderTrustPoint"),
            (.certificateExpired, "terminalCertificateExpired"), (.certificateNotYetValid, "terminalCertificateNotYetValid"),
            (.certificateSignatureInvalid, "terminalCertificateSignatureInvalid"), (.roleInvalid, "terminalCertificateRoleInvalid"),
            (.rightsExcludeDataGroups, "terminalRightsExcludeDataGroups"), (.certificateRejected, "terminalCertificateRejectedByChip"),
            (.signatureRejected, "terminalSignatureRejectedByChip"), (.keyUnavailable, "terminalKeyUnavailable"),
            (.efCVCAInvalid, "terminalEFCVCAInvalid"),
        ]
        #expect(ca.count == ChipAuthenticationFailure.allCases.count && ta.count == TerminalAuthenticationFailure.allCases.count)
        for (failure, code) in ca { #expect(failure.code == code) }
        for (failure, code) in ta { #expect(failure.code == code) }
        #expect(ProtocolError.chipAuthentication(.chipRefused, detail: "d").errorCode == .chipAuthenticationRefused)
        #expect(ProtocolError.transport(.timeout).errorCode == .chipTimeout)
        #expect(ProtocolError.unprotectedResponse(StatusWord(rawValue: 0x9000)).errorCode == .secureMessagingLost)
    }

    /// A connection refused before HTTP gets a problem document too, parsable and consistent.
    @Test func aRefusedConnectionIsAnsweredWithAProblemDocument() throws {
        let buffer = APIServer.refusal(.tooManyClientsForUser)
        let text = try #require(buffer.getString(at: buffer.readerIndex, length: buffer.readableBytes))
        let parts = text.components(separatedBy: "\r\n\r\n")
        #expect(parts[0].hasPrefix("HTTP/1.1 429 Too Many Requests\r\n"))
        #expect(parts[0].contains("\r\ncontent-type: application/problem+json\r\n"))
        #expect(parts[0].contains("\r\ncontent-length: \(parts[1].utf8.count)\r\n"))
        let problem = try JSONDecoder().decode(APIError.Problem.self, from: Data(parts[1].utf8))
        #expect(problem == APIError.Problem(
            error: .tooManyClientsForUser, message: "this user has too many connections open",
            type: "https://mrtdd.invalid/problems/tooManyClientsForUser", title: "Too Many Requests", status: 429,
            detail: "this user has too many connections open", instance: nil))
        // The earlier clients' shape is still there, first; the bytes are stable.
        #expect(parts[1] == #"{"error":"tooManyClientsForUser","message":"this user has too many connections open","#
            + #""type":"https://mrtdd.invalid/problems/tooManyClientsForUser","title":"Too Many Requests","status":429,"#
            + #""detail":"this user has too many connections open"}"#)
    }

    /// What a client put in a message or a path comes back as JSON strings, never as JSON structure.
    @Test func hostileTextStaysInsideItsStrings() throws {
        let name = "x\",\"error\":\"internalError\"}\u{0}\n</script>"
        let error = APIError.unknownField(name)
        let problem = try JSONDecoder().decode(APIError.Problem.self, from: Data(error.body(instance: "/v1/\"reads")))
        #expect(problem.error == .unknownField)
        #expect(problem.message == "unknown field '\(name)'" && problem.detail == problem.message)
        #expect(problem.instance == "/v1/\"reads")
        #expect(problem.status == 400 && problem.title == "Bad Request")
    }
}
