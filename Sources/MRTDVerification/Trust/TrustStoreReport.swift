/// What ``TrustStore/load(paths:)`` loaded and rejected. Shown by `mrtdctl trust list`.
public struct TrustStoreReport: Sendable, Equatable, Codable {
    /// One file (or LDIF entry) that contributed material.
    public struct Source: Sendable, Equatable, Codable {
        public var path: String
        /// `csca`, `documentSigner`, `masterList`, `crl`, `ldif`.
        public var kind: String
        /// Certificates added from it (duplicates not counted).
        public var certificates: Int
        public var crls: Int
    }

    /// A CSCA master list and the verdict on its own signature.
    public struct MasterList: Sendable, Equatable, Codable {
        public var path: String
        /// `verified` (signature valid and the signer chains to a CSCA in the list or the store),
        /// or the failure reason code (`sodSignatureInvalid`, `cscaNotFound`, …) when rejected.
        public var signature: String
        public var detail: String?
        /// Subject of the master list signer.
        public var signer: String?
        /// Subject of the CSCA the signer chains to.
        public var signerCSCA: String?
        /// SHA-256 (hex) of that CSCA certificate: what a trust source pins (docs/trust-update.md).
        public var signerCSCASHA256: String?
        /// Whether that CSCA came from the list itself rather than from the trust it was added to.
        public var signerCSCAFromList: Bool?
        /// Certificates in the list, and how many were new to the store.
        public var certificates: Int
        public var added: Int
        /// Country of the list's signer (its issuer), e.g. `DE`.
        public var country: String?
        /// When the list was issued: its signingTime attribute, else its signer certificate's
        /// notBefore (ISO 8601); see `issuedFrom`.
        public var issued: String?
        /// `signingTime` or `signerNotBefore`.
        public var issuedFrom: String?
        /// Whole days between `issued` and the load.
        public var ageDays: Int?
        /// `masterListTrailingBytes` (bytes after the SignedData, ignored), `masterListOlderThan180Days`.
        public var warnings: [String]?
    }

    /// One CRL and the verdict on it: only a CRL signed by a CSCA of the store is used.
    public struct CRL: Sendable, Equatable, Codable {
        public var path: String
        public var issuer: String
        public var thisUpdate: String
        public var nextUpdate: String?
        /// `current`, `outdated` (past nextUpdate: still used, results warn `crlOutdated`),
        /// `superseded` (a newer valid CRL of the same CSCA wins), or `rejected` (see `detail`).
        public var status: String
        public var detail: String?
        public var revoked: Int
    }

    /// A CSCA whose validity ends within ``TrustStoreReport/expiryHorizonDays`` of the load.
    public struct ExpiringCSCA: Sendable, Equatable, Codable {
        public var subject: String
        public var country: String
        public var notAfter: String
    }

    /// CSCAs expiring within this many days are listed in ``expiringCSCAs``.
    public static let expiryHorizonDays = 90
    /// A master list older than this many days gets the warning `masterListOlderThan180Days`.
    public static let masterListMaxAgeDays = 180

    /// Something that was not loaded, and why.
    public struct Rejection: Sendable, Equatable, Codable {
        public var path: String
        public var reason: String
    }

    /// Per-country summary of the CSCAs.
    public struct Country: Sendable, Equatable, Codable {
        public var country: String
        public var cscas: Int
        /// How many are past their notAfter at load time.
        public var expired: Int
        /// The latest notAfter among them (ISO 8601).
        public var latestExpiry: String
    }

    public var sources: [Source] = []
    public var masterLists: [MasterList] = []
    public var rejected: [Rejection] = []
    public var countries: [Country] = []
    public var cscaCount = 0
    public var documentSignerCount = 0
    public var crlCount = 0
    /// Whether TEST-ONLY material was loaded (never for production).
    public var containsTestMaterial = false
    public var loadMilliseconds = 0.0
    /// Deviation lists found (verified or rejected); absent when there were none.
    public var deviationLists: [DeviationListEntry]?
    /// Every CRL read, with its verdict (rejected ones are not used and not counted in `crlCount`).
    public var crls: [CRL] = []
    /// CSCAs expiring within 90 days of the load, soonest first.
    public var expiringCSCAs: [ExpiringCSCA] = []
    /// Used CRLs past their nextUpdate at load time.
    public var crlsPastNextUpdate = 0
    /// The nearest nextUpdate among the used CRLs (ISO 8601), nil without CRLs.
    public var nextCRLUpdate: String?
    /// When the store was loaded (ISO 8601).
    public var loadedAt: String?
    /// Conditions an operator should act on, as stable codes with a detail
    /// (`masterListOlderThan180Days: …`, `cscaExpiringSoon: …`, `crlOutdated: …`, `masterListTrailingBytes: …`).
    public var warnings: [String] = []
    /// What makes this store unfit to replace a working one: missing paths, master lists that do not
    /// verify, files that are not trust material, rejected CRLs, no CSCA at all. `mrtdctl trust check`
    /// fails on these and a reload keeps the old store.
    public var errors: [String] = []

    public init() {}
}
