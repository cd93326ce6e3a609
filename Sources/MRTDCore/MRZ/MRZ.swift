import FoundationEssentials

/// The three machine readable zone layouts: TD1 (3 × 30, Doc 9303-5), TD2 (2 × 36, Doc 9303-6),
/// TD3 (2 × 44, Doc 9303-4).
public enum MRZFormat: String, Sendable, Codable {
    case td1 = "TD1", td2 = "TD2", td3 = "TD3"

    /// Characters per line.
    public var lineLength: Int {
        switch self {
        case .td1: return 30
        case .td2: return 36
        case .td3: return 44
        }
    }

    /// Number of lines.
    public var lineCount: Int { self == .td1 ? 3 : 2 }

    /// Total characters.
    public var totalLength: Int { lineLength * lineCount }

    init?(totalLength: Int) {
        switch totalLength {
        case 90: self = .td1
        case 72: self = .td2
        case 88: self = .td3
        default: return nil
        }
    }
}

/// A date in the MRZ (`YYMMDD`), as printed and, when complete, as an ISO 8601 calendar date.
public struct MRZDate: Sendable, Equatable, Codable {
    /// The six characters as printed; fillers kept (`74<<<<` for an unknown month and day).
    public let raw: String
    /// `1974-08-12`, or `nil` when the date is incomplete or not a calendar date.
    public let iso8601: String?

    public init(raw: String, iso8601: String?) {
        self.raw = raw
        self.iso8601 = iso8601
    }

    /// A date of birth: `YY > referenceYear % 100` means 19YY, otherwise 20YY.
    static func birth(_ raw: String, referenceYear: Int) -> MRZDate {
        let ref = referenceYear % 100
        let century = referenceYear - ref
        return MRZDate(raw: raw, iso8601: iso(raw) { yy in yy > ref ? century - 100 + yy : century + yy })
    }

    /// A date of expiry: 20YY unless that is more than 50 years after `referenceYear`, then 19YY.
    static func expiry(_ raw: String, referenceYear: Int) -> MRZDate {
        MRZDate(raw: raw, iso8601: iso(raw) { yy in
            let y = 2000 + yy
            return y > referenceYear + 50 ? 1900 + yy : y
        })
    }

