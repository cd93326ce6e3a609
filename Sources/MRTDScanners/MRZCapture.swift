public import MRTDCore

/// One character the capture changed: an OCR slip between look-alike characters (O/0, I/1, B/8,
/// S/5, Z/2). Names the place and the pair, not the characters' order: that would be MRZ content.
public struct MRZCorrection: Sendable, Equatable, Codable, CustomStringConvertible {
    /// `documentNumber`, `dateOfBirth`, `dateOfExpiry`, `optionalData`, a check digit
    /// (`documentNumberCheckDigit`, …), `nationality`, `sex`, `documentCode`, `issuingState`.
    public let field: String
    /// 1-based line and column.
    public let line: Int
    public let column: Int
    /// The look-alike pair, e.g. `O/0`.
    public let pair: String

    public init(field: String, line: Int, column: Int, pair: String) {
        self.field = field
        self.line = line
        self.column = column
        self.pair = pair
    }

    public var description: String { "\(field) (line \(line), column \(column)): \(pair)" }
}

/// Why a scanned MRZ opens no chip. Descriptions carry no MRZ content.
public enum MRZCaptureError: Error, Sendable, Equatable, CustomStringConvertible, CodedError {
    /// Not an MRZ at all: wrong length, line layout or a character outside `A-Z0-9<`.
    case unreadable(MRZError)
    /// A check digit is wrong and no single look-alike correction makes every one right.
    case checkDigitsWrong(fields: [String])
    /// More than one single correction makes every check digit right: the capture cannot tell which.
    case ambiguousCorrection(candidates: Int)

    public var errorCode: ErrorCode {
        switch self {
        case .unreadable: .mrzUnreadable
        case .checkDigitsWrong: .mrzCheckDigitsWrong
        case .ambiguousCorrection: .mrzCorrectionAmbiguous
        }
    }

    public var description: String {
        switch self {
        case .unreadable(let error): "the scanned text is not an MRZ: \(error)"
        case .checkDigitsWrong(let fields):
            "check digit wrong (\(fields.joined(separator: ", "))) and no single OCR correction fixes it"
        case .ambiguousCorrection(let candidates):
            "\(candidates) different OCR corrections would each make the check digits right"
        }
    }
}

/// A scanned MRZ accepted for a chip: every check digit right (after at most one correction of a
/// character covered by a check digit, plus look-alike digits in alphabetic-only fields).
public struct CapturedMRZ: Sendable, CustomStringConvertible {
    public let mrz: MRZ
    public let corrections: [MRZCorrection]
    public var description: String { "CapturedMRZ(\(mrz.format.rawValue), <redacted>, corrections: \(corrections.count))" }
}

/// The checks a scanned MRZ passes before any chip sees a key derived from it (never guess
/// on the chip, one key per tap).
public enum MRZCapture {
    /// Look-alike pairs: letter, digit.
    static let pairs: [(letter: Character, digit: Character)] = [("O", "0"), ("I", "1"), ("B", "8"), ("S", "5"), ("Z", "2")]

    enum Kind { case numeric, alphabetic, alphanumeric, free }

    struct Position {
        var line: Int
        var column: Int
        var kind: Kind
        var field: String
        /// Whether a check digit covers the character.
        var checked: Bool
    }

