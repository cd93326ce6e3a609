import Testing
@testable import MRTDCore

enum Specimen {
    static let td3 = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                      "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    static let td1 = ["I<UTOD231458907<<<<<<<<<<<<<<<",
                      "7408122F1204159UTO<<<<<<<<<<<6",
                      "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]
    static let td2 = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
                      "D231458907UTO7408122F1204159<<<<<<<6"]
    /// Doc 9303-5 note j: number "D23145890734", check digit 9 at the end of the extension.
    static let td1Long = ["I<UTOD23145890<7349<<<<<<<<<<<",
                          "7408122F1204159UTO<<<<<<<<<<<6",
                          "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]
    static let td2Long = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
                          "D23145890<UTO7408122F12041597349<<<2"]
}

/// Replaces the character at a 0-based line/column.
func mutate(_ lines: [String], line: Int, column: Int, to c: Character) -> String {
    var chars = Array(lines[line])
    chars[column] = c
    var out = lines
    out[line] = String(chars)
    return out.joined(separator: "\n")
}

@Suite struct MRZParsingTests {
    @Test func parsesTD3Specimen() throws {
        let mrz = try MRZ(Specimen.td3.joined(separator: "\n"), referenceYear: 2024)
        #expect(mrz.format == .td3)
        #expect(mrz.documentCode == "P")
        #expect(mrz.issuingState == "UTO")
        #expect(mrz.primaryIdentifier == "ERIKSSON")
        #expect(mrz.secondaryIdentifier == "ANNA MARIA")
        #expect(mrz.documentNumber == "L898902C3")
        #expect(mrz.nationality == "UTO")
        #expect(mrz.dateOfBirth == MRZDate(raw: "740812", iso8601: "1974-08-12"))
        #expect(mrz.sex == "F")
        #expect(mrz.dateOfExpiry == MRZDate(raw: "120415", iso8601: "2012-04-15"))
        #expect(mrz.optionalData == "ZE184226B")
        #expect(mrz.optionalData2 == nil)
        #expect(mrz.lines == Specimen.td3)
        #expect(mrz.checkDigits.map(\.field) == ["documentNumber", "dateOfBirth", "dateOfExpiry", "optionalData", "composite"])
        #expect(mrz.hasValidCheckDigits)
        #expect(mrz.accessKey.mrzInformation == "L898902C367408122120415" + "9")
        #expect(mrz.accessKey == (try MRZKey(documentNumber: "L898902C3", dateOfBirth: "740812", dateOfExpiry: "120415")))
    }

    @Test func parsesTD1Specimen() throws {
        let mrz = try MRZ(Specimen.td1.joined(separator: "\n"), referenceYear: 2024)
        #expect(mrz.format == .td1)
        #expect(mrz.documentCode == "I")
        #expect(mrz.documentNumber == "D23145890")
        #expect(mrz.primaryIdentifier == "ERIKSSON")
        #expect(mrz.secondaryIdentifier == "ANNA MARIA")
        #expect(mrz.dateOfBirth.iso8601 == "1974-08-12")
        #expect(mrz.dateOfExpiry.iso8601 == "2012-04-15")
        #expect(mrz.nationality == "UTO")
        #expect(mrz.optionalData == "")
        #expect(mrz.optionalData2 == "")
        #expect(mrz.checkDigits.map(\.field) == ["documentNumber", "dateOfBirth", "dateOfExpiry", "composite"])
        #expect(mrz.hasValidCheckDigits)
    }

    @Test func parsesTD2Specimen() throws {
        let mrz = try MRZ(Specimen.td2.joined(separator: " "), referenceYear: 2024)
        #expect(mrz.format == .td2)
        #expect(mrz.documentNumber == "D23145890")
        #expect(mrz.primaryIdentifier == "ERIKSSON")
        #expect(mrz.secondaryIdentifier == "ANNA MARIA")
        #expect(mrz.sex == "F")
        #expect(mrz.optionalData == "")
        #expect(mrz.optionalData2 == nil)
        #expect(mrz.hasValidCheckDigits)
    }