    private static func iso(_ raw: String, year: (Int) -> Int) -> String? {
        let chars = Array(raw)
        guard chars.count == 6, chars.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let n = chars.map { Int(String($0))! }
        let yy = n[0] * 10 + n[1], mm = n[2] * 10 + n[3], dd = n[4] * 10 + n[5]
        let y = year(yy)
        guard (1...12).contains(mm) else { return nil }
        let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][mm - 1]
        guard (1...days).contains(dd) else { return nil }
        return "\(y)-\(pad2(mm))-\(pad2(dd))"
    }

    private static func pad2(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

/// One check digit of the MRZ (Doc 9303-3 §4.9): what was printed and what the data gives.
public struct MRZCheckDigit: Sendable, Equatable, Codable {
    /// `documentNumber`, `dateOfBirth`, `dateOfExpiry`, `optionalData` or `composite`.
    public let field: String
    /// The character printed in the check digit position.
    public let found: String
    /// The check digit computed over the field.
    public let computed: String
    /// Whether `found` matches `computed` (a filler is accepted where the field is all fillers,
    /// Doc 9303-4 §4.2.2.2 note for the personal number).
    public var isValid: Bool

    public init(field: String, found: String, computed: String, isValid: Bool) {
        self.field = field
        self.found = found
        self.computed = computed
        self.isValid = isValid
    }
}

/// A parsed machine readable zone (Doc 9303-4 §4.2.2 TD3, Doc 9303-5 §4.2.2 TD1,
/// Doc 9303-6 §4.2.2 TD2).
///
/// Wrong check digits do not make parsing fail; they are reported in `checkDigits` so that the
/// caller can flag them (RELIABILITY DG1-01).
public struct MRZ: Sendable, Equatable {
    public let format: MRZFormat
    /// Document code with fillers stripped (`P`, `I`, `AC`).
    public let documentCode: String
    /// Issuing state or organization, fillers stripped (`UTO`, `D`).
    public let issuingState: String
    /// The full document number, fillers stripped; a TD1/TD2 long number (Doc 9303-5 §4.2.2
    /// note j) is joined from the number field and the optional data.
    public let documentNumber: String
    /// Primary identifier (surname), `<` turned to single spaces.
    public let primaryIdentifier: String
    /// Secondary identifier (given names), `<` turned to single spaces.
    public let secondaryIdentifier: String
    /// Nationality, fillers stripped.
    public let nationality: String
    public let dateOfBirth: MRZDate
    /// `M`, `F` or `<` (unspecified), as printed.
    public let sex: String
    public let dateOfExpiry: MRZDate
    /// Optional data (TD3 personal number; TD1 line 1 after any long-number part; TD2 line 2),
    /// fillers stripped.
    public let optionalData: String
    /// TD1 line 2 optional data, fillers stripped; `nil` for TD2 and TD3.
    public let optionalData2: String?
    /// The lines as printed.
    public let lines: [String]
    /// Every check digit of the format, in print order.
    public let checkDigits: [MRZCheckDigit]

    /// Whether every check digit matches.
    public var hasValidCheckDigits: Bool { checkDigits.allSatisfy(\.isValid) }

    /// The BAC/PACE key input: full document number, dates of birth and expiry as printed.
    public var accessKey: MRZKey {
        MRZKey(unchecked: documentNumber, dateOfBirth: dateOfBirth.raw, dateOfExpiry: dateOfExpiry.raw)
    }

    /// Parses an MRZ.
    ///
    /// Accepts the lines separated by newlines or other whitespace, or one unbroken string of
    /// 90 (TD1), 72 (TD2) or 88 (TD3) characters; surrounding whitespace is trimmed.
    /// - Parameter referenceYear: the year two-digit years are resolved against (default: now).
    /// - Throws: `MRZError` for a wrong length, a wrong line layout or a character outside `A-Z0-9<`.
    public init(_ text: String, referenceYear: Int? = nil) throws(MRZError) {
        let parts = text.split(whereSeparator: { $0.isWhitespace }).map(String.init)
        let joined = parts.joined()
        for (i, c) in joined.enumerated() where MRZ.value(of: c) == nil {
            throw .invalidCharacter(c, position: i + 1)
        }
        guard let format = MRZFormat(totalLength: joined.count) else {
            throw .wrongLength(joined.count)
        }
        let chars = Array(joined)
        if parts.count > 1 {
            guard parts.count == format.lineCount else {
                throw .wrongLineCount(parts.count, expected: format.lineCount)
            }
            for (i, p) in parts.enumerated() where p.count != format.lineLength {
                throw .wrongLineLength(line: i + 1, length: p.count, expected: format.lineLength)
            }
        }
        let lines = (0..<format.lineCount).map {
            String(chars[($0 * format.lineLength)..<(($0 + 1) * format.lineLength)])
        }
        let year = referenceYear ?? {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = .gmt
            return calendar.component(.year, from: Date())
        }()
        self.init(format: format, lines: lines.map { Array($0) }, referenceYear: year)
    }

    private init(format: MRZFormat, lines l: [[Character]], referenceYear: Int) {
        func s(_ line: Int, _ from: Int, _ to: Int) -> String { String(l[line][from...to]) }
        func c(_ line: Int, _ at: Int) -> String { String(l[line][at]) }
        var digits: [MRZCheckDigit] = []
        func check(_ field: String, _ data: String, _ found: String, fillerAllowed: Bool = false) {
            let computed = MRZ.checkDigit(data).map(String.init) ?? "?"
            let ok = found == computed
                || (fillerAllowed && found == "<" && data.allSatisfy { $0 == "<" })
            digits.append(MRZCheckDigit(field: field, found: found, computed: computed, isValid: ok))
        }

        self.format = format
        self.lines = l.map { String($0) }
        let nameLine: Int
        let sexLine: Int, sexAt: Int
        switch format {
        case .td1:
            documentCode = MRZ.strip(s(0, 0, 1))
            issuingState = MRZ.strip(s(0, 2, 4))
            let (number, numberCD, numberData, optional) = MRZ.longNumber(
                field: s(0, 5, 13), checkDigit: c(0, 14), optional: s(0, 15, 29))
            documentNumber = MRZ.strip(number)
            check("documentNumber", numberData, numberCD)
            optionalData = MRZ.strip(optional)
            dateOfBirth = .birth(s(1, 0, 5), referenceYear: referenceYear)
            check("dateOfBirth", s(1, 0, 5), c(1, 6))
            sexLine = 1; sexAt = 7
            dateOfExpiry = .expiry(s(1, 8, 13), referenceYear: referenceYear)
            check("dateOfExpiry", s(1, 8, 13), c(1, 14))
            nationality = MRZ.strip(s(1, 15, 17))
            optionalData2 = MRZ.strip(s(1, 18, 28))
            // Doc 9303-5 §4.2.2: composite over line 1 positions 6-30, line 2 positions 1-7, 9-15, 19-29.
            check("composite", s(0, 5, 29) + s(1, 0, 6) + s(1, 8, 14) + s(1, 18, 28), c(1, 29))
            nameLine = 2
        case .td2, .td3:
            documentCode = MRZ.strip(s(0, 0, 1))
            issuingState = MRZ.strip(s(0, 2, 4))
            nameLine = 0
            let last = format.lineLength - 1
            if format == .td2 {
                // Doc 9303-6 §4.2.2: a long number continues in the optional data (positions 29-35).
                let (number, numberCD, numberData, optional) = MRZ.longNumber(
                    field: s(1, 0, 8), checkDigit: c(1, 9), optional: s(1, 28, 34))
                documentNumber = MRZ.strip(number)
                check("documentNumber", numberData, numberCD)
                optionalData = MRZ.strip(optional)
            } else {
                documentNumber = MRZ.strip(s(1, 0, 8))
                check("documentNumber", s(1, 0, 8), c(1, 9))
                optionalData = MRZ.strip(s(1, 28, 41))
            }
            nationality = MRZ.strip(s(1, 10, 12))
            dateOfBirth = .birth(s(1, 13, 18), referenceYear: referenceYear)
            check("dateOfBirth", s(1, 13, 18), c(1, 19))
            sexLine = 1; sexAt = 20
            dateOfExpiry = .expiry(s(1, 21, 26), referenceYear: referenceYear)
            check("dateOfExpiry", s(1, 21, 26), c(1, 27))
            if format == .td3 {
                // Doc 9303-4 §4.2.2: the personal number check digit may be '<' when the field is empty.
                check("optionalData", s(1, 28, 41), c(1, 42), fillerAllowed: true)
            }
            // Composite: TD3 positions 1-10, 14-20, 22-43; TD2 positions 1-10, 14-20, 22-35.
            check("composite", s(1, 0, 9) + s(1, 13, 19) + s(1, 21, last - 1), c(1, last))
            optionalData2 = nil
        }
        sex = c(sexLine, sexAt)
        let name = String(l[nameLine][(format == .td1 ? 0 : 5)...])
        let (primary, secondary) = MRZ.splitName(name)
        primaryIdentifier = primary
        secondaryIdentifier = secondary
        checkDigits = digits
    }

    /// Splits a TD1/TD2 document number that may continue in the optional data.
    ///
    /// Doc 9303-5 §4.2.2 note j: when the number has more than 9 characters, the check digit
    /// position holds `<` and the optional data starts with the remaining characters followed by
    /// the check digit over the whole number, then `<`.
    /// - Returns: the full number, the printed check digit, the data the check digit covers, and
    ///   the optional data left after the number.
    static func longNumber(field: String, checkDigit: String, optional: String)
        -> (number: String, checkDigit: String, checkedData: String, optional: String)
    {
        guard checkDigit == "<", let first = optional.first, first != "<" else {
            return (field, checkDigit, field, optional)
        }
        let ext = optional.prefix { $0 != "<" }
        let rest = String(optional.dropFirst(ext.count))
        let number = MRZ.strip(field) + String(ext.dropLast())
        return (number, String(ext.last!), number, rest)
    }

    /// Removes leading and trailing fillers.
    static func strip(_ s: some StringProtocol) -> String {
        let chars = Array(s)
        guard let a = chars.firstIndex(where: { $0 != "<" }),
              let b = chars.lastIndex(where: { $0 != "<" }) else { return "" }
        return String(chars[a...b])
    }

    /// Doc 9303-3 §4.6: primary and secondary identifiers are separated by `<<`; `<` within a
    /// component separates names.
    static func splitName(_ field: String) -> (String, String) {
        func words(_ s: Substring) -> String {
            s.split(separator: "<").joined(separator: " ")
        }
        if let r = field.firstRange(of: "<<") {
            return (words(field[..<r.lowerBound]), words(field[r.upperBound...]))
        }
        return (words(field[...]), "")
    }

    /// Doc 9303-3 §4.9 character values: `0-9` as themselves, `A-Z` as 10-35, `<` as 0.
    static func value(of c: Character) -> Int? {
        guard let a = c.asciiValue else { return nil }
        switch a {
        case 0x30...0x39: return Int(a - 0x30)
        case 0x41...0x5A: return Int(a - 0x41) + 10
        case 0x3C: return 0
        default: return nil
        }
    }

    /// The check digit of `s` (Doc 9303-3 §4.9: weights 7, 3, 1 repeating, sum modulo 10),
    /// or `nil` if a character is outside `A-Z0-9<`.
    public static func checkDigit(_ s: some StringProtocol) -> Character? {
        let weights = [7, 3, 1]
        var sum = 0
        for (i, c) in s.enumerated() {
            guard let v = value(of: c) else { return nil }
            sum += v * weights[i % 3]
        }
        return Character(String(sum % 10))
    }
}

/// What can be wrong with MRZ text or key input. Descriptions never contain MRZ data.
public enum MRZError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The total number of MRZ characters is not 90, 72 or 88.
    case wrongLength(Int)
    /// Lines were given, but not as many as the format has.
    case wrongLineCount(Int, expected: Int)
    /// A line is not as long as the format requires.
    case wrongLineLength(line: Int, length: Int, expected: Int)
    /// A character outside `A-Z0-9<` at the given 1-based position (line separators not counted).
    case invalidCharacter(Character, position: Int)
    /// A key field (`documentNumber`, `dateOfBirth`, `dateOfExpiry`) is malformed.
    case invalidKeyField(String)
    /// Key input that is not `DOCNO,YYMMDD,YYMMDD`.
    case invalidKeyFormat

    public var description: String {
        switch self {
        case .wrongLength(let n):
            return "MRZ has \(n) characters; expected 90 (TD1), 72 (TD2) or 88 (TD3)"
        case .wrongLineCount(let n, let expected):
            return "MRZ has \(n) lines; its length requires \(expected)"
        case .wrongLineLength(let line, let length, let expected):
            return "MRZ line \(line) has \(length) characters; expected \(expected)"
        case .invalidCharacter(_, let position):
            // The character itself is MRZ data and stays out of the message.
            return "MRZ character at position \(position) is outside A-Z, 0-9 and '<'"
        case .invalidKeyField(let field):
            switch field {
            case "documentNumber":
                return "MRZ key field documentNumber is malformed: 1 to \(MRZKey.maxDocumentNumberLength) characters A-Z, 0-9 or '<'"
            case "dateOfBirth", "dateOfExpiry":
                return "MRZ key field \(field) is malformed: a real date as YYMMDD (month 01-12, a day the month has)"
            default:
                return "MRZ key field \(field) is malformed"
            }
        case .invalidKeyFormat:
            return "MRZ key input must be three comma-separated fields: document number, date of birth, date of expiry"
        }
    }
}

