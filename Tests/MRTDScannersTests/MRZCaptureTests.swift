import Testing
import MRTDCore
@testable import MRTDScanners

extension String {
    func paddedLeft(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

@Suite struct MRZCaptureTests {
    func capture(_ lines: [String]) throws(MRZCaptureError) -> CapturedMRZ {
        try MRZCapture.validate(ScannedMRZ(lines: lines), referenceYear: 2024)
    }

    @Test(arguments: [Specimen.td3, Specimen.td1, Specimen.td2])
    func aCleanMRZPassesUnchanged(lines: [String]) throws {
        let captured = try capture(lines)
        #expect(captured.corrections.isEmpty)
        #expect(captured.mrz.lines == lines)
        #expect(captured.mrz.hasValidCheckDigits)
    }

    @Test func anOInTheDateOfBirthIsCorrectedAndReported() throws {
        // 740812 read as 74O812.
        let slipped = replacing(Specimen.td3, line: 1, column: 15, with: "O")
        let captured = try capture(slipped)
        #expect(captured.mrz.lines == Specimen.td3)
        #expect(captured.corrections == [MRZCorrection(field: "dateOfBirth", line: 2, column: 16, pair: "O/0")])
        #expect(captured.mrz.accessKey == (try MRZ(Specimen.td3.joined(separator: "\n"))).accessKey)
    }

    @Test(arguments: [
        (1, 22, Character("Z"), "dateOfExpiry", "Z/2"),  // 120415 → 1Z0415
        (1, 19, Character("S"), "dateOfBirthCheckDigit", "S/5"),  // hypothetical: check digit 2 → not S; see below
    ])
    func slipsInNumericFields(line: Int, column: Int, letter: Character, field: String, pair: String) throws {
        let original = Array(Specimen.td3[line])[column]
        let slipped = replacing(Specimen.td3, line: line, column: column, with: letter)
        // Only a letter that looks like the digit printed is a slip the capture corrects.
        let isLookAlike = MRZCapture.pairs.contains { $0.letter == letter && $0.digit == original }
        if isLookAlike {
            let captured = try capture(slipped)
            #expect(captured.mrz.lines == Specimen.td3)
            #expect(captured.corrections.map(\.field) == [field])
            #expect(captured.corrections.map(\.pair) == [pair])
        } else {
            #expect(throws: MRZCaptureError.self) { try capture(slipped) }
        }
    }

    @Test func aDocumentNumberSlipThatSeveralCorrectionsExplainIsRefused() {
        // TD1 D23145890 read as D23145B90: B→8 repairs it, and so do two other look-alike
        // substitutions in the number (its check digit and the composite weigh the number alike).
        // Three keys would open "the" document: the capture tries none.
        let slipped = replacing(Specimen.td1, line: 0, column: 11, with: "B")
        #expect(throws: MRZCaptureError.ambiguousCorrection(candidates: 3)) { try capture(slipped) }
    }

    @Test func aDigitInTheNameIsCorrectedWithoutTouchingTheKey() throws {
        // ERIKSSON read as ERIK5SON: no check digit covers the name; a digit there is a slip.
        let captured = try capture(replacing(Specimen.td3, line: 0, column: 9, with: "5"))
        #expect(captured.mrz.lines == Specimen.td3)
        #expect(captured.corrections == [MRZCorrection(field: "name", line: 1, column: 10, pair: "S/5")])
    }

    @Test func aWrongCheckDigitNoCorrectionFixesIsRejected() {
        // The date of birth's check digit 2 read as 7: no look-alike substitution makes it right.
        let wrong = replacing(Specimen.td3, line: 1, column: 19, with: "7")
        #expect(throws: MRZCaptureError.checkDigitsWrong(fields: ["dateOfBirth", "composite"])) { try capture(wrong) }
        #expect(MRZCaptureError.checkDigitsWrong(fields: ["dateOfBirth"]).errorCode == .mrzCheckDigitsWrong)
    }

    @Test func twoSlipsAreNotGuessed() {
        var wrong = replacing(Specimen.td3, line: 1, column: 15, with: "O")
        wrong = replacing(wrong, line: 1, column: 22, with: "Z")
        #expect(throws: MRZCaptureError.self) { try capture(wrong) }
    }

    @Test func notAnMRZIsUnreadable() {
        #expect(throws: MRZCaptureError.unreadable(.wrongLength(5))) { try capture(["HELLO"]) }
        #expect(MRZCaptureError.unreadable(.wrongLength(5)).errorCode == .mrzUnreadable)
    }

    /// A valid TD3 data line for a 9-character document number.
    static func td3Line2(number: String) -> String {
        let cd = String(MRZ.checkDigit(number)!)
        let optional = "ZE184226B<<<<<"
        let optionalCD = String(MRZ.checkDigit(optional)!)
        let composite = String(MRZ.checkDigit(number + cd + "7408122" + "1204159" + optional + optionalCD)!)
        return number + cd + "UTO7408122F1204159" + optional + optionalCD + composite
    }

    @Test func whenSeveralCorrectionsFitNoneIsChosen() throws {
        // Document numbers whose first digit (0, 1, 2, 5 or 8) is read as its look-alike letter: for some,
        // another look-alike substitution in the number repairs the check digits as well. The capture
        // must refuse those (two keys, one tap) and accept the others with the right fix.
        var ambiguous = 0, repaired = 0
        var seed: UInt64 = 12345
        for _ in 0..<400 {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            let digits = String((seed >> 20) % 100_000_000).paddedLeft(8)
            let first = ["0", "1", "2", "5", "8"][Int((seed >> 50) % 5)]
            let number = first + digits
            let line2 = Self.td3Line2(number: number)
            let letter: Character = ["0": "O", "1": "I", "2": "Z", "5": "S", "8": "B"][first]!
            let slipped = replacing([Specimen.td3[0], line2], line: 1, column: 0, with: letter)
            do {
                let captured = try capture(slipped)
                #expect(captured.mrz.lines[1] == line2)
                repaired += 1
            } catch {
                #expect(error == .ambiguousCorrection(candidates: 2) || error.errorCode == .mrzCorrectionAmbiguous)
                ambiguous += 1
            }
        }
        #expect(ambiguous > 0)
        #expect(repaired > 0)
    }

    @Test func descriptionsCarryNoMRZContent() throws {
        let captured = try capture(replacing(Specimen.td3, line: 1, column: 15, with: "O"))
        for text in ["\(captured)", "\(ScannedMRZ(lines: Specimen.td3))", "\(captured.corrections)",
                     "\(MRZCaptureError.checkDigitsWrong(fields: ["dateOfBirth"]))"] {
            #expect(!text.contains("L898902C3") && !text.contains("740812") && !text.contains("ERIKSSON"))
        }
    }
}
