/// A date from DG11, DG12 or DG16, kept as the chip wrote it and parsed when it is a valid date.
///
/// Doc 9303-10 §4.7 specifies `yyyymmdd` (8 N) for the full date of birth (DG11 `5F2B`), the date
/// of issue (DG12 `5F26`) and the date a person to notify was recorded (DG16 `5F50`), and
/// `yyyymmddhhmmss` (14 N) for the personalisation time (DG12 `5F55`). Chips in the field also send
/// packed BCD (`19740812` as `19 74 08 12`), `yyyy-mm-dd` and `dd.mm.yyyy`; all are accepted, and
/// anything else keeps its raw text with no parsed value.
public struct LDSDate: Sendable, Equatable, Codable {
    /// The text as on the chip (BCD rendered as its digits), control characters removed.
    public let raw: String
    /// ISO 8601: `1974-08-12`, or `2012-04-15T10:22:05` for a date and time; `nil` when `raw` is no
    /// valid date (an unknown day `00`, a month 13, another layout).
    public let iso8601: String?

    /// Parses the value bytes of a date data object.
    public init(bytes: some Collection<UInt8>) {
        let value = Array(bytes)
        // Packed BCD: 4 bytes (date) or 7 bytes (date and time), every nibble a decimal digit.
        if (value.count == 4 || value.count == 7),
           value.allSatisfy({ $0 >> 4 <= 9 && $0 & 0x0F <= 9 }),
           !value.allSatisfy({ (0x30...0x39).contains($0) }) {
            self.init(raw: value.map { String($0 >> 4) + String($0 & 0x0F) }.joined())
            return
        }
        self.init(raw: LDSText.decode(value).text)
    }

    /// Parses a date written as text.
    public init(raw: String) {
        self.raw = raw
        self.iso8601 = LDSDate.parse(raw.trimmingCharacters())
    }

    private static func parse(_ text: String) -> String? {
        let chars = Array(text)
        func digits(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= chars.count else { return nil }
            var value = 0
            for c in chars[range] {
                guard let d = c.wholeNumberValue, c.isASCII else { return nil }
                value = value * 10 + d
            }
            return value
        }
        var year: Int?, month: Int?, day: Int?
        var time: (Int, Int, Int)?
        switch chars.count {
        case 8 where chars.allSatisfy({ $0.isASCII && $0.isNumber }):
            (year, month, day) = (digits(0..<4), digits(4..<6), digits(6..<8))
        case 14 where chars.allSatisfy({ $0.isASCII && $0.isNumber }):
            (year, month, day) = (digits(0..<4), digits(4..<6), digits(6..<8))
            guard let h = digits(8..<10), let m = digits(10..<12), let s = digits(12..<14),
                  h < 24, m < 60, s < 60 else { return nil }
            time = (h, m, s)
        case 10 where chars[4] == "-" && chars[7] == "-":
            (year, month, day) = (digits(0..<4), digits(5..<7), digits(8..<10))
        case 10 where chars[2] == "." && chars[5] == ".":
            (year, month, day) = (digits(6..<10), digits(3..<5), digits(0..<2))
        default:
            return nil
        }
        guard let year, let month, let day, year > 0, (1...12).contains(month),
              (1...daysIn(month: month, year: year)).contains(day) else { return nil }
        let date = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        guard let (h, m, s) = time else { return date }
        return date + "T" + pad(h, 2) + ":" + pad(m, 2) + ":" + pad(s, 2)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    private static func pad(_ v: Int, _ width: Int) -> String {
        let s = String(v)
        return String(repeating: "0", count: max(0, width - s.count)) + s
    }
}

/// Text in the LDS: ISO/IEC 10646 in UTF-8 (Doc 9303-10 §4.7, LDS 1.7 and later); older chips
/// wrote ISO 8859-1, which is what invalid UTF-8 is read as.
public enum LDSText {
    /// The text of a data object, without trailing NUL padding, and whether it was not valid UTF-8.
    public static func decode(_ bytes: some Collection<UInt8>) -> (text: String, notUTF8: Bool) {
        var value = Array(bytes)
        while value.last == 0 { value.removeLast() }
        if let text = String(validating: value, as: UTF8.self) {
            return (text.filter { !$0.isControlCharacter }, false)
        }
        let latin1 = String(String.UnicodeScalarView(value.map { Unicode.Scalar($0) }))
        return (latin1.filter { !$0.isControlCharacter }, true)
    }
}

extension Character {
    fileprivate var isControlCharacter: Bool {
        unicodeScalars.allSatisfy { $0.properties.generalCategory == .control } && self != "\n"
    }
}

extension String {
    fileprivate func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