    @Test func joinsTD1LongDocumentNumber() throws {
        let mrz = try MRZ(Specimen.td1Long.joined(separator: "\n"), referenceYear: 2024)
        #expect(mrz.documentNumber == "D23145890734")
        #expect(mrz.optionalData == "")
        #expect(mrz.checkDigits[0] == MRZCheckDigit(field: "documentNumber", found: "9", computed: "9", isValid: true))
        #expect(mrz.hasValidCheckDigits)
        #expect(mrz.accessKey.mrzInformation.hasPrefix("D231458907349"))
    }

    @Test func joinsTD2LongDocumentNumber() throws {
        let mrz = try MRZ(Specimen.td2Long.joined(separator: "\n"), referenceYear: 2024)
        #expect(mrz.documentNumber == "D23145890734")
        #expect(mrz.hasValidCheckDigits)
    }

    @Test(arguments: [Specimen.td1, Specimen.td2, Specimen.td3])
    func acceptsUnbrokenAndWhitespaceSeparatedInput(_ lines: [String]) throws {
        let a = try MRZ(lines.joined(), referenceYear: 2024)
        let b = try MRZ("  " + lines.joined(separator: "\r\n") + "\n", referenceYear: 2024)
        let c = try MRZ(lines.joined(separator: "\t"), referenceYear: 2024)
        #expect(a == b && b == c)
        #expect(a.lines == lines)
    }

    @Test func centuryFollowsReferenceYear() throws {
        let mrz = try MRZ(Specimen.td3.joined(), referenceYear: 2070)
        // 74 > 70: 1974; expiry 2012 is not more than 50 years after 2070.
        #expect(mrz.dateOfBirth.iso8601 == "1974-08-12")
        #expect(mrz.dateOfExpiry.iso8601 == "2012-04-15")
        let early = try MRZ(Specimen.td3.joined(), referenceYear: 1950)
        // 74 > 50: 1974; 2012 is more than 50 years after 1950: 1912.
        #expect(early.dateOfExpiry.iso8601 == "1912-04-15")
        let young = try MRZ(Specimen.td3.joined(), referenceYear: 2080)
        #expect(young.dateOfBirth.iso8601 == "2074-08-12")
    }

    @Test func incompleteDateOfBirthParsesWithoutIsoDate() throws {
        // RELIABILITY DG1-02: unknown month and day printed as fillers.
        var line2 = Array(Specimen.td3[1])
        for i in 15...18 { line2[i] = "<" }
        let mrz = try MRZ(Specimen.td3[0] + "\n" + String(line2), referenceYear: 2024)
        #expect(mrz.dateOfBirth == MRZDate(raw: "74<<<<", iso8601: nil))
        #expect(mrz.accessKey.dateOfBirth == "74<<<<")
    }

    @Test func invalidCalendarDateHasNoIsoDate() {
        #expect(MRZDate.birth("740231", referenceYear: 2024).iso8601 == nil)
        #expect(MRZDate.birth("741301", referenceYear: 2024).iso8601 == nil)
        #expect(MRZDate.birth("000229", referenceYear: 2024).iso8601 == "2000-02-29")
        #expect(MRZDate.expiry("250229", referenceYear: 2024).iso8601 == nil)
    }
}

@Suite struct MRZCheckDigitTests {
    @Test(arguments: [("L898902C3", "6"), ("740812", "2"), ("120415", "9"), ("ZE184226B<<<<<", "1"), ("<<<", "0")])
    func computesDoc9303CheckDigits(_ s: String, _ digit: String) {
        #expect(MRZ.checkDigit(s).map(String.init) == digit)
    }

    @Test func checkDigitOfInvalidCharacterIsNil() {
        #expect(MRZ.checkDigit("ab1") == nil)
    }

    struct Corruption: Sendable, CustomTestStringConvertible {
        let lines: [String]; let line: Int; let column: Int; let field: String
        var testDescription: String { "\(lines.count == 3 ? "TD1" : lines[0].count == 36 ? "TD2" : "TD3") \(field)" }
    }

