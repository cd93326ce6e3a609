/// Event ids of `GET /v1/events` (the SSE `id:`, what `Last-Event-ID` carries): decimal digits that
/// fit 64 bits. One rule for the daemon reading the header and `mrtdctl events --last-event-id`.
public enum EventID {
    /// The id `text` spells, or nil when it is not 1 to 20 decimal digits within `UInt64`.
    public static func parse(_ text: String) -> UInt64? {
        guard !text.isEmpty, text.utf8.count <= 20,
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }) else { return nil }
        return UInt64(text)
    }
}
