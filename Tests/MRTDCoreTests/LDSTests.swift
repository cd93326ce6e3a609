import Testing
@testable import MRTDCore
import Foundation

@Suite struct DG1Tests {
    @Test(arguments: [Specimen.td1, Specimen.td2, Specimen.td3])
    func roundTripsEveryFormat(_ lines: [String]) throws {
        let bytes = DG1.encode(mrz: lines.joined())
        let dg1 = try DG1(rawBytes: bytes)
        #expect(dg1.rawBytes == bytes)
        #expect(dg1.mrz.lines == lines)
        #expect(dg1.mrz.hasValidCheckDigits)
    }

    @Test func encodesTagsPerDoc9303() {
        let bytes = DG1.encode(mrz: Specimen.td3.joined())
        #expect(Array(bytes.prefix(5)) == [0x61, 0x5B, 0x5F, 0x1F, 0x58])
        #expect(bytes.count == 2 + 3 + 88)
    }

    @Test func wrongCheckDigitInDG1IsReportedNotThrown() throws {
        let text = mutate(Specimen.td3, line: 1, column: 19, to: "0").replacingOccurrences(of: "\n", with: "")
        let dg1 = try DG1(rawBytes: DG1.encode(mrz: text))
        #expect(!dg1.mrz.hasValidCheckDigits)
    }

    @Test func wrongOuterTagIsRejected() {
        var bytes = DG1.encode(mrz: Specimen.td3.joined())
        bytes[0] = 0x62
        #expect(throws: LDSError.wrongOuterTag(.dg(1), expected: 0x61, found: 0x62)) { try DG1(rawBytes: bytes) }
    }

    @Test func missingMRZObjectIsRejected() {
        let bytes = TLV.encode(tag: 0x61, children: [TLV.encode(tag: 0x5F20, value: Array("X".utf8))])
        #expect(throws: LDSError.missingDataObject(.dg(1), tag: 0x5F1F)) { try DG1(rawBytes: bytes) }
    }

    @Test func outerLengthTooSmallOrTooBigIsRejected() {
        let good = DG1.encode(mrz: Specimen.td3.joined())
        var small = good
        small[1] -= 1
        #expect(throws: LDSError.self) { try DG1(rawBytes: small) }
        var big = good
        big[1] += 1
        #expect(throws: LDSError.tlv(.truncated(needed: 92, available: 91))) { try DG1(rawBytes: big) }
        #expect(throws: LDSError.self) { try DG1(rawBytes: Array(good.dropLast(10))) }
    }

    @Test func hugeDeclaredLengthFailsWithoutAllocating() {
        let bytes: [UInt8] = [0x61, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x5F, 0x1F, 0x00]
        #expect(throws: LDSError.tlv(.truncated(needed: 0xFFFF_FFFF, available: 3))) { try DG1(rawBytes: bytes) }
    }

    @Test func invalidMRZInDG1IsSpecificAndHasNoMRZData() {
        let bytes = DG1.encode(mrz: String(Specimen.td3.joined().dropLast()))
        #expect(throws: LDSError.invalidMRZ(.wrongLength(87))) { try DG1(rawBytes: bytes) }
        let nonASCII = TLV.encode(tag: 0x61, children: [TLV.encode(tag: 0x5F1F, value: [0xC3, 0xA9])])
        #expect(throws: LDSError.invalidText(.dg(1), tag: 0x5F1F)) { try DG1(rawBytes: nonASCII) }
    }

    @Test func descriptionIsRedacted() throws {
        let dg1 = try DG1(rawBytes: DG1.encode(mrz: Specimen.td3.joined()))
        #expect(!"\(dg1)".contains("ERIKSSON"))
        #expect(!String(reflecting: dg1).contains("L898902C3"))
    }
}

