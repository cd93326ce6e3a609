// String helpers Foundation has and FoundationEssentials lacks: product code imports FoundationEssentials
// only, so the static binaries carry no ICU.

extension StringProtocol {
    /// The text without the leading and trailing characters that match `predicate`.
    package func trimming(while predicate: (Character) -> Bool) -> String {
        guard let first = firstIndex(where: { !predicate($0) }) else { return "" }
        let last = lastIndex(where: { !predicate($0) })!
        return String(self[first...last])
    }

    /// Without leading and trailing spaces and tabs (Unicode horizontal whitespace), as Foundation's
    /// `trimmingCharacters(in: .whitespaces)`; line breaks are kept.
    package func trimmingSpaces() -> String {
        trimming { $0.isWhitespace && !$0.isNewline }
    }

    /// Without leading and trailing whitespace and line breaks, as Foundation's
    /// `trimmingCharacters(in: .whitespacesAndNewlines)`.
    package func trimmingWhitespace() -> String {
        trimming { $0.isWhitespace }
    }
}

extension StringProtocol {
    /// RFC 3986 percent-decoding, as Foundation's `removingPercentEncoding`: nil when a `%` is not
    /// followed by two hex digits or when the decoded bytes are not UTF-8. `+` stays `+`.
    package var percentDecoded: String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var iterator = utf8.makeIterator()
        func hexValue(_ c: UInt8?) -> UInt8? {
            switch c {
            case let c? where c >= 0x30 && c <= 0x39: c - 0x30
            case let c? where c >= 0x41 && c <= 0x46: c - 0x41 + 10
            case let c? where c >= 0x61 && c <= 0x66: c - 0x61 + 10
            default: nil
            }
        }
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = hexValue(iterator.next()), let low = hexValue(iterator.next()) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

extension BinaryInteger {
    /// Decimal digits left-padded with zeros to `width`, as `String(format: "%0Nd")`; a minus sign
    /// comes first.
    package func zeroPadded(width: Int) -> String {
        let digits = String(self.magnitude)
        let padding = String(repeating: "0", count: max(0, width - digits.count - (self < 0 ? 1 : 0)))
        return (self < 0 ? "-" : "") + padding + digits
    }
}

extension Double {
    /// Fixed-point text with `decimals` digits after the point, rounded half away from zero, as
    /// `String(format: "%.Nf")` for finite values.
    package func fixed(decimals: Int) -> String {
        guard isFinite else { return String(self) }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(self) * scale).rounded(.toNearestOrAwayFromZero)
        guard scaled < 9.0e15 else { return String(self) }
        let whole = Int64(scaled)
        let unit = Int64(scale)
        let integral = String(whole / unit)
        let fraction = decimals > 0 ? "." + (whole % unit).zeroPadded(width: decimals) : ""
        return (sign == .minus ? "-" : "") + integral + fraction
    }

    /// Rounded to `places` decimal places (half away from zero), for figures in JSON: a duration in
    /// milliseconds, an uptime in seconds.
    package func rounded(toPlaces places: Int) -> Double {
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        return (self * scale).rounded() / scale
    }
}
