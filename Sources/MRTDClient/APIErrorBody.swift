public import MRTDCore

/// The JSON body every API error carries (`{"error": code, "message": text}`), as the daemon sends it
/// (`APIError.Body`) and the client reads it.
public struct APIErrorBody: Codable, Sendable, Equatable {
    /// A code this build does not know (a newer daemon's) decodes as `readFailed`.
    public var error: ErrorCode
    public var message: String

    public init(error: ErrorCode, message: String) {
        self.error = error
        self.message = message
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        error = ErrorCode(decoding: try container.decode(String.self, forKey: .error))
        message = try container.decode(String.self, forKey: .message)
    }
}
