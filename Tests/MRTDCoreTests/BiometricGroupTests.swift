import Testing

@testable import MRTDCore

/// DG3 (ISO/IEC 19794-4 fingers) and DG4 (ISO/IEC 19794-6 irises) records built field by field,
/// and ISO/IEC 39794 blocks; broken templates become warnings, the others stay.
@Suite struct BiometricGroupTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0xFF, 0xD9]
    static let wsq: [UInt8] = [0xFF, 0xA0, 0xFF, 0xA8, 0x00, 0x02, 0x01, 0x02]

    @Test func fingerRecordsGivePositionFormatAndSize() throws {
        let dg3 = BiometricGroup.encode(file: .dg(3), records: [
            BiometricRecord.encodeISO19794_4(image: Self.wsq, position: 2, compression: 2, width: 400, height: 500),
            BiometricRecord.encodeISO19794_4(image: Self.jpeg, position: 7, compression: 3, width: 320, height: 480),
        ])
        let group = try BiometricGroup(rawBytes: dg3, file: .dg(3))
        #expect(group.warnings.isEmpty, "\(group.warnings)")
        #expect(group.records.count == 2)
        let first = try #require(group.records.first)
        #expect(first.format == "ISO/IEC 19794-4")
        #expect(first.position == "rightIndex")
        #expect(first.imageFormat == "WSQ")
        #expect(first.image.mimeType == "image/x-wsq")
        #expect(first.image.imageData == Self.wsq)
        #expect(first.width == 400 && first.height == 500)
        #expect(group.records[1].position == "leftIndex")
        #expect(group.records[1].imageFormat == "JPEG")
        #expect(group.records[1].image.mimeType == "image/jpeg")
    }

    @Test func fingerRecordWithSeveralFingersInOneRecord() throws {
        // Two finger blocks in one general record: fix up the count and record length by hand.
        var record = BiometricRecord.encodeISO19794_4(image: Self.wsq, position: 13, compression: 2, width: 10, height: 10)
        let block = Array(record[32...])
        record += block
        record[18] = 2
        let total = record.count
        for i in 0..<6 { record[8 + i] = UInt8((total >> ((5 - i) * 8)) & 0xFF) }
        let group = try BiometricGroup(rawBytes: BiometricGroup.encode(file: .dg(3), records: [record]), file: .dg(3))
        #expect(group.records.map(\.position) == ["plainRightFourFingers", "plainRightFourFingers"])
    }

    @Test func irisRecordGivesEyeFormatAndSize() throws {
        let dg4 = BiometricGroup.encode(file: .dg(4), records: [
            BiometricRecord.encodeISO19794_6(image: Self.jpeg, eye: 2, imageFormat: 6, width: 640, height: 480),
        ])
        let group = try BiometricGroup(rawBytes: dg4, file: .dg(4))
        #expect(group.warnings.isEmpty)
        let record = try #require(group.records.first)
        #expect(record.format == "ISO/IEC 19794-6")
        #expect(record.position == "leftEye")
        #expect(record.imageFormat == "JPEG")
        #expect(record.width == 640 && record.height == 480)
        #expect(record.image.imageData == Self.jpeg)
    }

    @Test func iso39794BlockImagesAreFoundByTheirSignature() throws {
        // [APPLICATION 4] { [0] version, [1] { SEQUENCE { [0] id, [1] { [0] { [0] image } } } } }
        let representation = TLV.encode(tag: 0x30, children: [
            TLV.encode(tag: 0x80, value: [0]),
            TLV.encode(tag: 0xA1, children: [TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x80, value: Self.jpeg)])]),
        ])
        let block = TLV.encode(tag: 0x64, children: [
            TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x80, value: [3])]),
            TLV.encode(tag: 0xA1, children: [representation, representation]),
        ])
        let dg3 = TLV.encode(tag: 0x63, children: [TLV.encode(tag: 0x7F61, children: [
            TLV.encode(tag: 0x02, value: [1]),
            TLV.encode(tag: 0x7F60, children: [TLV.encode(tag: 0xA1, children: []), TLV.encode(tag: 0x7F2E, value: block)]),
        ])])
        let group = try BiometricGroup(rawBytes: dg3, file: .dg(3))
        #expect(group.records.count == 2)
        #expect(group.records.allSatisfy { $0.format == "ISO/IEC 39794-4" && $0.imageFormat == "JPEG" && $0.position == nil })
    }

    static func group39794(_ file: LDSFile, blockTag: UInt, representations: [[UInt8]]) -> [UInt8] {
        let block = TLV.encode(tag: blockTag, children: [
            TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x80, value: [3])]),
            TLV.encode(tag: 0xA1, children: representations),
        ])
        return TLV.encode(tag: file.tag!, children: [TLV.encode(tag: 0x7F61, children: [
            TLV.encode(tag: 0x02, value: [1]),
            TLV.encode(tag: 0x7F60, children: [TLV.encode(tag: 0xA1, children: []), TLV.encode(tag: 0x7F2E, value: block)]),
        ])])
    }

    @Test func iso39794_4RepresentationsGiveThePositionAndTheImage() throws {
        // position [0] { code [0] rightIndex (2) }, impression [1], imageDataFormat [2], imageData [3]
        let finger = { (position: UInt8) in
            TLV.encode(tag: 0x30, children: [
                TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x80, value: [position])]),
                TLV.encode(tag: 0xA1, children: [TLV.encode(tag: 0x80, value: [0])]),
                TLV.encode(tag: 0xA2, children: [TLV.encode(tag: 0x80, value: [2])]),
                TLV.encode(tag: 0x83, value: Self.wsq),
            ])
        }
        let group = try BiometricGroup(
            rawBytes: Self.group39794(.dg(3), blockTag: 0x64, representations: [finger(2), finger(6), finger(99)]), file: .dg(3))
        #expect(group.records.map(\.position) == ["rightIndex", "leftThumb", nil])
        #expect(group.records.allSatisfy { $0.imageFormat == "WSQ" && $0.image.imageData == Self.wsq })
        #expect(group.records.first?.format == "ISO/IEC 39794-4")
    }

    @Test func iso39794_6RepresentationsGiveTheEyeAndTheImage() throws {
        // eyeLabelCode [0] leftEye (2), irisImageKind [1], …, irisImageData [9]
        let iris = TLV.encode(tag: 0x30, children: [
            TLV.encode(tag: 0x80, value: [2]), TLV.encode(tag: 0x81, value: [2]), TLV.encode(tag: 0x82, value: [8]),
            TLV.encode(tag: 0x89, value: Self.jpeg),
        ])
        let group = try BiometricGroup(rawBytes: Self.group39794(.dg(4), blockTag: 0x66, representations: [iris]), file: .dg(4))
        #expect(group.records.map(\.position) == ["leftEye"])
        #expect(group.records.first?.format == "ISO/IEC 39794-6")
        #expect(group.records.first?.imageFormat == "JPEG")
    }

    @Test func brokenTemplatesAreWarningsAndTheOthersStay() throws {
        let good = BiometricRecord.encodeISO19794_4(image: Self.jpeg, position: 1, compression: 3, width: 1, height: 1)
        let truncated = Array(good.dropLast(4))
        let wrongMagic = [0x58] + good.dropFirst()
        var lyingLength = good
        lyingLength[32] = 0x7F  // finger block length far past the record
        let dg3 = BiometricGroup.encode(file: .dg(3), records: [good, truncated, wrongMagic, lyingLength])
        let group = try BiometricGroup(rawBytes: dg3, file: .dg(3))
        #expect(group.records.count == 1)
        #expect(group.records.first?.position == "rightThumb")
        #expect(group.warnings.count == 3)
        #expect(group.warnings[1].hasPrefix("DG3 template 3: biometric data block is neither"))
    }

    @Test func structureErrorsThrow() {
        let dg4 = BiometricGroup.encode(file: .dg(4), records: [
            BiometricRecord.encodeISO19794_6(image: Self.jpeg, eye: 1, imageFormat: 6, width: 1, height: 1),
        ])
        #expect(throws: LDSError.self) { try BiometricGroup(rawBytes: Array(dg4.dropLast()), file: .dg(4)) }
        #expect(throws: LDSError.wrongOuterTag(.dg(3), expected: 0x63, found: 0x76)) {
            try BiometricGroup(rawBytes: dg4, file: .dg(3))
        }
        #expect(throws: LDSError.missingDataObject(.dg(4), tag: 0x7F61)) {
            try BiometricGroup(rawBytes: TLV.encode(tag: 0x76, value: TLV.encode(tag: 0x02, value: [1])), file: .dg(4))
        }
    }

    @Test func countMismatchIsAWarning() throws {
        let record = BiometricRecord.encodeISO19794_6(image: Self.jpeg, eye: 1, imageFormat: 6, width: 1, height: 1)
        let dg4 = TLV.encode(tag: 0x76, children: [TLV.encode(tag: 0x7F61, children: [
            TLV.encode(tag: 0x02, value: [2]),
            TLV.encode(tag: 0x7F60, children: [TLV.encode(tag: 0xA1, children: []), TLV.encode(tag: 0x5F2E, value: record)]),
        ])])
        let group = try BiometricGroup(rawBytes: dg4, file: .dg(4))
        #expect(group.records.count == 1)
        #expect(group.warnings == ["DG4 declares 2 biometric templates, holds 1"])
    }
}
