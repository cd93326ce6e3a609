import Testing
@testable import MRTDCore

/// A minimal JPEG: SOI, SOF0 with 3 × 2, EOI.
let tinyJPEG: [UInt8] = [0xFF, 0xD8, 0xFF, 0xC0, 0x00, 0x0B, 0x08, 0x00, 0x02, 0x00, 0x03, 0x01, 0x01, 0x11, 0x00, 0xFF, 0xD9]

@Suite struct DG2SampleTests {
    static let dir = "gmrtd/biometric_test_data/"

    @Test func iso19794RecordYieldsTheExactJPEG() throws {
        guard let record = sharedSample(Self.dir + "ISO19794_Test1_Data.bin"),
              let jpeg = sharedSample(Self.dir + "ISO19794_Test1_Face.jpg") else { return }
        let parsed = try DG2.parseBiometricDataBlock(record)
        #expect(parsed.encoding == .iso19794_5)
        #expect(parsed.faces.count == 1)
        let face = try #require(parsed.faces.first)
        #expect(face.imageData == jpeg)
        #expect(face.mimeType == "image/jpeg")
        #expect(face.width == 148 && face.height == 70)
        // The same record wrapped as a chip sends it.
        let dg2 = TLV.encode(tag: 0x75, children: [TLV.encode(tag: 0x7F61, children: [
            TLV.encode(tag: 0x02, value: [0x01]),
            TLV.encode(tag: 0x7F60, children: [
                TLV.encode(tag: 0xA1, children: [TLV.encode(tag: 0x87, value: [1, 1]), TLV.encode(tag: 0x88, value: [0, 8])]),
                TLV.encode(tag: 0x5F2E, value: record),
            ]),
        ])])
        #expect(try DG2(rawBytes: dg2).faces == [face])
    }

    /// AllFields carries an ImageSizeBlock (572 × 731) that wins over the image's own 413 × 531.
    @Test(arguments: [("ICAO_39794_5_AP_DG2_AllFields.dat", 572, 731), ("ICAO_39794_5_AP_DG2_MandFields.dat", 413, 531)])
    func iso39794DG2YieldsTheExactImage(_ name: String, _ width: Int, _ height: Int) throws {
        guard let bytes = sharedSample(Self.dir + name),
              let image = sharedSample(Self.dir + "ICAO_39794_5_AP_DG2_Face.jpg") else { return }
        let dg2 = try DG2(rawBytes: bytes)
        #expect(dg2.encoding == .iso39794_5)
        #expect(dg2.rawBytes == bytes)
        #expect(dg2.faces.count == 1)
        let face = try #require(dg2.faces.first)
        #expect(face.imageData == image)
        // The sample "jpg" is a JP2 box file.
        #expect(face.mimeType == "image/jp2")
        #expect(face.width == width && face.height == height)
    }
}

@Suite struct DG2EncodingTests {
    @Test(arguments: [FaceEncoding.iso19794_5, .iso39794_5])
    func roundTripsBothEncodings(_ encoding: FaceEncoding) throws {
        let bytes = DG2.encode(image: tinyJPEG, width: 480, height: 640, encoding: encoding)
        let dg2 = try DG2(rawBytes: bytes)
        #expect(dg2.encoding == encoding)
        #expect(dg2.faces == [FaceImage(imageData: tinyJPEG, width: 480, height: 640)])
        #expect(dg2.faces[0].width == 480 && dg2.faces[0].height == 640)
    }

    @Test(arguments: [FaceEncoding.iso19794_5, .iso39794_5])
    func zeroHeaderDimensionsFallBackToTheImage(_ encoding: FaceEncoding) throws {
        let dg2 = try DG2(rawBytes: DG2.encode(image: tinyJPEG, width: 0, height: 0, encoding: encoding))
        #expect(dg2.faces[0].width == 3 && dg2.faces[0].height == 2)
    }

