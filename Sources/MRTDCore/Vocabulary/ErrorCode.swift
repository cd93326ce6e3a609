/// The registry of stable error codes: every code the daemon's API answers with (`{"error": code}`),
/// a job's `error` and a result's `error.code` carry, and the reasons Chip and Terminal
/// Authentication report. Each error type of the project returns one of these (`CodedError`); no
/// code is spelled anywhere else.
///
/// The raw values are a contract (docs/openapi.yaml lists them all in `ErrorCode`, and a test
/// checks both ways): add codes freely, never rename or reuse one.
public enum ErrorCode: String, Sendable, Hashable, Codable, CaseIterable {
    // MARK: Requests (API layer)
    /// The body is not valid JSON.
    case malformedJSON
    /// A field has the wrong type or value, or a required one is missing.
    case invalidRequest
    /// The body names a field the request does not have.
    case unknownField
    /// The MRZ, its key fields or the CAN are not valid.
    case invalidAccessKey
    /// A CAN under accessPolicy `bac` (a CAN opens a chip with PACE only).
    case canNeedsPACE
    /// The body is broken (chunk sizes, length, transfer encoding).
    case malformedBody
    /// The path has an empty, `.` or `..` segment, or an encoded `/` or `.`.
    case nonCanonicalPath
    /// The body exceeds the limit.
    case bodyTooLarge
    /// The body is not sent as JSON.
    case unsupportedMediaType
    /// No such path.
    case notFound
    /// The path exists; the method does not.
    case methodNotAllowed
    /// `?format=` is not `png`.
    case invalidFormat
    /// An HTTP error of the server library with no more specific code.
    case httpError
    /// The caller's credentials (SO_PEERCRED) are unknown.
    case peerUnknown
    /// A failure of the daemon itself.
    case internalError

    // MARK: Jobs and capacity (scheduler, event bus, server)
    /// No read job with this id (never created, someone else's, or purged).
    case jobNotFound
    /// Too many read jobs waiting or reading.
    case tooManyJobs
    /// This user has too many read jobs waiting or reading.
    case tooManyJobsForUser
    /// Too many clients connected.
    case tooManyClients
    /// This user has too many connections open.
    case tooManyClientsForUser
    /// Too many event streams open.
    case tooManySubscribers
    /// This user has too many event streams open.
    case tooManySubscribersForUser
    /// The daemon is shutting down.
    case shuttingDown
    /// The read has not finished.
    case resultNotReady
    /// The read has no face image.
    case noFace
    /// The read has no image of this name.
    case noImage
    /// `?format=png` asked of a face that is not JPEG 2000.
    case faceConversionUnsupported
    /// No JPEG 2000 decoder is installed.
    case faceConverterUnavailable
    /// The face image could not be decoded.
    case faceUndecodable
    /// The read failed without a more specific code.
    case readFailed
    /// The job or read was cancelled (by request, or at shutdown).
    case cancelled

    // MARK: Readers
    /// No reader of any enabled backend is attached.
    case noReaders
    /// The named reader is not attached.
    case readerNotFound
    /// No card on the reader.
    case noCard
    /// No card presented in time (or the job's time limit passed).
    case timeout
    /// The reader library or service failed.
    case readerServiceFailure
    /// The card left the reader.
    case cardRemoved
    /// The reader or its service went away.
    case readerUnavailable
    /// The chip did not answer in time.
    case chipTimeout
    /// A command longer than the reader can send.
    case commandTooLong

    // MARK: Chip session
    case notAnEMRTD
    case accessDenied
    case bacNotSupported
    case authenticationFailed
    case secureMessagingMACInvalid
    case secureMessagingObjectMissing
    case secureMessagingMalformed
    case secureMessagingLost
    case fileNotFound
    case fileAccessDenied
    case commandFailed
    case fileTooLarge
    case fileTruncated
    case malformedFile
    case noProgress
    case lengthNegotiationFailed
    case responseTooLong
    case cryptoFailure
    case apduEncoding
    case paceNotSupported
    case paceSetupRefused
    case paceStepFailed
    case paceMalformedResponse
    case paceInvalidPublicKey
    case pacePublicKeyReflected
    case paceTokenInvalid

    // MARK: SecurityInfos (DG14, EF.CardAccess, EF.CardSecurity)
    case securityInfosMalformed
    case securityInfosWrongTag
    case cardSecurityMalformed
    case domainParametersMalformed

