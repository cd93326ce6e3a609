/// The syntax of the MRZ's fields (Doc 9303-3 §4.4-4.6, Doc 9303-4/-5/-6 §4.2.2), beyond the
/// character set and layout the parser already requires.
extension MRZ {
    /// The fields whose content breaks its syntax, in print order: `documentCode` (the first character
    /// one of A, C, I, P, V; the second a letter or `<`), `issuingState` and `nationality` (three letters
    /// or fillers, the first a letter), `primaryIdentifier` (no surname), `name` (a digit in the name),
    /// `dateOfBirth` (year, month and day each two digits or `<<`; a month 01-12, a day the month can
    /// have), `sex` (F, M, X or `<`), `dateOfExpiry` (a calendar date in digits). Empty when every field
    /// is well-formed. The names only, never the values (they are personal data).
    public var fieldErrors: [String] {
        var errors: [String] = []
        let code = Array(lines[0].prefix(2))
        if !"ACIPV".contains(code[0]) || !(code[1] == "<" || Self.isLetter(code[1])) { errors.append("documentCode") }
        if !Self.isStateCode(Array(lines[0].dropFirst(2).prefix(3))) { errors.append("issuingState") }
        let nameField: Substring = format == .td1 ? Substring(lines[2]) : lines[0].dropFirst(5)
        if primaryIdentifier.isEmpty { errors.append("primaryIdentifier") }
        if nameField.contains(where: { !($0 == "<" || Self.isLetter($0)) }) { errors.append("name") }
        let nationalityAt = format == .td1 ? (1, 15) : (1, 10)
        if !Self.isStateCode(Array(Array(lines[nationalityAt.0])[nationalityAt.1..<(nationalityAt.1 + 3)])) {
            errors.append("nationality")
        }
        if !Self.isBirthDate(Array(dateOfBirth.raw)) { errors.append("dateOfBirth") }
        if !["F", "M", "X", "<"].contains(sex) { errors.append("sex") }
        if dateOfExpiry.iso8601 == nil { errors.append("dateOfExpiry") }
        return errors
    }

    static func isLetter(_ c: Character) -> Bool { c.isASCII && c.isUppercase && c.isLetter }

    /// Doc 9303-3 §5: three letters, or a shorter code padded with fillers.
    static func isStateCode(_ chars: [Character]) -> Bool {
        guard chars.count == 3, isLetter(chars[0]) else { return false }
        let letters = chars.prefix { isLetter($0) }.count
        return chars.dropFirst(letters).allSatisfy { $0 == "<" }
    }

    /// Doc 9303-3 §4.6.1 note: an unknown year, month or day of birth is written `<<`.
    static func isBirthDate(_ chars: [Character]) -> Bool {
        guard chars.count == 6 else { return false }
        var parts: [Int?] = []
        for i in stride(from: 0, to: 6, by: 2) {
            let pair = chars[i...(i + 1)]
            if pair.allSatisfy({ $0 == "<" }) {
                parts.append(nil)
            } else if pair.allSatisfy({ $0.isASCII && $0.isNumber }) {
                parts.append(Int(String(pair)))
            } else {
                return false
            }
        }
        if let month = parts[1], !(1...12).contains(month) { return false }
        if let day = parts[2] {
            let days = parts[1].map { [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][$0 - 1] } ?? 31
            guard (1...days).contains(day) else { return false }
        }
        // A complete date must be a calendar date (29 February only in a leap year).
        if parts.allSatisfy({ $0 != nil }) { return dateOfBirthIsCalendarDate(chars) }
        return true
    }

    private static func dateOfBirthIsCalendarDate(_ chars: [Character]) -> Bool {
        MRZKey.isDate(String(chars))
    }
}
