import FoundationEssentials
public import MRTDCore

/// `POST /v1/reads` body. Unknown fields are refused (`unknownField`), so a misspelt option never
/// silently does nothing.
public struct ReadJobRequest: Codable, Sendable, Equatable {
    /// How to open the chip: exactly one of the three.
    public struct Access: Codable, Sendable, Equatable {
        /// The full MRZ as printed (lines joined by newlines, or concatenated); DG1 must equal it (`checks.mrzMatch`).
        public var mrz: String?
        /// The three MRZ fields BAC and PACE-MRZ use.
        public var mrzKey: MRZKeyFields?
        /// The card access number printed on the card (PACE).
        public var can: String?

        public init(mrz: String? = nil, mrzKey: MRZKeyFields? = nil, can: String? = nil) {
            self.mrz = mrz
            self.mrzKey = mrzKey
            self.can = can
        }
        public static let fields: Set<String> = ["mrz", "mrzKey", "can"]
    }

    public struct MRZKeyFields: Codable, Sendable, Equatable {
        public var documentNumber: String
        /// `YYMMDD`.
        public var dateOfBirth: String
        /// `YYMMDD`.
        public var dateOfExpiry: String
        public init(documentNumber: String, dateOfBirth: String, dateOfExpiry: String) {
            self.documentNumber = documentNumber
            self.dateOfBirth = dateOfBirth
            self.dateOfExpiry = dateOfExpiry
        }
        public static let fields: Set<String> = ["documentNumber", "dateOfBirth", "dateOfExpiry"]
    }

    /// Read on this reader only; any reader when absent.
    public var reader: String?
    public var access: Access
    /// Data groups besides DG1 and DG2 (default 14, 15).
    public var dataGroups: [Int]?
    /// Narrows the daemon's access policy for this job.
    public var accessPolicy: AccessPolicy?
    /// Overall limit for waiting and reading, at most the daemon's read timeout.
    public var timeoutSeconds: Double?
    /// The caller's Active Authentication challenge: 16 hex digits (8 bytes), a fresh nonce of the
    /// relying party (docs/evidence.md). Absent: the daemon draws its own.
    public var aaChallenge: String?
    /// Keep the files as read, for `GET /v1/reads/{id}/evidence`, as long as the result is kept.
    /// Absent: kept when `aaChallenge` is given (a relying party's fresh challenge asks for evidence),
    /// else not (the daemon holds no raw data group it was not asked for; docs/evidence.md).
    public var keepEvidence: Bool?

    public init(
        reader: String? = nil, access: Access, dataGroups: [Int]? = nil, accessPolicy: AccessPolicy? = nil,
        timeoutSeconds: Double? = nil, aaChallenge: String? = nil, keepEvidence: Bool? = nil
    ) {
        self.reader = reader
        self.access = access
        self.dataGroups = dataGroups
        self.accessPolicy = accessPolicy
        self.timeoutSeconds = timeoutSeconds
        self.aaChallenge = aaChallenge
        self.keepEvidence = keepEvidence
    }
    public static let fields: Set<String> = [
        "reader", "access", "dataGroups", "accessPolicy", "timeoutSeconds", "aaChallenge", "keepEvidence",
    ]

    /// The bytes of an `aaChallenge`: exactly 16 hex digits, else nil.
    public static func challengeBytes(_ text: String) -> [UInt8]? {
        guard text.utf8.count == 16, let bytes = [UInt8](hex: text), bytes.count == 8 else { return nil }
        return bytes
    }
}

/// The state of a read job.
public enum JobState: String, Codable, Sendable, Equatable {
    case waiting, reading, done, failed, cancelled

    public var isFinished: Bool { self == .done || self == .failed || self == .cancelled }
}

/// A read job as `GET /v1/reads/{id}` shows it.
public struct ReadJobView: Codable, Sendable, Equatable {
    public var id: String
    public var state: JobState
    /// `/v1/reads/{id}`.
    public var location: String
    /// The reader named in the request, or the one that read the card.
    public var reader: String?
    public var createdAt: String
    public var startedAt: String?
    public var finishedAt: String?
    /// When a finished job's result is purged.
    public var expiresAt: String?
    public var progress: ReadProgress?
    /// Why the job failed or was cancelled (also in `result.error` when a chip session ran).
    public var error: APIErrorBody?
    /// The result model, once the read has ended (`done`, or `failed` after a chip session).
    public var result: ReadResult?

    public init(
        id: String, state: JobState, location: String, reader: String? = nil, createdAt: String, startedAt: String? = nil,
        finishedAt: String? = nil, expiresAt: String? = nil, progress: ReadProgress? = nil, error: APIErrorBody? = nil,
        result: ReadResult? = nil
    ) {
        self.id = id
        self.state = state
        self.location = location
        self.reader = reader
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.finishedAt = finishedAt
        self.expiresAt = expiresAt
        self.progress = progress
        self.error = error
        self.result = result
    }
}

