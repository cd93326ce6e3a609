import FoundationEssentials
public import MRTDCore
public import MRTDProtocol

/// A read job as the scheduler takes it: domain values, no JSON. The API layer decodes and checks a
/// `POST /v1/reads` body into one (`APIRequestDecoding.order`); the scheduler checks what depends
/// on its state and configuration (data groups, time limit, reader, capacity).
public struct ReadJobOrder: Sendable {
    /// Read on this reader only; any reader when nil.
    public var reader: String?
    /// The access secret (an MRZ key or a CAN already checked for form).
    public var access: AccessKey
    /// Data groups besides DG1 and DG2; nil: DG14 and DG15.
    public var dataGroups: [Int]?
    /// Narrows the daemon's access policy for this job.
    public var accessPolicy: AccessPolicy?
    /// Overall limit for waiting and reading, in seconds; capped at the daemon's read timeout.
    public var timeoutSeconds: Double?
    /// The data page's MRZ, when the order carries it (a scanner's read, or a request's
    /// full `access.mrz`): the read compares DG1 with it (`checks.mrzMatch`; a difference makes the
    /// result `invalid`). Held until the read ends.
    public var pageMRZ: MRZ?
    /// The caller's 8-byte Active Authentication challenge; nil: the reader draws one.
    public var aaChallenge: [UInt8]?
    /// Keep the files as read for the evidence bundle while the result is kept.
    public var keepEvidence: Bool

    public init(
        reader: String? = nil, access: AccessKey, dataGroups: [Int]? = nil, accessPolicy: AccessPolicy? = nil,
        timeoutSeconds: Double? = nil, pageMRZ: MRZ? = nil, aaChallenge: [UInt8]? = nil,
        keepEvidence: Bool = false
    ) {
        self.pageMRZ = pageMRZ
        self.aaChallenge = aaChallenge
        self.keepEvidence = keepEvidence
        self.reader = reader
        self.access = access
        self.dataGroups = dataGroups
        self.accessPolicy = accessPolicy
        self.timeoutSeconds = timeoutSeconds
    }
}
