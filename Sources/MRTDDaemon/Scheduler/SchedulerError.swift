import FoundationEssentials
public import MRTDCore
import MRTDProtocol
import MRTDReaders

/// Why the scheduler or the event bus refused an order or a look-up. Domain errors: the API layer
/// alone turns them into HTTP answers (`APIError`). Descriptions carry no personal data.
public enum SchedulerError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// The daemon is shutting down.
    case shuttingDown
    /// The caller's credentials are unknown (a job without an owner would be everyone's).
    case peerUnknown
    /// A value of the order is out of range.
    case invalidRequest(String)
    /// The access secret does not fit (MRZ, key fields, CAN form).
    case invalidAccessKey(String)
    /// A CAN under accessPolicy `bac` (BSI TR-03110-2: a CAN is a PACE password only).
    case canNeedsPACE
    /// The named reader is not attached.
    case readerNotFound(String)
    /// Too many jobs waiting or reading.
    case tooManyJobs
    /// This user has too many jobs waiting or reading.
    case tooManyJobsForUser
    /// Too many event streams.
    case tooManySubscribers
    /// This user has too many event streams.
    case tooManySubscribersForUser
    /// No job with this id visible to the caller.
    case jobNotFound
    /// The job has not finished.
    case resultNotReady
    /// The read has no face image.
    case noFace
    /// The read has no image of this name.
    case noImage

    public var errorCode: ErrorCode {
        switch self {
        case .shuttingDown: .shuttingDown
        case .peerUnknown: .peerUnknown
        case .invalidRequest: .invalidRequest
        case .invalidAccessKey: .invalidAccessKey
        case .canNeedsPACE: .canNeedsPACE
        case .readerNotFound: .readerNotFound
        case .tooManyJobs: .tooManyJobs
        case .tooManyJobsForUser: .tooManyJobsForUser
        case .tooManySubscribers: .tooManySubscribers
        case .tooManySubscribersForUser: .tooManySubscribersForUser
        case .jobNotFound: .jobNotFound
        case .resultNotReady: .resultNotReady
        case .noFace: .noFace
        case .noImage: .noImage
        }
    }

    public var description: String {
        switch self {
        case .shuttingDown: "the daemon is shutting down"
        case .peerUnknown: "the caller's credentials (SO_PEERCRED) are unknown"
        case .invalidRequest(let why): why
        case .invalidAccessKey(let why): "the access key is not valid: \(why)"
        case .canNeedsPACE: "a CAN opens a chip with PACE only; accessPolicy 'bac' cannot use it"
        case .readerNotFound(let name): "no reader named '\(name)' is attached"
        case .tooManyJobs: "too many read jobs are waiting or reading"
        case .tooManyJobsForUser: "this user has too many read jobs waiting or reading"
        case .tooManySubscribers: "too many event streams are open"
        case .tooManySubscribersForUser: "this user has too many event streams open"
        case .jobNotFound: "no read job with this id (never created, or purged after its retention time)"
        case .resultNotReady: "the read has not finished"
        case .noFace: "the read has no face image"
        case .noImage: "the read has no image of this name (see the result's images)"
        }
    }
}

/// Why a job failed or was cancelled, as its state keeps it (the job's `error`).
public struct JobFailure: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    public var errorCode: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, message: String) {
        self.errorCode = code
        self.message = message
    }

    public var description: String { message }

    /// A failed chip session's error.
    init(_ info: ReadResult.ErrorInfo) {
        self.init(info.code, message: info.message)
    }
}

extension JobFailure {
    /// A job that failed before its chip session (no reader, no card, reader service).
    init(_ error: ReaderError) {
        switch error {
        case .readerNotFound: self.init(error.errorCode, message: SchedulerError.readerNotFound(error.readerName).description)
        case .noCard: self.init(error.errorCode, message: "no card on the reader")
        case .noReaders, .timeout, .backendFailure: self.init(error.errorCode, message: error.description)
        }
    }
}

extension ReaderError {
    fileprivate var readerName: String {
        if case .readerNotFound(let name) = self { return name }
        return ""
    }
}
