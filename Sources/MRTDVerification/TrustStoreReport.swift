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
        /// Certificates in the list, and how many were new to the store.
        public var certificates: Int
        public var added: Int
    }

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

    public init() {}
}
