import Foundation
import MRTDCore
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import Testing

/// Unit LDS_C, EF.DG2 and its face record (plan §6.3; all 28 cases moved to the ICAO test
/// specification, ICAO-P4 LDS_C_01..28: the readings are ours, in notes/LDS_C.tsv).
///
/// One reading for every defect: DG2 as signed (its hash matches EF.SOD, passive authentication
/// passes) but not a conformant Doc 9303-10 §4.7.2 / ISO/IEC 19794-5:2005 structure is never
/// handed out as a face. The result says what could not be decoded (`checks.dataGroupStructure`
/// failed with `dg2Malformed` and a detail naming the defect, a `DG2:` warning), keeps the other
/// checks, and is never `valid`.
@Suite(.statusAsserted) struct LDS_C {
    // MARK: Building DG2

    /// An ISO/IEC 19794-5:2005 facial record with one face; every field can be set.
    struct FaceRecord {
        var formatIdentifier: [UInt8] = Array("FAC\0".utf8)
        var version: [UInt8] = Array("010\0".utf8)
        var gender: UInt8 = 1
        var eyeColour: UInt8 = 3
        var hairColour: UInt8 = 4
        var pose: [UInt8] = [0, 0, 0]
        var uncertainty: [UInt8] = [0, 0, 0]
        var faceImageType: UInt8 = 1
        var imageDataType: UInt8?
        var featurePoints = 0
        /// Feature points added without the facial block and record lengths counting them.
        var lengthsCountFeaturePoints = true
        var image: [UInt8]

