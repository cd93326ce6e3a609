/// One source of `mrtdctl trust update`: what its last attempt did, as the state file in the trust
/// directory records it (`TrustUpdateState`, `.trust-update.json`) and as the daemon shows it after
/// its last load or reload (`GET /v1/health` `trustStore.updateSources`, `/metrics`).
public struct TrustSourceStatus: Codable, Sendable, Equatable {
    /// What the last attempt did (docs/openapi.yaml `TrustSource.outcome`).
    public enum Outcome: String, Codable, Sendable, CaseIterable {
        /// What the source holds was installed.
        case installed
        /// Already current: nothing to install.
        case unchanged
        /// Did not verify, older than installed, not trust material: nothing installed.
        case refused
        /// Not fetched: nothing changed.
        case unavailable

        /// Installed, or found current.
        public var succeeded: Bool { self == .installed || self == .unchanged }
    }

    /// The URL (without user information) or file.
    public var source: String
    /// When `trust update` last tried it (ISO 8601).
    public var lastAttempt: String
    public var outcome: Outcome
    /// The error code and message of a refused or unavailable source.
    public var error: String?
    /// The last attempt that installed or confirmed the source (ISO 8601).
    public var lastSuccess: String?
    /// The newest issue date of what the source installed (CMS signingTime, else the signer's
    /// notBefore; a CRL's thisUpdate).
    public var issued: String?
    /// Files the source installed, relative to the trust directory (the state file only).
    public var files: [String]?
    /// Days since `issued` when the daemon loaded it (health only).
    public var ageDays: Int?

    public init(source: String, lastAttempt: String, outcome: Outcome) {
        self.source = source
        self.lastAttempt = lastAttempt
        self.outcome = outcome
    }
}
