import FoundationEssentials

/// RFC 3339 times in UTC (`2026-11-25T01:25:09Z`, with `.123` milliseconds when `fractional`).
enum ISOTime {
    static func string(_ date: Date, fractional: Bool = false) -> String {
        date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: fractional))
    }

    static func parse(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle())
    }
}