        func bytes() -> [UInt8] {
            func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).reversed().map { UInt8((v >> ($0 * 8)) & 0xFF) } }
            let points = (0..<featurePoints).flatMap { i -> [UInt8] in
                // Feature point type 1 (2D), point code major 8 / minor i+1, x, y, reserved.
                [0x01, UInt8(0x80 | (i + 1))] + be(100 + i, 2) + be(120 + i, 2) + [0, 0]
            }
            let counted = lengthsCountFeaturePoints ? points.count : 0
            let blockLength = 20 + counted + 12 + image.count
            let dataType = imageDataType ?? (FaceImage.detectMimeType(image) == "image/jpeg" ? 0 : 1)
            var out = formatIdentifier + version + be(14 + blockLength, 4) + be(1, 2)
            out += be(blockLength, 4) + be(featurePoints, 2)
            out += [gender, eyeColour, hairColour] + [0, 0, 0] + [0, 0] + pose + uncertainty
            out += points
            out += [faceImageType, dataType] + be(SpecimenDocument.faceWidth, 2) + be(SpecimenDocument.faceHeight, 2)
            out += [0x01, 0x02, 0, 0, 0, 0]
            return out + image
        }
    }

    /// The biometric header template's data objects, in order (Doc 9303-10 §4.7.2.1).
    static let header: [(UInt, [UInt8])] = [
        (0x80, [0x01, 0x01]), (0x81, [0x02]), (0x87, [0x01, 0x01]), (0x88, [0x00, 0x08]),
    ]

    static func ber(_ length: Int) -> [UInt8] {
        if length < 0x80 { return [UInt8(length)] }
        if length < 0x100 { return [0x81, UInt8(length)] }
        return [0x82, UInt8(length >> 8), UInt8(length & 0xFF)]
    }

    /// DG2 around `record`: `tag { 7F61 { 02 01 01, 7F60 { A1 header, 5F2E record } } }`, the outer
    /// length off by `lengthDelta`.
    static func dg2(
        _ record: [UInt8], tag: UInt8 = 0x75, lengthDelta: Int = 0, count: Bool = true,
        header: [(UInt, [UInt8])] = LDS_C.header, block: Bool = true
    ) -> [UInt8] {
        var template: [[UInt8]] = [TLV.encode(tag: 0xA1, children: header.map { TLV.encode(tag: $0.0, value: $0.1) })]
        if block { template.append(TLV.encode(tag: 0x5F2E, value: record)) }
        var group: [[UInt8]] = count ? [TLV.encode(tag: 0x02, value: [0x01])] : []
        group.append(TLV.encode(tag: 0x7F60, children: template))
        let content = TLV.encode(tag: 0x7F61, children: group)
        return [tag] + ber(content.count + lengthDelta) + content
    }

    static let jpeg = SpecimenDocument.faceImageBytes(.jpeg)
    static let jp2 = SpecimenDocument.faceImageBytes(.jpeg2000)

    /// Reads the BAC profile's chip with `dg2` as DG2, signed by the document signer.
    static func read(_ dg2: [UInt8]) async throws -> Conformance.Outcome {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.dg(2)] = dg2
        try Conformance.resign(&chip)
        return await Conformance.read(chip, try Conformance.options())
    }

    /// The positive reading: valid, the face handed out is the image of the record.
    static func expectFace(_ outcome: Conformance.Outcome, _ image: [UInt8], mimeType: String) {
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.passiveAuthentication.result == .passed)
        #expect(outcome.result.checks.dataGroupStructure?.result == .passed)
        #expect(outcome.result.face?.mimeType == mimeType)
        #expect(outcome.result.face?.size == image.count)
        #expect(outcome.result.face?.width == SpecimenDocument.faceWidth)
        #expect(outcome.result.face?.height == SpecimenDocument.faceHeight)
        #expect(!outcome.result.warnings.contains { $0.hasPrefix("DG2") })
    }

    /// The defect reading: DG2 authentic (its hash matches) but not decodable as a face: no face,
    /// the structure check fails with `dg2Malformed` naming `detail`, a warning says so, never valid.
    static func expectUndecodable(_ outcome: Conformance.Outcome, detail: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) {
        let result = outcome.result
        Conformance.expectStatus(result, .invalid, sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.result == .passed, sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "valid", sourceLocation: sourceLocation)
        #expect(result.face == nil, sourceLocation: sourceLocation)
        #expect(result.checks.dataGroupStructure?.result == .failed, sourceLocation: sourceLocation)
        #expect(result.checks.dataGroupStructure?.reason == "dg2Malformed", sourceLocation: sourceLocation)
        #expect(result.checks.dataGroupStructure?.detail?.contains(detail) == true,
                "\(result.checks.dataGroupStructure?.detail ?? "-")", sourceLocation: sourceLocation)
        #expect(result.warnings.contains { $0.hasPrefix("DG2: ") && $0.contains(detail) }, sourceLocation: sourceLocation)
        #expect(result.document != nil, sourceLocation: sourceLocation)
    }

    // MARK: Positive cases

    /// Full frontal face, JPEG 2000 (image data type 1): valid, the face handed out.
    @Test func LDS_C_01() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jp2).bytes()))
        Self.expectFace(outcome, Self.jp2, mimeType: "image/jp2")
    }

    /// Full frontal face, JPEG (image data type 0): valid, the face handed out.
    @Test func LDS_C_02() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes()))
        Self.expectFace(outcome, Self.jpeg, mimeType: "image/jpeg")
    }

    /// JPEG 2000 face whose facial information block carries four feature points (8 bytes each,
    /// counted in the block and record lengths): skipped, the image handed out whole; valid.
    @Test func LDS_C_03() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(featurePoints: 4, image: Self.jp2).bytes()))
        Self.expectFace(outcome, Self.jp2, mimeType: "image/jp2")
    }

    // MARK: Container

    /// DG2's outer tag is 76 instead of 75: not DG2, no face.
    @Test func LDS_C_04() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(), tag: 0x76))
        Self.expectUndecodable(outcome, detail: "must start with tag 0x75")
    }

    /// DG2's outer length is 16 bytes short of its content. The reader reads the file as its header
    /// gives it, so the bytes read are not the bytes hashed: passive authentication fails on DG2,
    /// no face, invalid.
    @Test func LDS_C_05() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(), lengthDelta: -16))
        Conformance.expectStatus(outcome.result, .invalid)
        #expect(outcome.result.face == nil)
        #expect(outcome.result.checks.passiveAuthentication.result == .failed)
        #expect(outcome.result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "invalid")
    }

    /// DG2's outer length is 16 bytes more than the file holds: the chip ends the file (6282) before
    /// the length its header declares. The reader cannot complete the file, so the read fails with
    /// the specific `fileTruncated` naming DG2 (docs/reading.md: a file that ends after some of its
    /// bytes is truncated, whatever the cause); no face, never valid.
    @Test func LDS_C_06() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(), lengthDelta: 16))
        Conformance.expectStatus(outcome.result, .failed)
        #expect(outcome.result.error?.code == .fileTruncated)
        #expect(outcome.result.error?.message.hasPrefix("DG2 ended after") == true)
        #expect(outcome.result.face == nil)
        #expect(outcome.exchanges.contains { $0.response.suffix(2) == [0x62, 0x82] })
    }

    /// The biometric information group template lacks the number of instances (02): no face.
    @Test func LDS_C_07() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(), count: false))
        Self.expectUndecodable(outcome, detail: "lacks mandatory data object 0x02")
    }

    // MARK: Biometric header template

    static func header(replacing tag: UInt, with value: [UInt8]?) -> [(UInt, [UInt8])] {
        header.compactMap { $0.0 == tag ? value.map { (tag, $0) } : $0 }
    }

    /// The header's format owner (87) is 01FF, not ISO/IEC JTC 1/SC 37 (0101): the block's format is
    /// unknown, no face.
    @Test func LDS_C_08() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(),
                                                   header: Self.header(replacing: 0x87, with: [0x01, 0xFF])))
        Self.expectUndecodable(outcome, detail: "format owner 01FF")
    }

    /// The header lacks the mandatory format owner (87): no face.
    @Test func LDS_C_09() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(),
                                                   header: Self.header(replacing: 0x87, with: nil)))
        Self.expectUndecodable(outcome, detail: "lacks mandatory data object 0x87")
    }

    /// The header's format type (88) is 0009, neither 19794-5 (0008) nor 39794-5 (002A): no face.
    @Test func LDS_C_10() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(),
                                                   header: Self.header(replacing: 0x88, with: [0x00, 0x09])))
        Self.expectUndecodable(outcome, detail: "format type 0009")
    }

    /// The header lacks the mandatory format type (88): no face.
    @Test func LDS_C_11() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(),
                                                   header: Self.header(replacing: 0x88, with: nil)))
        Self.expectUndecodable(outcome, detail: "lacks mandatory data object 0x88")
    }

    /// The header's biometric type (81) in the deprecated three-byte CBEFF form 000002 (face), as
    /// early LDS 1.7 chips wrote it: the same type, tolerated; valid, the face handed out.
    @Test func LDS_C_12() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(),
                                                   header: Self.header(replacing: 0x81, with: [0x00, 0x00, 0x02])))
        Self.expectFace(outcome, Self.jpeg, mimeType: "image/jpeg")
    }

    /// The header's biometric type (81) is 08 (finger) in DG2: not a face, none handed out.
    @Test func LDS_C_13() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(),
                                                   header: Self.header(replacing: 0x81, with: [0x08])))
        Self.expectUndecodable(outcome, detail: "biometric type 08")
    }

    // MARK: Facial record header

    /// The record starts with FAX\0 instead of FAC\0: not a 19794-5 record, no face.
    @Test func LDS_C_14() async throws {
        let record = FaceRecord(formatIdentifier: Array("FAX\0".utf8), image: Self.jpeg)
        let outcome = try await Self.read(Self.dg2(record.bytes()))
        Self.expectUndecodable(outcome, detail: "neither ISO/IEC 19794-5 nor ISO/IEC 39794-5")
    }

    /// The record's version is 020\0, not 010\0: no face.
    @Test func LDS_C_15() async throws {
        let record = FaceRecord(version: Array("020\0".utf8), image: Self.jpeg)
        let outcome = try await Self.read(Self.dg2(record.bytes()))
        Self.expectUndecodable(outcome, detail: "version is not 010")
    }

    /// Four feature points added, the facial block and record lengths not counting them: the
    /// record's lengths disagree with its content, so no face (never a face cut 32 bytes short).
    @Test func LDS_C_16() async throws {
        let record = FaceRecord(featurePoints: 4, lengthsCountFeaturePoints: false, image: Self.jpeg)
        let outcome = try await Self.read(Self.dg2(record.bytes()))
        Self.expectUndecodable(outcome, detail: "record length")
    }

    // MARK: Facial information block

    /// Gender 05 (19794-5 §5.5.3 allows 00, 01, 02, FF): no face.
    @Test func LDS_C_17() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(gender: 0x05, image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "gender 05")
    }

    /// Eye colour 10 (§5.5.4 allows 00..07, FF): no face.
    @Test func LDS_C_18() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(eyeColour: 0x10, image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "eye colour 10")
    }

    /// Hair colour 10 (§5.5.5 allows 00..09, FF): no face.
    @Test func LDS_C_19() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(hairColour: 0x10, image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "hair colour 10")
    }

    /// Pose angle yaw B6 = 182 (§5.5.8 allows 0 unspecified and 1..181): no face.
    @Test func LDS_C_20() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(pose: [182, 0, 0], image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "pose yaw 182")
    }

    /// Pose angle pitch 200: no face.
    @Test func LDS_C_21() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(pose: [0, 200, 0], image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "pose pitch 200")
    }

    /// Pose angle roll FF: no face.
    @Test func LDS_C_22() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(pose: [0, 0, 255], image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "pose roll 255")
    }

    /// Yaw uncertainty 181 (§5.5.9 allows 0..180): no face.
    @Test func LDS_C_23() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(uncertainty: [181, 0, 0], image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "pose uncertainty yaw 181")
    }

    /// Pitch uncertainty 200: no face.
    @Test func LDS_C_24() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(uncertainty: [0, 200, 0], image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "pose uncertainty pitch 200")
    }

    /// Roll uncertainty FF: no face.
    @Test func LDS_C_25() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(uncertainty: [0, 0, 255], image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "pose uncertainty roll 255")
    }

    // MARK: Image information block

    /// Face image type 05 (§5.7.1 allows 00 basic, 01 full frontal, 02 token frontal): no face.
    @Test func LDS_C_26() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(faceImageType: 0x05, image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "face image type 05")
    }

    /// Image data type 05 (§5.7.2 allows 00 JPEG, 01 JPEG 2000) over a JPEG: the format is not
    /// declared, so the bytes are never handed out as a face.
    @Test func LDS_C_27() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(imageDataType: 0x05, image: Self.jpeg).bytes()))
        Self.expectUndecodable(outcome, detail: "image data type 05")
    }

    // MARK: Biometric data block

    /// The biometric information template holds only its header (A1), no 5F2E: no face.
    @Test func LDS_C_28() async throws {
        let outcome = try await Self.read(Self.dg2(FaceRecord(image: Self.jpeg).bytes(), block: false))
        Self.expectUndecodable(outcome, detail: "has no biometric data block (5F2E/7F2E)")
    }
}