/// `GET /v1/readers` element.
public struct ReaderView: Codable, Sendable, Equatable {
    public var name: String
    public var backend: ReaderBackendKind
    public var capabilities: TransportCapabilities
    public var cardPresent: Bool
    public var busy: Bool

    public init(name: String, backend: ReaderBackendKind, capabilities: TransportCapabilities, cardPresent: Bool, busy: Bool) {
        self.name = name
        self.backend = backend
        self.capabilities = capabilities
        self.cardPresent = cardPresent
        self.busy = busy
    }
}

/// `GET /v1/readers` body.
public struct ReadersView: Codable, Sendable, Equatable {
    public var readers: [ReaderView]
    public init(readers: [ReaderView]) { self.readers = readers }
}

/// What passive authentication trusts, as `GET /v1/health` reports it.
public struct TrustStoreSummary: Codable, Sendable, Equatable {
    /// Where trust anchors are read from.
    public var paths: [String]
    /// CSCA certificates loaded (nil until a trust store is wired in).
    public var certificates: Int?
    /// Certificate revocation lists loaded.
    public var crls: Int?
    /// True when only the TEST-ONLY CSCA is trusted (`--simulate`).
    public var testOnly: Bool

    /// The shipped master lists' directory when they are trusted (`default-trust`).
    public var defaultTrust: String?
    /// Countries (two-letter, from the CSCAs' subjects) with at least one CSCA.
    public var countries: [String]?
    /// The master lists loaded, with their age.
    public var masterLists: [MasterListSummary]?
    /// CSCAs whose validity ends within 90 days.
    public var expiringCSCAs: Int?
    /// CRLs in use that are past their nextUpdate.
    public var crlsPastNextUpdate: Int?
    /// CRLs refused at load (no signing CSCA in the store, or a broken signature).
    public var rejectedCRLs: Int?
    /// The nearest nextUpdate among the CRLs in use (ISO 8601).
    public var nextCRLUpdate: String?
    /// When the store in use was loaded (ISO 8601).
    public var loadedAt: String?
    /// Conditions to act on (`masterListOlderThan180Days: …`, `crlOutdated: …`, …).
    public var warnings: [String]?
    /// Problems found when the store in use was loaded (at start they do not stop the daemon).
    public var errors: [String]?
    /// The last reload (SIGHUP): when, and whether the new store replaced the old one.
    public var lastReload: TrustReloadStatus?
    /// The sources of `mrtdctl trust update` (docs/trust-update.md): each one's last attempt,
    /// outcome and the age of what it installed, as of the last load or reload.
    public var updateSources: [TrustSourceStatus]?

    /// One master list in the store.
    public struct MasterListSummary: Codable, Sendable, Equatable {
        public var path: String
        public var country: String?
        /// `verified`, or why it was rejected.
        public var signature: String
        public var certificates: Int
        public var issued: String?
        public var ageDays: Int?

        public init(path: String, country: String?, signature: String, certificates: Int, issued: String?, ageDays: Int?) {
            self.path = path
            self.country = country
            self.signature = signature
            self.certificates = certificates
            self.issued = issued
            self.ageDays = ageDays
        }
    }

    public init(paths: [String], certificates: Int? = nil, crls: Int? = nil, testOnly: Bool = false) {
        self.paths = paths
        self.certificates = certificates
        self.crls = crls
        self.testOnly = testOnly
    }
}

/// `GET /v1/health` body.
public struct HealthView: Codable, Sendable, Equatable {
    /// `ok`, or `degraded` when no reader is attached.
    public var status: String
    public var version: String
    public var uptimeSeconds: Double
    public var readers: Int
    public var activeJobs: Int
    public var backends: [String]
    public var trustStore: TrustStoreSummary

    public init(
        status: String, version: String, uptimeSeconds: Double, readers: Int, activeJobs: Int, backends: [String],
        trustStore: TrustStoreSummary
    ) {
        self.status = status
        self.version = version
        self.uptimeSeconds = uptimeSeconds
        self.readers = readers
        self.activeJobs = activeJobs
        self.backends = backends
        self.trustStore = trustStore
    }
}

/// `POST /v1/mrz`: an MRZ read by the client's own OCR. The read it starts is the
/// caller's, bound to `reader` (any reader when absent) and waiting for the card up to the daemon's
/// pairing window.
public struct MRZPushRequest: Codable, Sendable, Equatable {
    /// The MRZ lines, separated by a newline (or one unbroken string of 90, 72 or 88 characters).
    public var mrz: String
    public var reader: String?
    public init(mrz: String, reader: String? = nil) {
        self.mrz = mrz
        self.reader = reader
    }
    public static let fields: Set<String> = ["mrz", "reader"]
}

/// What `POST /v1/mrz` answers: the job started, the MRZ's format and the corrections made (places
/// and look-alike pairs, never characters).
public struct MRZSubmission: Sendable, Codable, Equatable {
    public var job: ReadJobView
    public var format: String
    public var corrections: [EventPayload.MRZCorrection]
    public init(job: ReadJobView, format: String, corrections: [EventPayload.MRZCorrection]) {
        self.job = job
        self.format = format
        self.corrections = corrections
    }
}