/// The MRZ information that BAC and PACE derive keys from (Doc 9303-11 §9.7.2 and §4.4.4).
///
/// `description` is redacted: the fields are personal data and must never reach a log.
public struct MRZKey: Sendable, Equatable, CustomStringConvertible {
    public let documentNumber: String
    /// `YYMMDD`.
    public let dateOfBirth: String
    /// `YYMMDD`.
    public let dateOfExpiry: String

    /// The longest document number a key may carry: 9 characters in the number field and, on a TD1
    /// card, up to 13 more in the optional data before the check digit and its filler (Doc 9303-5
    /// §4.2.2, note j).
    public static let maxDocumentNumberLength = 22

    /// Validates and upper-cases the fields: document number 1-22 characters `A-Z0-9<`, dates
    /// `YYMMDD` that exist (month 01-12, a day the month has; 29 February in years divisible by four,
    /// since the century is not written).
    public init(documentNumber: String, dateOfBirth: String, dateOfExpiry: String) throws(MRZError) {
        let number = documentNumber.uppercased()
        guard !number.isEmpty, number.count <= Self.maxDocumentNumberLength, number.allSatisfy({ MRZ.value(of: $0) != nil }) else {
            throw .invalidKeyField("documentNumber")
        }
        guard Self.isDate(dateOfBirth) else { throw .invalidKeyField("dateOfBirth") }
        guard Self.isDate(dateOfExpiry) else { throw .invalidKeyField("dateOfExpiry") }
        self.init(unchecked: number, dateOfBirth: dateOfBirth, dateOfExpiry: dateOfExpiry)
    }