    // MARK: Chip Authentication (RELIABILITY CA-01, CA-02)
    case chipAuthenticationUnsupported
    case chipAuthenticationDG14Malformed
    case chipAuthenticationKeyIDMismatch
    case chipAuthenticationPublicKeyInvalid
    case chipAuthenticationDomainParametersInvalid
    case chipAuthenticationKeyReferenceRejected
    case chipAuthenticationRefused
    case chipAuthenticationResponseInvalid
    case chipAuthenticationKeyConfirmationFailed

    // MARK: Terminal Authentication
    case terminalTrustPointUnknown
    case terminalDVNotUnderTrustPoint
    case terminalCertificateExpired
    case terminalCertificateNotYetValid
    case terminalCertificateSignatureInvalid
    case terminalCertificateRoleInvalid
    case terminalRightsExcludeDataGroups
    case terminalCertificateRejectedByChip
    case terminalSignatureRejectedByChip
    case terminalKeyUnavailable
    case terminalEFCVCAInvalid

    // MARK: Trust updates (`mrtdctl trust update`, docs/trust-update.md)
    /// A source could not be fetched (network, DNS, HTTP status, timeout) or read.
    case trustUpdateFetchFailed
    /// A source (or an entry of its archive) is larger than the limit.
    case trustUpdateTooLarge
    /// A ZIP archive is truncated, malformed or uses what the reader does not support.
    case trustUpdateArchiveInvalid
    /// A source holds nothing recognised as a master list, deviation list or CRL.
    case trustUpdateUnrecognized
    /// A list's CMS signature, its signer's chain to a CSCA, or a CRL's signature does not verify.
    case trustUpdateNotVerified
    /// A list or CRL is older than the one installed for the same country or issuer.
    case trustUpdateOlderThanInstalled
    /// Writing into the trust directory failed (nothing of the source was installed).
    case trustUpdateInstallFailed
    /// A master list whose signer chains only to a CSCA the list itself carries: neither the
    /// current trust nor a pin of the source vouches for it.
    case trustUpdateNotAnchored
    /// A list or CRL dated (signingTime, thisUpdate) more than a small skew after now.
    case trustUpdateNotYetValid
    /// A plain `http://` source without a pin: anyone on the path could answer it.
    case trustUpdateInsecureSource
    // MARK: MRZ capture (scanners, `POST /v1/mrz`)
    /// The scanned or pushed text is not an MRZ (length, line layout, characters).
    case mrzUnreadable
    /// A check digit of the scanned MRZ is wrong and no single OCR correction fixes it.
    case mrzCheckDigitsWrong
    /// More than one OCR correction would make the scanned MRZ's check digits right.
    case mrzCorrectionAmbiguous

    // MARK: Evidence (docs/evidence.md)
    /// `aaChallenge` is not 16 hex digits (8 bytes).
    case invalidChallenge
    /// `disclose` is not a list of data group numbers 1-16.
    case invalidDisclosure
    /// The read has no evidence: it failed, or its files are no longer held.
    case evidenceNotAvailable
    /// An evidence bundle does not parse (JSON, a field, base64 or hex, size).
    case evidenceMalformed
    /// An evidence bundle's `format` is not `mrtd-evidence/1`.
    case evidenceFormatUnsupported
    /// The bundle's Active Authentication challenge is not the one the verifier expected.
    case challengeMismatch
}

extension ErrorCode {
    /// A code as a client of another build reads it: one this build does not know (a newer
    /// daemon's) is `readFailed`.
    public init(decoding raw: String) {
        self = ErrorCode(rawValue: raw) ?? .readFailed
    }
}

/// An error with a stable code from the registry. Every error type whose code reaches a client (the
/// API, a job, a result) conforms; its `code` string, where it has one, is `errorCode.rawValue`.
public protocol CodedError: Error {
    /// The stable code.
    var errorCode: ErrorCode { get }
}

extension CodedError {
    /// `errorCode` as a string (the result JSON, metrics, events, logs).
    public var code: String { errorCode.rawValue }
}

extension ReadResult.ErrorInfo {
    /// A result's error from a coded error and its (personal-data-free) description.
    public init(_ error: some CodedError & CustomStringConvertible) {
        self.init(code: error.errorCode, message: error.description)
    }
}
