/// The outcome of the last trust store reload (`GET /v1/health` `trustStore.lastReload`).
public struct TrustReloadStatus: Codable, Sendable, Equatable {
    /// When it was attempted (ISO 8601).
    public var at: String
    /// Whether the new store is in use; false: the previous one stays (see `error`).
    public var succeeded: Bool
    public var error: String?

    public init(at: String, succeeded: Bool, error: String? = nil) {
        self.at = at
        self.succeeded = succeeded
        self.error = error
    }
}

/// One source of `mrtdctl trust update` as its state file in the trust directory recorded it,
/// read at the daemon's last load or reload (`GET /v1/health` `trustStore.updateSources`).
public struct TrustSourceStatus: Codable, Sendable, Equatable {
    /// The URL (without user information) or file.
    public var source: String
    /// When `trust update` last tried it (ISO 8601).
    public var lastAttempt: String
    /// `installed`, `unchanged` (already current), `refused` (did not verify, older than installed,
    /// not trust material: nothing installed) or `unavailable` (not fetched: nothing changed).
    public var outcome: String
    /// The error code and message of a refused or unavailable source.
    public var error: String?
    /// The last attempt that installed or confirmed the source (ISO 8601).
    public var lastSuccess: String?
    /// The newest issue date of what the source installed (CMS signingTime, else the signer's
    /// notBefore; a CRL's thisUpdate).
    public var issued: String?
    /// Days since `issued` when the daemon loaded it.
    public var ageDays: Int?

    public init(source: String, lastAttempt: String, outcome: String) {
        self.source = source
        self.lastAttempt = lastAttempt
        self.outcome = outcome
    }
}