    static let corruptions: [Corruption] = [
        .init(lines: Specimen.td3, line: 1, column: 9, field: "documentNumber"),
        .init(lines: Specimen.td3, line: 1, column: 19, field: "dateOfBirth"),
        .init(lines: Specimen.td3, line: 1, column: 27, field: "dateOfExpiry"),
        .init(lines: Specimen.td3, line: 1, column: 42, field: "optionalData"),
        .init(lines: Specimen.td3, line: 1, column: 43, field: "composite"),
        .init(lines: Specimen.td1, line: 0, column: 14, field: "documentNumber"),
        .init(lines: Specimen.td1, line: 1, column: 6, field: "dateOfBirth"),
        .init(lines: Specimen.td1, line: 1, column: 14, field: "dateOfExpiry"),
        .init(lines: Specimen.td1, line: 1, column: 29, field: "composite"),
        .init(lines: Specimen.td1Long, line: 0, column: 18, field: "documentNumber"),
        .init(lines: Specimen.td2, line: 1, column: 9, field: "documentNumber"),
        .init(lines: Specimen.td2, line: 1, column: 19, field: "dateOfBirth"),
        .init(lines: Specimen.td2, line: 1, column: 27, field: "dateOfExpiry"),
        .init(lines: Specimen.td2, line: 1, column: 35, field: "composite"),
    ]

    @Test(arguments: corruptions)
    func wrongCheckDigitIsReportedNotThrown(_ c: Corruption) throws {
        let original = Array(c.lines[c.line])[c.column]
        let replacement: Character = original == "3" ? "4" : "3"
        let mrz = try MRZ(mutate(c.lines, line: c.line, column: c.column, to: replacement), referenceYear: 2024)
        #expect(!mrz.hasValidCheckDigits)
        let digit = try #require(mrz.checkDigits.first { $0.field == c.field })
        #expect(!digit.isValid)
        #expect(digit.found == String(replacement))
        #expect(digit.computed == String(original))
    }

    @Test func compositeCoversOptionalDataInEveryFormat() throws {
        // Changing data that only the composite covers breaks only the composite.
        let td3 = try MRZ(mutate(Specimen.td3, line: 1, column: 28, to: "X"), referenceYear: 2024)
        #expect(td3.checkDigits.filter { !$0.isValid }.map(\.field) == ["optionalData", "composite"])
        let td1 = try MRZ(mutate(Specimen.td1, line: 1, column: 20, to: "X"), referenceYear: 2024)
        #expect(td1.checkDigits.filter { !$0.isValid }.map(\.field) == ["composite"])
        let td1Line1 = try MRZ(mutate(Specimen.td1, line: 0, column: 25, to: "X"), referenceYear: 2024)
        #expect(td1Line1.checkDigits.filter { !$0.isValid }.map(\.field) == ["composite"])
        let td2 = try MRZ(mutate(Specimen.td2, line: 1, column: 30, to: "X"), referenceYear: 2024)
        #expect(td2.checkDigits.filter { !$0.isValid }.map(\.field) == ["composite"])
        // Nationality and sex are outside the composite.
        let td3Sex = try MRZ(mutate(Specimen.td3, line: 1, column: 20, to: "M"), referenceYear: 2024)
        #expect(td3Sex.hasValidCheckDigits)
    }
}

@Suite struct MRZErrorTests {
    @Test(arguments: [0, 1, 44, 89, 91, 100])
    func wrongTotalLengthThrows(_ n: Int) {
        #expect(throws: MRZError.wrongLength(n)) { try MRZ(String(repeating: "<", count: n)) }
    }

    @Test func invalidCharacterThrowsWithPosition() {
        let text = mutate(Specimen.td3, line: 1, column: 3, to: "a")
        #expect(throws: MRZError.invalidCharacter("a", position: 48)) { try MRZ(text) }
        #expect(throws: MRZError.invalidCharacter("-", position: 1)) { try MRZ("-" + Specimen.td3.joined().dropFirst()) }
    }