    @Test func encodedJP2RoundTripsWhenSampleAvailable() throws {
        guard let image = sharedSample("gmrtd/biometric_test_data/ICAO_39794_5_AP_DG2_Face.jpg") else { return }
        for encoding in [FaceEncoding.iso19794_5, .iso39794_5] {
            let dg2 = try DG2(rawBytes: DG2.encode(image: image, width: 413, height: 531, encoding: encoding))
            #expect(dg2.faces.first?.imageData == image)
        }
    }
}

@Suite struct DG2NegativeTests {
    static func dg2(_ template: [[UInt8]], count: UInt8 = 1, tag: UInt = 0x75) -> [UInt8] {
        TLV.encode(tag: tag, children: [TLV.encode(tag: 0x7F61, children: [
            TLV.encode(tag: 0x02, value: [count]), TLV.encode(tag: 0x7F60, children: template),
        ])])
    }
    static let header = TLV.encode(tag: 0xA1, children: [TLV.encode(tag: 0x87, value: [1, 1]), TLV.encode(tag: 0x88, value: [0, 8])])
    static let record = DG2.encodeISO19794_5(image: tinyJPEG, width: 3, height: 2)

    /// TR-03105-5.1 LDS_C_08/_10/_13: a header naming another format or biometric type is no face.
    @Test func headerNamingNoFaceIsReported() throws {
        func header(_ objects: [(UInt, [UInt8])]) -> [UInt8] {
            TLV.encode(tag: 0xA1, children: objects.map { TLV.encode(tag: $0.0, value: $0.1) })
        }
        let block = TLV.encode(tag: 0x5F2E, value: Self.record)
        for bad in [[(0x87, [1, 0xFF]), (0x88, [0, 8])], [(0x87, [1, 1]), (0x88, [0, 9])],
                    [(0x81, [8]), (0x87, [1, 1]), (0x88, [0, 8])]] as [[(UInt, [UInt8])]] {
            #expect(throws: LDSError.self) { try DG2(rawBytes: Self.dg2([header(bad), block])) }
        }
        let old = header([(0x81, [0, 0, 2]), (0x87, [1, 1]), (0x88, [0, 8])])
        #expect(try DG2(rawBytes: Self.dg2([old, block])).faces.count == 1)
    }

