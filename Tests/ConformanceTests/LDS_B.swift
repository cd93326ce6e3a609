import Foundation
import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import Testing

/// Unit LDS_B, EF.DG1 and its MRZ (plan §6.2; the 28 cases moved to the ICAO test specification,
/// ICAO-P4 LDS_B_01..28: readings in notes/LDS_B.tsv). The defective DG1 of a case is hashed in a SOD
/// re-signed over it, so passive authentication passes and only the defect shows: a DG1 that does not
/// parse, whose MRZ fields break Doc 9303-3/-4 syntax or whose check digits fail is never `valid`
/// (`checks.dataGroupStructure` fails with `dg1Malformed`, `dg1FieldInvalid` or `dg1CheckDigitInvalid`);
/// the optional forms Doc 9303 allows (optional data, truncated or absent secondary identifier, an
/// empty optional field with check digit 0, unknown parts of the date of birth as fillers) read valid.
@Suite(.statusAsserted) struct LDS_B {
    /// A TD3 MRZ built from its fields, check digits computed unless a case overrides one.
    struct TD3 {
        var code = "P<", state = "D<<", name = "MUSTERMANN<<ERIKA"
        var number = "C11T002JM", nationality = "D<<", birth = "960812", sex = "F", expiry = "231031"
        var optional = ""
        var numberDigit: Character?, birthDigit: Character?, expiryDigit: Character?
        var optionalDigit: Character?, compositeDigit: Character?

        static func pad(_ s: String, _ count: Int) -> String {
            String((s + String(repeating: "<", count: count)).prefix(count))
        }

        var lines: [String] {
            let cd = { (s: String) in MRZ.checkDigit(s)! }
            let line1 = Self.pad(code, 2) + Self.pad(state, 3) + Self.pad(name, 39)
            let optionalField = Self.pad(optional, 14)
            let optionalCD = optionalDigit ?? (optionalField.allSatisfy { $0 == "<" } ? "<" : cd(optionalField))
            var line2 = Self.pad(number, 9) + String(numberDigit ?? cd(Self.pad(number, 9))) + Self.pad(nationality, 3)
            line2 += birth + String(birthDigit ?? cd(birth)) + sex + expiry + String(expiryDigit ?? cd(expiry))
            line2 += optionalField + String(optionalCD)
            let chars = Array(line2)
            let composite = String(chars[0...9]) + String(chars[13...19]) + String(chars[21...42])
            line2 += String(compositeDigit ?? cd(composite))
            return [line1, line2]
        }
        var text: String { lines.joined() }
    }