@Suite struct EFCOMTests {
    @Test func roundTrips() throws {
        let bytes = EFCOM.encode(dataGroups: [.dg(1), .dg(2), .dg(14), .dg(15)])
        #expect(bytes == [0x60, 0x16, 0x5F, 0x01, 0x04, 0x30, 0x31, 0x30, 0x37,
                          0x5F, 0x36, 0x06, 0x30, 0x34, 0x30, 0x30, 0x30, 0x30,
                          0x5C, 0x04, 0x61, 0x75, 0x6E, 0x6F])
        let com = try EFCOM(rawBytes: bytes)
        #expect(com.ldsVersion == "0107")
        #expect(com.unicodeVersion == "040000")
        #expect(com.dataGroups == [.dg(1), .dg(2), .dg(14), .dg(15)])
        #expect(com.rawBytes == bytes)
    }

    static func com(_ children: [[UInt8]], tag: UInt = 0x60) -> [UInt8] { TLV.encode(tag: tag, children: children) }
    static let lds = TLV.encode(tag: 0x5F01, value: Array("0107".utf8))
    static let uni = TLV.encode(tag: 0x5F36, value: Array("040000".utf8))
    static let list = TLV.encode(tag: 0x5C, value: [0x61, 0x75])

    @Test func missingDataGroupListIsRejected() {
        #expect(throws: LDSError.missingDataObject(.com, tag: 0x5C)) { try EFCOM(rawBytes: Self.com([Self.lds, Self.uni])) }
    }

    @Test func missingVersionsAreRejected() {
        #expect(throws: LDSError.missingDataObject(.com, tag: 0x5F01)) { try EFCOM(rawBytes: Self.com([Self.uni, Self.list])) }
        #expect(throws: LDSError.missingDataObject(.com, tag: 0x5F36)) { try EFCOM(rawBytes: Self.com([Self.lds, Self.list])) }
    }

    @Test func malformedVersionIsRejected() {
        let bad = TLV.encode(tag: 0x5F01, value: Array("1.7".utf8))
        #expect(throws: LDSError.invalidVersion(tag: 0x5F01)) { try EFCOM(rawBytes: Self.com([bad, Self.uni, Self.list])) }
    }

    @Test func unknownTagInListIsRejected() {
        let list = TLV.encode(tag: 0x5C, value: [0x61, 0x75, 0x77])
        #expect(throws: LDSError.unknownDataGroupTag(0x77)) { try EFCOM(rawBytes: Self.com([Self.lds, Self.uni, list])) }
    }

    @Test func listWithoutDG1IsRejected() {
        let list = TLV.encode(tag: 0x5C, value: [0x75])
        #expect(throws: LDSError.dataGroupListMissingDG1) { try EFCOM(rawBytes: Self.com([Self.lds, Self.uni, list])) }
    }

    @Test func wrongOuterTagIsRejected() {
        #expect(throws: LDSError.wrongOuterTag(.com, expected: 0x60, found: 0x61)) {
            try EFCOM(rawBytes: Self.com([Self.lds, Self.uni, Self.list], tag: 0x61))
        }
    }
}

@Suite struct LDSErrorTests {
    @Test func everyDescriptionIsSpecificAndFreeOfMRZData() {
        let errors: [LDSError] = [
            .tlv(.truncated(needed: 5, available: 2)), .wrongOuterTag(.dg(1), expected: 0x61, found: 0x62),
            .missingDataObject(.com, tag: 0x5C), .invalidMRZ(.invalidCharacter("§", position: 3)),
            .invalidText(.dg(1), tag: 0x5F1F), .invalidVersion(tag: 0x5F36), .unknownDataGroupTag(0x77),
            .dataGroupListMissingDG1, .biometricCountMismatch(declared: 2, found: 1),
            .missingBiometricDataBlock(template: 1), .truncatedFaceRecord(needed: 14, available: 10),
            .invalidFaceRecordHeader("x"), .inconsistentFaceRecord("y"), .emptyImage, .unknownBiometricDataBlock,
        ]
        let texts = errors.map(\.description)
        #expect(Set(texts).count == texts.count)
        for t in texts { #expect(!t.contains("§") && !t.isEmpty) }
        #expect(LDSError.wrongOuterTag(.dg(1), expected: 0x61, found: 0x62).description == "DG1 must start with tag 0x61, found 0x62")
    }
}
