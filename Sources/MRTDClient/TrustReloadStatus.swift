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