    /// `YYMMDD` naming a day that exists.
    static func isDate(_ text: String) -> Bool {
        let digits = text.unicodeScalars.compactMap { ("0"..."9").contains($0) ? Int($0.value) - 48 : nil }
        guard text.unicodeScalars.count == 6, digits.count == 6 else { return false }
        let year = digits[0] * 10 + digits[1], month = digits[2] * 10 + digits[3], day = digits[4] * 10 + digits[5]
        let days: Int
        switch month {
        case 1, 3, 5, 7, 8, 10, 12: days = 31
        case 4, 6, 9, 11: days = 30
        case 2: days = year % 4 == 0 ? 29 : 28
        default: return false
        }
        return (1...days).contains(day)
    }

    /// Parses `DOCNO,YYMMDD,YYMMDD` (whitespace around fields ignored).
    public init(parsing text: String) throws(MRZError) {
        let isSpace: (Character) -> Bool = { $0.isWhitespace && !$0.isNewline }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
            .map { String($0.drop(while: isSpace).reversed().drop(while: isSpace).reversed()) }
        guard parts.count == 3 else { throw .invalidKeyFormat }
        try self.init(documentNumber: parts[0], dateOfBirth: parts[1], dateOfExpiry: parts[2])
    }

    /// For a parsed MRZ: dates as printed, possibly with fillers (RELIABILITY DG1-02).
    init(unchecked documentNumber: String, dateOfBirth: String, dateOfExpiry: String) {
        self.documentNumber = documentNumber
        self.dateOfBirth = dateOfBirth
        self.dateOfExpiry = dateOfExpiry
    }

    /// Doc 9303-11 §9.7.2: document number padded with `<` to 9 characters (longer numbers kept
    /// whole), its check digit, date of birth, check digit, date of expiry, check digit.
    public var mrzInformation: String {
        var number = documentNumber
        if number.count < 9 { number += String(repeating: "<", count: 9 - number.count) }
        func cd(_ s: String) -> String { MRZ.checkDigit(s).map(String.init) ?? "<" }
        return number + cd(number) + dateOfBirth + cd(dateOfBirth) + dateOfExpiry + cd(dateOfExpiry)
    }

    public var description: String { "MRZKey(<redacted>)" }
}

extension MRZKey: CustomDebugStringConvertible, CustomReflectable {
    public var debugDescription: String { description }
    /// No children: `dump` must not print the fields either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

extension MRZ: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Redacted: names only the format and whether the check digits hold.
    public var description: String {
        "MRZ(\(format.rawValue), <redacted>, checkDigits: \(hasValidCheckDigits ? "valid" : "invalid"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