    /// Validates the lines: parses them with MRZCore's parser, corrects look-alike characters as
    /// described, and accepts only an MRZ whose every check digit holds and whose numeric fields
    /// are digits (or fillers).
    public static func validate(_ scanned: ScannedMRZ, referenceYear: Int? = nil) throws(MRZCaptureError) -> CapturedMRZ {
        let lines = scanned.lines.map { $0.uppercased() }
        let parsed: MRZ
        do {
            parsed = try MRZ(lines.joined(separator: "\n"), referenceYear: referenceYear)
        } catch {
            throw .unreadable(error)
        }
        let layout = positions(parsed.format)
        var chars = parsed.lines.map { Array($0) }
        var corrections: [MRZCorrection] = []

        // Alphabetic fields no check digit covers: a look-alike digit is certainly a slip, and its
        // letter the one reading (no check digit to consult, and no key derived from it).
        for position in layout where position.kind == .alphabetic && !position.checked {
            let c = chars[position.line][position.column]
            if let pair = pairs.first(where: { $0.digit == c }) {
                chars[position.line][position.column] = pair.letter
                corrections.append(correction(position, pair))
            }
        }

        func parse(_ chars: [[Character]]) -> MRZ? {
            try? MRZ(chars.map { String($0) }.joined(separator: "\n"), referenceYear: referenceYear)
        }
        func acceptable(_ mrz: MRZ) -> Bool {
            guard mrz.hasValidCheckDigits else { return false }
            let lines = mrz.lines.map { Array($0) }
            for position in layout where position.kind == .numeric {
                let c = lines[position.line][position.column]
                if !(c.isNumber || c == "<") { return false }
            }
            return true
        }

        guard let current = parse(chars) else { throw .checkDigitsWrong(fields: []) }
        if acceptable(current) { return CapturedMRZ(mrz: current, corrections: corrections) }

        // One substitution among the characters check digits cover.
        var solutions: [(MRZ, MRZCorrection)] = []
        for position in layout where position.checked {
            let c = chars[position.line][position.column]
            var replacements: [((letter: Character, digit: Character), Character)] = []
            for pair in pairs {
                if c == pair.letter, position.kind == .numeric || position.kind == .alphanumeric { replacements.append((pair, pair.digit)) }
                if c == pair.digit, position.kind == .alphabetic || position.kind == .alphanumeric { replacements.append((pair, pair.letter)) }
            }
            for (pair, replacement) in replacements {
                var candidate = chars
                candidate[position.line][position.column] = replacement
                if let mrz = parse(candidate), acceptable(mrz) { solutions.append((mrz, correction(position, pair))) }
            }
        }
        switch solutions.count {
        case 1: return CapturedMRZ(mrz: solutions[0].0, corrections: corrections + [solutions[0].1])
        case 0: throw .checkDigitsWrong(fields: current.checkDigits.filter { !$0.isValid }.map(\.field))
        default: throw .ambiguousCorrection(candidates: solutions.count)
        }
    }

    private static func correction(_ position: Position, _ pair: (letter: Character, digit: Character)) -> MRZCorrection {
        MRZCorrection(field: position.field, line: position.line + 1, column: position.column + 1, pair: "\(pair.letter)/\(pair.digit)")
    }

    /// The character classes of each format (Doc 9303-4 §4.2.2, 9303-5 §4.2.2, 9303-6 §4.2.2).
    static func positions(_ format: MRZFormat) -> [Position] {
        var out: [Position] = []
        func add(_ line: Int, _ range: ClosedRange<Int>, _ kind: Kind, _ field: String, checked: Bool) {
            for column in range { out.append(Position(line: line, column: column, kind: kind, field: field, checked: checked)) }
        }
        switch format {
        case .td1:
            add(0, 0...1, .alphabetic, "documentCode", checked: false)
            add(0, 2...4, .alphabetic, "issuingState", checked: false)
            add(2, 0...29, .alphabetic, "name", checked: false)
            add(0, 5...13, .alphanumeric, "documentNumber", checked: true)
            add(0, 14...14, .numeric, "documentNumberCheckDigit", checked: true)
            add(0, 15...29, .alphanumeric, "optionalData", checked: true)
            add(1, 0...5, .numeric, "dateOfBirth", checked: true)
            add(1, 6...6, .numeric, "dateOfBirthCheckDigit", checked: true)
            add(1, 7...7, .alphabetic, "sex", checked: false)
            add(1, 8...13, .numeric, "dateOfExpiry", checked: true)
            add(1, 14...14, .numeric, "dateOfExpiryCheckDigit", checked: true)
            add(1, 15...17, .alphabetic, "nationality", checked: false)
            add(1, 18...28, .alphanumeric, "optionalData2", checked: true)
            add(1, 29...29, .numeric, "compositeCheckDigit", checked: true)
        case .td2, .td3:
            let last = format.lineLength - 1
            add(0, 0...1, .alphabetic, "documentCode", checked: false)
            add(0, 2...4, .alphabetic, "issuingState", checked: false)
            add(0, 5...last, .alphabetic, "name", checked: false)
            add(1, 0...8, .alphanumeric, "documentNumber", checked: true)
            add(1, 9...9, .numeric, "documentNumberCheckDigit", checked: true)
            add(1, 10...12, .alphabetic, "nationality", checked: false)
            add(1, 13...18, .numeric, "dateOfBirth", checked: true)
            add(1, 19...19, .numeric, "dateOfBirthCheckDigit", checked: true)
            add(1, 20...20, .alphabetic, "sex", checked: false)
            add(1, 21...26, .numeric, "dateOfExpiry", checked: true)
            add(1, 27...27, .numeric, "dateOfExpiryCheckDigit", checked: true)
            if format == .td3 {
                add(1, 28...41, .alphanumeric, "optionalData", checked: true)
                add(1, 42...42, .numeric, "optionalDataCheckDigit", checked: true)
            } else {
                add(1, 28...(last - 1), .alphanumeric, "optionalData", checked: true)
            }
            add(1, last...last, .numeric, "compositeCheckDigit", checked: true)
        }
        return out
    }
}
