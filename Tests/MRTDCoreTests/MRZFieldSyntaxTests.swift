import Testing
@testable import MRTDCore

/// `MRZ.fieldErrors` (Doc 9303-3/-4 field syntax; TR-03105-5.1 LDS_B_08..20, 25..28).
@Suite struct MRZFieldSyntaxTests {
    @Test func theSpecimensOfEveryFormatAreWellFormed() throws {
        for lines in [Specimen.td3, Specimen.td1, Specimen.td2, Specimen.td1Long, Specimen.td2Long] {
            #expect(try MRZ(lines.joined(separator: "\n")).fieldErrors == [], "\(lines.count)")
        }
    }

    @Test(arguments: [
        (0, 0, "X", "documentCode"), (0, 3, "1", "issuingState"), (1, 11, "1", "nationality"),
        (1, 15, "1", "dateOfBirth"), (1, 20, "Q", "sex"), (1, 23, "3", "dateOfExpiry"), (0, 14, "4", "name"),
    ] as [(Int, Int, Character, String)])
    func aMalformedTD3FieldIsNamed(line: Int, column: Int, to c: Character, field: String) throws {
        #expect(try MRZ(mutate(Specimen.td3, line: line, column: column, to: c)).fieldErrors == [field])
    }

    @Test func unknownPartsOfTheDateOfBirthAreFillersAndAnEmptyNameHasNoSurname() throws {
        for birth in ["7408<<", "74<<12", "<<0812", "<<<<<<"] {
            var chars = Array(Specimen.td3[1])
            chars.replaceSubrange(13...18, with: Array(birth))
            #expect(try MRZ(Specimen.td3[0] + String(chars)).fieldErrors == [], "\(birth)")
        }
        let noName = "P<UTO" + String(repeating: "<", count: 39)
        #expect(try MRZ(noName + Specimen.td3[1]).fieldErrors == ["primaryIdentifier"])
        #expect(try MRZ(mutate(Specimen.td1, line: 1, column: 16, to: "7")).fieldErrors == ["nationality"])
    }
}
