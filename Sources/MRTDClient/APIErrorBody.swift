/// The JSON body every API error carries (`{"error": code, "message": text}`), as the daemon sends it
/// (`APIError.Body`) and the client reads it.
public struct APIErrorBody: Codable, Sendable, Equatable {
    public var error: String
    public var message: String

    public init(error: String, message: String) {
        self.error = error
        self.message = message
    }
}