    /// The BAC chip with `mrz` in DG1 (SOD re-signed); with `key`, the chip's access key is the MRZ's own.
    static func chip(_ mrz: TD3, accessFromMRZ: Bool = false) throws -> VirtualChipConfiguration {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.dg(1)] = DG1.encode(mrz: mrz.text)
        if accessFromMRZ { chip.accessKey = try MRZ(mrz.text).accessKey }
        try Conformance.resign(&chip)
        return chip
    }

    /// The BAC chip with `dg1` as its DG1 bytes (SOD re-signed).
    static func chip(dg1: [UInt8]) throws -> VirtualChipConfiguration {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.dg(1)] = dg1
        try Conformance.resign(&chip)
        return chip
    }

    static func read(_ chip: VirtualChipConfiguration) async throws -> Conformance.Outcome {
        await Conformance.read(chip, try Conformance.options(key: .mrz(chip.accessKey)))
    }

    /// A signed, well-formed DG1 whose MRZ is accepted: valid, passive authentication passed, every
    /// check digit correct.
    static func expectAccepted(_ outcome: Conformance.Outcome, sourceLocation: SourceLocation = #_sourceLocation) {
        let result = outcome.result
        Conformance.expectStatus(result, .valid, "\(String(describing: result.checks.dataGroupStructure))", sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(result.checks.dataGroupStructure?.result == .passed, sourceLocation: sourceLocation)
        #expect(result.document?.checkDigitsValid == true, sourceLocation: sourceLocation)
    }

    /// A signed DG1 with a defect: passive authentication passes (the issuer signed it), the structure
    /// check fails with `reason`, the status is `invalid`.
    static func expectRejected(
        _ outcome: Conformance.Outcome, reason: String, detail: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let result = outcome.result
        Conformance.expectStatus(result, .invalid, sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(result.checks.dataGroupStructure?.result == .failed, sourceLocation: sourceLocation)
        #expect(result.checks.dataGroupStructure?.reason?.split(separator: ",").contains { $0 == reason } == true,
                "\(String(describing: result.checks.dataGroupStructure))", sourceLocation: sourceLocation)
        if let detail {
            #expect(result.checks.dataGroupStructure?.detail?.contains(detail) == true,
                    "\(String(describing: result.checks.dataGroupStructure))", sourceLocation: sourceLocation)
        }
    }

    /// A field of the MRZ breaks its syntax (Doc 9303-3/-4): `dg1FieldInvalid` naming the field.
    static func expectField(_ mrz: TD3, _ field: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let outcome = try await read(try chip(mrz, accessFromMRZ: true))
        expectRejected(outcome, reason: "dg1FieldInvalid", detail: field, sourceLocation: sourceLocation)
        #expect(outcome.result.document?.checkDigitsValid == true, sourceLocation: sourceLocation)
    }

    /// One check digit of the MRZ is wrong: `dg1CheckDigitInvalid`, the document's `invalidCheckDigits`
    /// name exactly that field.
    static func expectCheckDigit(_ mrz: TD3, _ field: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let outcome = try await read(try chip(mrz))
        expectRejected(outcome, reason: "dg1CheckDigitInvalid", detail: field, sourceLocation: sourceLocation)
        #expect(outcome.result.document?.checkDigitsValid == false, sourceLocation: sourceLocation)
        #expect(outcome.result.document?.invalidCheckDigits == [field], sourceLocation: sourceLocation)
    }

    /// A wrong check digit at `field` (the digit the data gives, plus 1).
    static func wrong(_ data: String) -> Character {
        Character(String((Int(String(MRZ.checkDigit(data)!))! + 1) % 10))
    }

    /// TD3 with a personal number in the optional data and its check digit: valid, the optional data
    /// reported.
    @Test func LDS_B_01() async throws {
        let outcome = try await Self.read(try Self.chip(TD3(optional: "ZE184226B")))
        Self.expectAccepted(outcome)
        #expect(outcome.result.document?.optionalData == "ZE184226B")
    }

    /// The name field filled to its last position (the secondary identifier truncated, no filler at
    /// the end): valid, split at `<<` into surname and the given names as far as printed.
    @Test func LDS_B_02() async throws {
        let outcome = try await Self.read(try Self.chip(TD3(name: "MUSTERMANN<<ERIKA<CHRISTINE<ELISABETH<MARIA")))
        Self.expectAccepted(outcome)
        #expect(outcome.result.document?.primaryIdentifier == "MUSTERMANN")
        #expect(outcome.result.document?.secondaryIdentifier == "ERIKA CHRISTINE ELISABETH M")
    }

    /// A name of a primary identifier only (no secondary identifier): valid, empty given names.
    @Test func LDS_B_03() async throws {
        let outcome = try await Self.read(try Self.chip(TD3(name: "MUSTERMANN")))
        Self.expectAccepted(outcome)
        #expect(outcome.result.document?.primaryIdentifier == "MUSTERMANN")
        #expect(outcome.result.document?.secondaryIdentifier == "")
    }

    /// Empty optional data whose check digit is `0` instead of `<` (both allowed, Doc 9303-4
    /// §4.2.2): valid, every check digit correct.
    @Test func LDS_B_04() async throws {
        let mrz = TD3(optionalDigit: "0")
        #expect(Array(mrz.lines[1])[42] == "0")
        let outcome = try await Self.read(try Self.chip(mrz))
        Self.expectAccepted(outcome)
        #expect(outcome.result.document?.optionalData == "")
    }

    /// DG1 under outer tag 62 instead of 61 (hashed as it is): DG1 does not parse
    /// (`dg1Malformed`), no document data reported; invalid.
    @Test func LDS_B_05() async throws {
        let good = DG1.encode(mrz: TD3().text)
        let outcome = try await Self.read(try Self.chip(dg1: [0x62] + good.dropFirst()))
        Self.expectRejected(outcome, reason: "dg1Malformed")
        #expect(outcome.result.document == nil)
    }

    /// DG1's outer length three bytes short of its content: the reader reads the declared length, the
    /// MRZ object runs past it: DG1 malformed and its hash not the signed one; invalid.
    @Test func LDS_B_06() async throws {
        let good = DG1.encode(mrz: TD3().text)
        let content = Array(try TLV.parse(good, expecting: 0x61).value)
        #expect(content.count == 91)
        let outcome = try await Self.read(try Self.chip(dg1: [0x61, UInt8(content.count - 3)] + content))
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.checks.dataGroupStructure?.result == .failed)
        #expect(outcome.result.checks.dataGroupStructure?.reason == "dg1Malformed")
        #expect(outcome.result.checks.passiveAuthentication.result == .failed)
        #expect(outcome.result.document == nil)
    }

    /// DG1's outer length eight bytes past the end of the file: the reader stops at the end of the
    /// file and reports DG1 truncated; the read has no MRZ and is never valid.
    @Test func LDS_B_07() async throws {
        let good = DG1.encode(mrz: TD3().text)
        let content = Array(try TLV.parse(good, expecting: 0x61).value)
        let outcome = try await Self.read(try Self.chip(dg1: [0x61, UInt8(content.count + 8)] + content))
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .fileTruncated)
        #expect(outcome.result.document == nil)
    }

    /// Document code `X<` (no document type of Doc 9303-3 starts with X): `dg1FieldInvalid` (documentCode); invalid.
    @Test func LDS_B_08() async throws { try await Self.expectField(TD3(code: "X<"), "documentCode") }

    /// Issuing state `D1<` (a digit): `dg1FieldInvalid` (issuingState); invalid.
    @Test func LDS_B_09() async throws { try await Self.expectField(TD3(state: "D1<"), "issuingState") }

    /// Name field all fillers (no primary identifier): `dg1FieldInvalid` (primaryIdentifier); invalid.
    @Test func LDS_B_10() async throws { try await Self.expectField(TD3(name: ""), "primaryIdentifier") }

    /// DG1's name (signed, check digits right, the access key the same) is not the name on the data
    /// page: with the data page's MRZ given as the operator scanned it (`ReadOptions.pageMRZ`),
    /// `mrzMatch` fails (`dg1DiffersFromScannedMRZ`, naming primaryIdentifier and no value); invalid.
    /// The same chip read against its own MRZ as the page: valid, `mrzMatch` passed.
    @Test func LDS_B_11() async throws {
        let chip = try Self.chip(TD3(name: "MUSTERFRAU<<ERIKA"))
        var options = try Conformance.options(key: .mrz(chip.accessKey))
        options.pageMRZ = try MRZ(ConformanceProfile.mrz)
        let outcome = await Conformance.read(chip, options)
        let result = outcome.result
        Conformance.expectStatus(result, .invalid)
        #expect(result.checks.passiveAuthentication.result == .passed)
        #expect(result.checks.accessKeyMatch?.result == .passed)
        #expect(result.checks.dataGroupStructure?.result == .passed)
        #expect(result.checks.mrzMatch?.result == .failed)
        #expect(result.checks.mrzMatch?.reason == "dg1DiffersFromScannedMRZ")
        #expect(result.checks.mrzMatch?.detail?.hasSuffix("in: primaryIdentifier") == true,
                "\(String(describing: result.checks.mrzMatch))")
        #expect(result.checks.mrzMatch?.detail?.contains("MUSTER") == false)

        options.pageMRZ = try MRZ(TD3(name: "MUSTERFRAU<<ERIKA").text)
        let same = await Conformance.read(chip, options).result
        Conformance.expectStatus(same, .valid)
        #expect(same.checks.mrzMatch?.result == .passed)
    }

    /// DG1's document number (with a correct check digit) differs from the data page's MRZ, whose key
    /// opened the chip: `accessKeyMatch` fails (`mrzMismatch`, documentNumber); invalid.
    @Test func LDS_B_12() async throws {
        let outcome = try await Self.read(try Self.chip(TD3(number: "C11T002JX")))
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.checks.passiveAuthentication.result == .passed)
        #expect(outcome.result.checks.accessKeyMatch?.result == .failed)
        #expect(outcome.result.checks.accessKeyMatch?.reason == "mrzMismatch")
        #expect(outcome.result.checks.accessKeyMatch?.detail?.contains("documentNumber") == true)
        #expect(outcome.result.document?.checkDigitsValid == true)
    }

    /// Document number check digit wrong: `dg1CheckDigitInvalid` (documentNumber); invalid.
    @Test func LDS_B_13() async throws {
        try await Self.expectCheckDigit(TD3(numberDigit: Self.wrong("C11T002JM")), "documentNumber")
    }

    /// Nationality `D1<` (a digit): `dg1FieldInvalid` (nationality); invalid.
    @Test func LDS_B_14() async throws { try await Self.expectField(TD3(nationality: "D1<"), "nationality") }

    /// Date of birth `96AB12` (letters; check digit consistent): `dg1FieldInvalid` (dateOfBirth); invalid.
    @Test func LDS_B_15() async throws { try await Self.expectField(TD3(birth: "96AB12"), "dateOfBirth") }

    /// Date of birth `961312` (month 13; check digit consistent): `dg1FieldInvalid` (dateOfBirth); invalid.
    @Test func LDS_B_16() async throws { try await Self.expectField(TD3(birth: "961312"), "dateOfBirth") }

    /// Date of birth check digit wrong: `dg1CheckDigitInvalid` (dateOfBirth); invalid.
    @Test func LDS_B_17() async throws {
        try await Self.expectCheckDigit(TD3(birthDigit: Self.wrong("960812")), "dateOfBirth")
    }

    /// Sex `Q` (Doc 9303-4: F, M, X or `<`): `dg1FieldInvalid` (sex); invalid.
    @Test func LDS_B_18() async throws { try await Self.expectField(TD3(sex: "Q"), "sex") }

    /// Date of expiry `23AB31` (letters; check digit consistent): `dg1FieldInvalid` (dateOfExpiry); invalid.
    @Test func LDS_B_19() async throws { try await Self.expectField(TD3(expiry: "23AB31"), "dateOfExpiry") }

    /// Date of expiry `231032` (day 32; check digit consistent): `dg1FieldInvalid` (dateOfExpiry); invalid.
    @Test func LDS_B_20() async throws { try await Self.expectField(TD3(expiry: "231032"), "dateOfExpiry") }

    /// Date of expiry check digit wrong: `dg1CheckDigitInvalid` (dateOfExpiry); invalid.
    @Test func LDS_B_21() async throws {
        try await Self.expectCheckDigit(TD3(expiryDigit: Self.wrong("231031")), "dateOfExpiry")
    }

    /// Optional data `ZE184226B` with a wrong check digit: `dg1CheckDigitInvalid` (optionalData); invalid.
    @Test func LDS_B_22() async throws {
        try await Self.expectCheckDigit(TD3(optional: "ZE184226B", optionalDigit: Self.wrong("ZE184226B<<<<<")), "optionalData")
    }

    /// Composite check digit wrong: `dg1CheckDigitInvalid` (composite); invalid.
    @Test func LDS_B_23() async throws {
        let line2 = Array(TD3().lines[1])
        let composite = String(line2[0...9]) + String(line2[13...19]) + String(line2[21...42])
        try await Self.expectCheckDigit(TD3(compositeDigit: Self.wrong(composite)), "composite")
    }

    /// DG1 without its MRZ data object (`61 00`, hashed as it is): `dg1Malformed`, no document data; invalid.
    @Test func LDS_B_24() async throws {
        let outcome = try await Self.read(try Self.chip(dg1: [0x61, 0x00]))
        Self.expectRejected(outcome, reason: "dg1Malformed")
        #expect(outcome.result.document == nil)
    }

    /// Unknown day of birth (`9608<<`, Doc 9303-3: unknown parts as fillers), the access key with the
    /// fillers as printed: valid, the raw date kept, no calendar date.
    @Test func LDS_B_25() async throws { try await Self.partialBirth("9608<<") }

    /// Unknown month of birth (`96<<12`): valid, raw date kept.
    @Test func LDS_B_26() async throws { try await Self.partialBirth("96<<12") }

    /// Unknown year of birth (`<<0812`): valid, raw date kept.
    @Test func LDS_B_27() async throws { try await Self.partialBirth("<<0812") }

    /// Date of birth entirely unknown (`<<<<<<`, check digit 0): valid; BAC's key seed carries the
    /// fillers as printed (`<<<<<<0`).
    @Test func LDS_B_28() async throws {
        try await Self.partialBirth("<<<<<<")
        let key = try MRZ(TD3(birth: "<<<<<<").text).accessKey
        #expect(key.mrzInformation == "C11T002JM4<<<<<<02310314")
    }

    static func partialBirth(_ birth: String, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let chip = try chip(TD3(birth: birth), accessFromMRZ: true)
        let outcome = try await read(chip)
        expectAccepted(outcome, sourceLocation: sourceLocation)
        #expect(outcome.result.access?.protocol == "BAC", sourceLocation: sourceLocation)
        #expect(outcome.result.document?.dateOfBirthRaw == birth, sourceLocation: sourceLocation)
        #expect(outcome.result.document?.dateOfBirth == nil, sourceLocation: sourceLocation)
        #expect(outcome.result.checks.accessKeyMatch?.result == .passed, sourceLocation: sourceLocation)
    }
}
