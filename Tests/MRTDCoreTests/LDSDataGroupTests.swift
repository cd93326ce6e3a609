import Testing

@testable import MRTDCore

/// DG5, DG7, DG11, DG12, DG13, DG16 built field by field (Doc 9303-10 §4.7), and what malformed
/// ones do: a typed error for a broken structure, warnings (never values) for the rest.
@Suite struct LDSDataGroupTests {
    static func text(_ tag: UInt, _ value: String) -> [UInt8] { TLV.encode(tag: tag, value: Array(value.utf8)) }
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0xFF, 0xD9]

    static func dg11Objects() -> [[UInt8]] {
        [
            text(0x5F0E, "SMITH<<JOHN<J"),
            TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x02, value: [2]), text(0x5F0F, "SMITH<<JACK"),
                                             text(0x5F0F, "SCHMIDT<<JOHANN")]),
            text(0x5F10, "123456789"),
            text(0x5F2B, "19710319"),
            text(0x5F11, "ANYTOWN<MN"),
            text(0x5F42, "123 MAPLE RD<ANYTOWN<MN"),
            text(0x5F12, "1-612-555-1212"),
            text(0x5F13, "TRAVEL AGENT"),
            text(0x5F14, "DR"),
            text(0x5F15, "SUMMARY"),
            TLV.encode(tag: 0x5F16, value: jpeg),
            text(0x5F17, "Z1234567<Y7654321"),
            text(0x5F18, "CUSTODY"),
        ]
    }

    @Test func dg11EveryFieldFromARecordBuiltFieldByField() throws {
        let dg11 = try DG11(rawBytes: LDSFile.dg(11).encodeTemplate(objects: Self.dg11Objects()))
        #expect(dg11.fullName == "SMITH<<JOHN<J")
        #expect(dg11.otherNames == ["SMITH<<JACK", "SCHMIDT<<JOHANN"])
        #expect(dg11.personalNumber == "123456789")
        #expect(dg11.fullDateOfBirth == LDSDate(raw: "19710319"))
        #expect(dg11.fullDateOfBirth?.iso8601 == "1971-03-19")
        #expect(dg11.placeOfBirth == "ANYTOWN<MN")
        #expect(dg11.permanentAddress == "123 MAPLE RD<ANYTOWN<MN")
        #expect(dg11.telephone == "1-612-555-1212")
        #expect(dg11.profession == "TRAVEL AGENT")
        #expect(dg11.title == "DR")
        #expect(dg11.personalSummary == "SUMMARY")
        #expect(dg11.proofOfCitizenship?.imageData == Self.jpeg)
        #expect(dg11.proofOfCitizenship?.mimeType == "image/jpeg")
        #expect(dg11.otherValidTravelDocumentNumbers == ["Z1234567", "Y7654321"])
        #expect(dg11.custodyInformation == "CUSTODY")
        #expect(dg11.warnings.isEmpty, "\(dg11.warnings)")
    }

    @Test func dg11AcceptsOtherNamesOutsideTheirTemplateAndUTF8() throws {
        let bytes = LDSFile.dg(11).encodeTemplate(objects: [
            Self.text(0x5F0E, "MÜLLER<<JÖRG"), Self.text(0x5F0F, "MUELLER<<JOERG"),
        ])
        let dg11 = try DG11(rawBytes: bytes)
        #expect(dg11.fullName == "MÜLLER<<JÖRG")
        #expect(dg11.otherNames == ["MUELLER<<JOERG"])
        #expect(dg11.warnings.isEmpty)
    }

    @Test func dg11UnknownObjectsMissingTagListAndLatin1AreWarningsWithoutValues() throws {
        let bytes = TLV.encode(tag: 0x6B, children: [
            TLV.encode(tag: 0x5F10, value: Array("SECRET42".utf8)),
            TLV.encode(tag: 0x5F0E, value: [0x4D, 0xDC, 0x4C]),  // "MÜL" in ISO 8859-1
            TLV.encode(tag: 0x5F7F, value: Array("SECRET43".utf8)),
        ])
        let dg11 = try DG11(rawBytes: bytes)
        #expect(dg11.personalNumber == "SECRET42")
        #expect(dg11.fullName == "MÜL")
        #expect(dg11.warnings.contains("DG11: tag list (0x5C) missing"))
        #expect(dg11.warnings.contains("DG11: unknown data object 0x5F7F, ignored"))
        #expect(dg11.warnings.contains("DG11: data object 0x5F0E is not UTF-8; read as ISO 8859-1"))
        #expect(!dg11.warnings.joined().contains("SECRET"))
    }

    @Test func dg11TagListNamingAnAbsentObjectIsAWarning() throws {
        let bytes = TLV.encode(tag: 0x6B, children: [
            TLV.encode(tag: 0x5C, value: [0x5F, 0x0E, 0x5F, 0x10]), Self.text(0x5F0E, "A<<B"),
        ])
        #expect(try DG11(rawBytes: bytes).warnings == ["DG11: tag list names 0x5F10, which is absent"])
    }

    @Test func otherNamesCountMismatchIsAWarning() throws {
        let bytes = LDSFile.dg(11).encodeTemplate(objects: [
            TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x02, value: [3]), Self.text(0x5F0F, "A<<B")]),
        ])
        let dg11 = try DG11(rawBytes: bytes)
        #expect(dg11.otherNames == ["A<<B"])
        #expect(dg11.warnings == ["DG11: template 0xA0 declares 3 entries, holds 1"])
    }

    struct Malformed: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    static let good11 = LDSFile.dg(11).encodeTemplate(objects: dg11Objects())
    static let good12 = LDSFile.dg(12).encodeTemplate(objects: [text(0x5F19, "AUTHORITY")])
    static let malformed: [Malformed] = [
        .init(name: "truncated", bytes: Array(good11.dropLast(5))),
        .init(name: "wrong outer tag", bytes: [0x6C] + good11.dropFirst()),
        .init(name: "bad length", bytes: [0x6B, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x00]),
        .init(name: "inner length past the end", bytes: [0x6B, 0x05, 0x5F, 0x0E, 0x09, 0x41, 0x42]),
        .init(name: "empty", bytes: []),
        .init(name: "trailing bytes", bytes: good11 + [0x00]),
    ]

    @Test(arguments: malformed)
    func malformedDG11ThrowsATypedError(_ m: Malformed) {
        #expect(throws: LDSError.self) { try DG11(rawBytes: m.bytes) }
    }

    @Test func wrongOuterTagNamesBothTags() {
        #expect(throws: LDSError.wrongOuterTag(.dg(12), expected: 0x6C, found: 0x6B)) {
            try DG12(rawBytes: Self.good11)
        }
    }

    @Test func dg12EveryFieldFromARecordBuiltFieldByField() throws {
        let jp2: [UInt8] = FaceImage.jp2Magic + [0, 0, 0, 0]
        let bytes = LDSFile.dg(12).encodeTemplate(objects: [
            Self.text(0x5F19, "DEPT OF STATE"),
            Self.text(0x5F26, "20020531"),
            TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x02, value: [1]), Self.text(0x5F1A, "SMITH<<BRENDA")]),
            Self.text(0x5F1B, "ENDORSED"),
            Self.text(0x5F1C, "TAX"),
            TLV.encode(tag: 0x5F1D, value: Self.jpeg),
            TLV.encode(tag: 0x5F1E, value: jp2),
            Self.text(0x5F55, "20020531142000"),
            Self.text(0x5F56, "SN-77"),
        ])
        let dg12 = try DG12(rawBytes: bytes)
        #expect(dg12.issuingAuthority == "DEPT OF STATE")
        #expect(dg12.dateOfIssue?.iso8601 == "2002-05-31")
        #expect(dg12.otherPersons == ["SMITH<<BRENDA"])
        #expect(dg12.endorsementsAndObservations == "ENDORSED")
        #expect(dg12.taxOrExitRequirements == "TAX")
        #expect(dg12.frontImage?.mimeType == "image/jpeg")
        #expect(dg12.rearImage?.mimeType == "image/jp2")
        #expect(dg12.personalizationTime?.iso8601 == "2002-05-31T14:20:00")
        #expect(dg12.personalizationDeviceSerialNumber == "SN-77")
        #expect(dg12.warnings.isEmpty, "\(dg12.warnings)")
    }

    @Test(arguments: [
        ("19740812", "1974-08-12"), ("1974-08-12", "1974-08-12"), ("12.08.1974", "1974-08-12"),
        ("20000229", "2000-02-29"), ("20140415235959", "2014-04-15T23:59:59"),
    ])
    func datesInTheFormsChipsUse(_ raw: String, _ iso: String) {
        #expect(LDSDate(raw: raw).iso8601 == iso)
        #expect(LDSDate(raw: raw).raw == raw)
    }

    @Test(arguments: ["19740800", "19741312", "19000229", "1974081", "AUG 1974", "", "20140415246000"])
    func invalidDatesKeepTheirTextWithoutAParsedValue(_ raw: String) {
        #expect(LDSDate(raw: raw).iso8601 == nil)
        #expect(LDSDate(raw: raw).raw == raw)
    }

    @Test func packedBCDDatesAreRead() {
        #expect(LDSDate(bytes: [0x19, 0x74, 0x08, 0x12]) == LDSDate(raw: "19740812"))
        #expect(LDSDate(bytes: [0x20, 0x07, 0x04, 0x15, 0x10, 0x22, 0x05]).iso8601 == "2007-04-15T10:22:05")
    }

    @Test func dg16PersonsToNotify() throws {
        let person = { (name: String) in
            TLV.encode(tag: 0xA1, children: [
                Self.text(0x5F50, "20050101"), Self.text(0x5F51, name), Self.text(0x5F52, "555"),
                Self.text(0x5F53, "1 ROAD<TOWN"),
            ])
        }
        let bytes = TLV.encode(tag: 0x70, children: [TLV.encode(tag: 0x02, value: [2]), person("A<<B"), person("C<<D")])
        let dg16 = try DG16(rawBytes: bytes)
        #expect(dg16.persons.map(\.name) == ["A<<B", "C<<D"])
        #expect(dg16.persons.first?.dateRecorded?.iso8601 == "2005-01-01")
        #expect(dg16.persons.first?.address == "1 ROAD<TOWN")
        #expect(dg16.warnings.isEmpty)
    }

    @Test func dg16CountMismatchAndUnknownObjectsAreWarnings() throws {
        let bytes = TLV.encode(tag: 0x70, children: [
            TLV.encode(tag: 0x02, value: [3]),
            TLV.encode(tag: 0xA1, children: [Self.text(0x5F51, "A<<B"), Self.text(0x5F60, "X")]),
            Self.text(0x5F51, "STRAY"),
        ])
        let dg16 = try DG16(rawBytes: bytes)
        #expect(dg16.persons.count == 1)
        #expect(dg16.warnings.contains("DG16 declares 3 persons to notify, holds 1"))
        #expect(dg16.warnings.contains("DG16: unknown data object 0x5F60, ignored"))
        #expect(dg16.warnings.contains("DG16: unknown data object 0x5F51, ignored"))
    }

    @Test func dg5AndDG7DisplayedImages() throws {
        let dg5 = try DisplayedImages(rawBytes: DisplayedImages.encode(file: .dg(5), images: [Self.jpeg, Self.jpeg]),
                                      file: .dg(5))
        #expect(dg5.images.count == 2)
        #expect(dg5.images.allSatisfy { $0.imageData == Self.jpeg && $0.mimeType == "image/jpeg" })
        #expect(dg5.warnings.isEmpty)
        let dg7 = try DisplayedImages(rawBytes: DisplayedImages.encode(file: .dg(7), images: [Self.jpeg]), file: .dg(7))
        #expect(dg7.images.count == 1)
        #expect(dg7.rawBytes.first == 0x67)
    }

    @Test func displayedImagesMalformed() throws {
        // DG7 image under DG5's tag: no signature present.
        let wrongInner = TLV.encode(tag: 0x67, children: [TLV.encode(tag: 0x02, value: [1]), TLV.encode(tag: 0x5F40, value: Self.jpeg)])
        #expect(throws: LDSError.missingDataObject(.dg(7), tag: 0x5F43)) {
            try DisplayedImages(rawBytes: wrongInner, file: .dg(7))
        }
        let counted = TLV.encode(tag: 0x65, children: [TLV.encode(tag: 0x02, value: [2]), TLV.encode(tag: 0x5F40, value: [1, 2, 3])])
        let dg5 = try DisplayedImages(rawBytes: counted, file: .dg(5))
        #expect(dg5.warnings == ["DG5 declares 2 images, holds 1", "DG5: an image is neither JPEG nor JPEG 2000"])
        #expect(throws: LDSError.self) {
            try DisplayedImages(rawBytes: Array(DisplayedImages.encode(file: .dg(5), images: [Self.jpeg]).dropLast()), file: .dg(5))
        }
        #expect(throws: LDSError.self) { try DisplayedImages(rawBytes: counted, file: .dg(11)) }
    }

    @Test func dg13IsKeptOpaque() throws {
        let dg13 = try DG13(rawBytes: TLV.encode(tag: 0x6D, value: [1, 2, 3, 4]))
        #expect(dg13.contentLength == 4)
        #expect(throws: LDSError.self) { try DG13(rawBytes: TLV.encode(tag: 0x6E, value: [1])) }
        // Issuer content that is not BER-TLV is still kept.
        #expect(try DG13(rawBytes: TLV.encode(tag: 0x6D, value: [0x5F])).contentLength == 1)
        #expect(throws: LDSError.self) { try DG13(rawBytes: [0x6D, 0x05, 0x01]) }
        #expect(throws: LDSError.self) { try DG13(rawBytes: [0x6D, 0x01, 0x01, 0x00]) }
    }

    @Test func tagListsOfMultiByteTags() {
        #expect(LDSTemplateReader.tags(in: [0x5F, 0x0E, 0xA0, 0x5F, 0x10]) == [0x5F0E, 0xA0, 0x5F10])
        #expect(LDSTemplateReader.tags(in: [0x5F, 0x0E, 0x5F]) == nil)
    }
}
