import Testing

@testable import MRTDCore

/// DG11, DG12 and DG16 as published: Doc 9303-10 Appendix A.5 / A.6 (the A.5 lengths corrected,
/// as gmrtd notes: `6B 63` → `6B 60`, `5F12 0E` → `0B`), and DG11/DG12 of real passports with the
/// personal data replaced (China: name in Han script, other name bare; New Zealand: personalisation
/// only; France: issuing authority and date, no personal data), as gmrtd's test suite carries them.
@Suite struct LDSSampleTests {
    static func bytes(_ hex: String) -> [UInt8] {
        var out: [UInt8] = []
        var it = hex.makeIterator()
        while let h = it.next(), let l = it.next() { out.append(UInt8(String([h, l]), radix: 16)!) }
        return out
    }

    @Test func doc9303AppendixA5DG11() throws {
        let dg11 = try DG11(rawBytes: Self.bytes(
            "6B605C0A5F0E5F115F425F125F135F0E0D534D4954483C3C4A4F484E3C4A5F110A414E59544F574E3C4D4E5F4217313233204D41"
            + "504C452052443C414E59544F574E3C4D4E5F120B31363132353535313231325F130C54524156454C3C4147454E54"))
        #expect(dg11.fullName == "SMITH<<JOHN<J")
        #expect(dg11.placeOfBirth == "ANYTOWN<MN")
        #expect(dg11.permanentAddress == "123 MAPLE RD<ANYTOWN<MN")
        #expect(dg11.telephone == "16125551212")
        #expect(dg11.profession == "TRAVEL<AGENT")
        #expect(dg11.warnings.isEmpty)
    }

    @Test func chineseDG11WithAHanNameAndABareOtherName() throws {
        let dg11 = try DG11(rawBytes: Self.bytes("6B1B5C045F0E5F0F5F0E06E8B5B5E5BDAC5F0F095A48414F3C3C42494E"))
        #expect(dg11.fullName == "赵彬")
        #expect(dg11.otherNames == ["ZHAO<<BIN"])
        #expect(dg11.warnings.isEmpty)
    }

    @Test func newZealandDG12PersonalisationOnly() throws {
        let dg12 = try DG12(rawBytes: Self.bytes("6C205C045F555F565F550E32303136313131353031333631325F56064E2D34393632"))
        #expect(dg12.personalizationTime?.iso8601 == "2016-11-15T01:36:12")
        #expect(dg12.personalizationDeviceSerialNumber == "N-4962")
        #expect(dg12.issuingAuthority == nil && dg12.dateOfIssue == nil)
        #expect(dg12.warnings.isEmpty)
    }

    @Test func frenchDG12IssuingAuthorityAndDate() throws {
        let dg12 = try DG12(rawBytes: Self.bytes(
            "6C3E5C045F195F265F192A4A414B41525441202D20414D42415353414445204445204652414E434520454E20494E444F4E45534945"
            + "5F26083230313730393035"))
        #expect(dg12.issuingAuthority == "JAKARTA - AMBASSADE DE FRANCE EN INDONESIE")
        #expect(dg12.dateOfIssue?.iso8601 == "2017-09-05")
        #expect(dg12.dateOfIssue?.raw == "20170905")
    }

    @Test func bcdDateOfIssueAsSomeChipsWriteIt() throws {
        let dg12 = try DG12(rawBytes: Self.bytes("6C0B5C025F265F260420210915"))
        #expect(dg12.dateOfIssue?.iso8601 == "2021-09-15")
    }

    @Test func doc9303AppendixA6DG16() throws {
        let dg16 = try DG16(rawBytes: Self.bytes(
            "7081A2020102A14C5F500832303032303130315F5110534D4954483C3C434841524C45533C525F520B31393532353535313231325F531D"
            + "313233204D41504C452052443C414E59544F574E3C4D4E3C3535313030A24F5F500832303032303331355F510D42524F574E3C3C4D41"
            + "52593C4A5F520B31343135353535313231325F5323343920524544574F4F44204C4E3C4F4345414E20425245455A453C43413C3934303030"))
        #expect(dg16.persons.map(\.name) == ["SMITH<<CHARLES<R", "BROWN<<MARY<J"])
        #expect(dg16.persons.map { $0.dateRecorded?.iso8601 } == ["2002-01-01", "2002-03-15"])
        #expect(dg16.persons[1].address == "49 REDWOOD LN<OCEAN BREEZE<CA<94000")
        #expect(dg16.warnings.isEmpty)
    }
}