    @Test func linesOfWrongLengthThrow() {
        let text = String(Specimen.td3[0].dropLast()) + "\n" + Specimen.td3[1] + "<"
        #expect(throws: MRZError.wrongLineLength(line: 1, length: 43, expected: 44)) { try MRZ(text) }
        let three = Specimen.td3[0] + "\n" + String(Specimen.td3[1].prefix(20)) + "\n" + String(Specimen.td3[1].dropFirst(20))
        #expect(throws: MRZError.wrongLineCount(3, expected: 2)) { try MRZ(three) }
    }

    @Test func errorDescriptionsContainNoMRZData() {
        let errors: [MRZError] = [
            .wrongLength(43), .wrongLineCount(3, expected: 2),
            .wrongLineLength(line: 1, length: 43, expected: 44),
            .invalidCharacter("§", position: 7), .invalidKeyField("documentNumber"), .invalidKeyFormat,
        ]
        for e in errors {
            #expect(!e.description.contains("§"))
            #expect(!e.description.contains("ERIKSSON"))
            #expect(!e.description.isEmpty)
        }
    }

    @Test func mrzDescriptionIsRedacted() throws {
        let mrz = try MRZ(Specimen.td3.joined())
        for text in [String(describing: mrz), String(reflecting: mrz), "\(mrz)"] {
            #expect(!text.contains("ERIKSSON") && !text.contains("L898902C3") && !text.contains("740812"))
        }
        var dumped = ""
        dump(mrz, to: &dumped)
        #expect(!dumped.contains("ERIKSSON"))
    }
}

@Suite struct MRZKeyTests {
    @Test(arguments: [
        ("L898902C<", "690806", "940623", "L898902C<369080619406236"),
        ("D23145890734", "340712", "950712", "D23145890734934071279507122"),
        ("T22000129", "640812", "101031", "T22000129364081251010318"),
    ])
    func buildsDoc9303MRZInformation(_ number: String, _ dob: String, _ doe: String, _ expected: String) throws {
        #expect(try MRZKey(documentNumber: number, dateOfBirth: dob, dateOfExpiry: doe).mrzInformation == expected)
    }

    @Test func shortNumbersArePaddedAndLowercaseAccepted() throws {
        let key = try MRZKey(documentNumber: "l898902c", dateOfBirth: "690806", dateOfExpiry: "940623")
        #expect(key.documentNumber == "L898902C")
        #expect(key.mrzInformation == "L898902C<369080619406236")
    }

    @Test func parsesCommaSeparatedInput() throws {
        let key = try MRZKey(parsing: "T22000129, 640812 ,101031")
        #expect(key == (try MRZKey(documentNumber: "T22000129", dateOfBirth: "640812", dateOfExpiry: "101031")))
        #expect(throws: MRZError.invalidKeyFormat) { try MRZKey(parsing: "T22000129,640812") }
        #expect(throws: MRZError.invalidKeyField("dateOfExpiry")) { try MRZKey(parsing: "T22000129,640812,1010") }
    }

    @Test(arguments: [
        ("", "640812", "101031", "documentNumber"),
        ("T22-00129", "640812", "101031", "documentNumber"),
        ("T22000129", "64081A", "101031", "dateOfBirth"),
        ("T22000129", "6408123", "101031", "dateOfBirth"),
        ("T22000129", "640812", "10103", "dateOfExpiry"),
    ])
    func malformedKeyFieldsThrow(_ n: String, _ dob: String, _ doe: String, _ field: String) {
        #expect(throws: MRZError.invalidKeyField(field)) {
            try MRZKey(documentNumber: n, dateOfBirth: dob, dateOfExpiry: doe)
        }
    }

    @Test func descriptionIsRedacted() throws {
        let key = try MRZKey(documentNumber: "T22000129", dateOfBirth: "640812", dateOfExpiry: "101031")
        #expect(key.description == "MRZKey(<redacted>)")
        #expect("\(key)" == "MRZKey(<redacted>)")
        #expect(String(reflecting: key) == "MRZKey(<redacted>)")
        var dumped = ""
        dump(key, to: &dumped)
        #expect(!dumped.contains("T22000129"))
    }
}