    /// TR-03105-5.1 LDS_C_17..27: facial information and image information outside 19794-5's values.
    @Test(arguments: [(20, 0x05), (21, 0x10), (22, 0x09 + 1), (28, 182), (30, 182), (31, 181), (33, 201), (34, 5), (35, 2)])
    func recordFieldOutOfRangeIsReported(_ offset: Int, _ value: Int) {
        var record = Self.record
        record[offset] = UInt8(value)
        #expect {
            try DG2.parseBiometricDataBlock(record)
        } throws: { error in
            if case .invalidFaceRecordField? = error as? LDSError { return true }
            return false
        }
    }

    @Test func missingBiometricDataBlockIsReported() {
        #expect(throws: LDSError.missingBiometricDataBlock(template: 1)) { try DG2(rawBytes: Self.dg2([Self.header])) }
    }

    @Test func zeroSizeImageIsReported() {
        let empty = DG2.encodeISO19794_5(image: [], width: 0, height: 0)
        #expect(throws: LDSError.emptyImage) { try DG2(rawBytes: Self.dg2([Self.header, TLV.encode(tag: 0x5F2E, value: empty)])) }
        let empty39794 = DG2.encodeISO39794_5(image: [], width: 0, height: 0)
        #expect(throws: LDSError.emptyImage) { try DG2.parseBiometricDataBlock(empty39794) }
    }

    @Test(arguments: [0, 4, 10, 13, 20, 40])
    func truncatedRecordHeaderIsReported(_ keep: Int) {
        let cut = Array(Self.record.prefix(keep))
        #expect {
            try DG2(rawBytes: Self.dg2([Self.header, TLV.encode(tag: 0x5F2E, value: cut)]))
        } throws: { error in
            switch error as? LDSError {
            case .truncatedFaceRecord?, .unknownBiometricDataBlock?: return true
            default: return false
            }
        }
    }

    @Test func recordLengthLongerThanDataIsReported() {
        var cut = Self.record
        cut.removeLast(3)
        #expect(throws: LDSError.truncatedFaceRecord(needed: Self.record.count, available: cut.count)) {
            try DG2.parseBiometricDataBlock(cut)
        }
    }

    @Test func badRecordHeaderFieldsAreReported() {
        var version = Self.record
        version[4] = 0x30; version[5] = 0x33  // "030": 2011 layout
        #expect(throws: LDSError.invalidFaceRecordHeader("version is not 010 (ISO/IEC 19794-5:2005)")) {
            try DG2.parseBiometricDataBlock(version)
        }
        var noFaces = Self.record
        noFaces[12] = 0; noFaces[13] = 0
        #expect(throws: LDSError.inconsistentFaceRecord("record declares no face images")) {
            try DG2.parseBiometricDataBlock(noFaces)
        }
        var shortBlock = Self.record
        shortBlock[14...17] = [0, 0, 0, 10]
        #expect(throws: LDSError.self) { try DG2.parseBiometricDataBlock(shortBlock) }
        #expect(throws: LDSError.unknownBiometricDataBlock) { try DG2.parseBiometricDataBlock([0x00, 0x01, 0x02]) }
    }

    @Test func wrongOuterTagIsRejected() {
        #expect(throws: LDSError.wrongOuterTag(.dg(2), expected: 0x75, found: 0x76)) {
            try DG2(rawBytes: Self.dg2([Self.header, TLV.encode(tag: 0x5F2E, value: Self.record)], tag: 0x76))
        }
    }

    @Test func instanceCountMustMatchTemplates() {
        #expect(throws: LDSError.biometricCountMismatch(declared: 2, found: 1)) {
            try DG2(rawBytes: Self.dg2([Self.header, TLV.encode(tag: 0x5F2E, value: Self.record)], count: 2))
        }
    }

    @Test func lyingLengthsAreRejected() {
        var bytes = DG2.encode(image: tinyJPEG, width: 3, height: 2, encoding: .iso19794_5)
        bytes[1] += 5
        #expect(throws: LDSError.self) { try DG2(rawBytes: bytes) }
        #expect(throws: LDSError.tlv(.truncated(needed: 0xFFFF_FFFF, available: 0))) {
            try DG2(rawBytes: [0x75, 0x84, 0xFF, 0xFF, 0xFF, 0xFF])
        }
    }
}

@Suite struct FaceImageTests {
    @Test func detectsMimeTypesFromMagicBytes() {
        #expect(FaceImage.detectMimeType(tinyJPEG) == "image/jpeg")
        #expect(FaceImage.detectMimeType(FaceImage.jp2Magic + [0, 0]) == "image/jp2")
        #expect(FaceImage.detectMimeType([0xFF, 0x4F, 0xFF, 0x51, 0x00]) == "image/j2k")
        #expect(FaceImage.detectMimeType([0x89, 0x50, 0x4E, 0x47]) == nil)
        #expect(FaceImage.detectMimeType([UInt8]()) == nil)
    }

    @Test func readsDimensionsOfABareCodestream() {
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        let siz: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51, 0x00, 0x29, 0x00, 0x00] + be32(420) + be32(560) + be32(20) + be32(10)
        #expect(FaceImage.dimensions(of: siz).map { [$0.width, $0.height] } == [400, 550])
    }

    @Test func truncatedImageHeadersGiveNoDimensions() {
        #expect(FaceImage.dimensions(of: Array(tinyJPEG.prefix(8))) == nil)
        #expect(FaceImage.dimensions(of: FaceImage.jp2Magic) == nil)
        #expect(FaceImage.dimensions(of: [0xFF, 0x4F, 0xFF, 0x51]) == nil)
    }
}
