import MRTDTesting
import Testing
@testable import MRTDCore
import MRTDSimulation

/// NFCPassportReader 2.3.1 (docs/field-quirks.md, "Signed data"): a JPEG 2000 portrait followed by
/// padding in its DG2 record is handed out without the padding, which a warning counts; anything
/// that is not padding after a JPEG 2000 image, and any other format, is left as it came.
@Suite struct DG2PaddingTests {
    static let jp2 = SpecimenDocument.faceImageBytes(.jpeg2000)

    /// The bare codestream of the specimen's JP2 (the `jp2c` box's content).
    static var j2k: [UInt8] {
        let type: [UInt8] = Array("jp2c".utf8)
        let at = jp2.indices.first { jp2[$0...].starts(with: type) }!
        let length = jp2[(at - 4)..<at].reduce(0) { $0 << 8 | Int($1) }
        return Array(jp2[(at + 4)..<(at - 4 + length)])
    }

    static func face(in dg2: [UInt8]) throws -> FaceImage {
        try #require(try DG2(rawBytes: dg2).faces.first)
    }

    @Test(arguments: [FaceEncoding.iso19794_5, .iso39794_5], [UInt8(0x00), 0xFF])
    func aJP2FaceFollowedByPaddingIsHandedOutWithoutIt(encoding: FaceEncoding, pad: UInt8) throws {
        let padding = [UInt8](repeating: pad, count: 64)
        let dg2 = DG2.encode(image: Self.jp2 + padding, width: 0, height: 0, encoding: encoding)
        let face = try Self.face(in: dg2)
        #expect(face.imageData == Self.jp2)
        #expect(face.trailingPadding == 64)
        #expect(face.mimeType == "image/jp2")
        #expect(face.width == SpecimenDocument.faceWidth && face.height == SpecimenDocument.faceHeight)
    }

    @Test func aJ2KCodestreamFollowedByPaddingEndsAtItsEOC() throws {
        let codestream = Self.j2k
        #expect(Array(codestream.suffix(2)) == [0xFF, 0xD9])
        let face = try Self.face(in: DG2.encode(image: codestream + [0xFF, 0xFF, 0x00, 0x00, 0xFF], width: 0, height: 0, encoding: .iso19794_5))
        #expect(face.imageData == codestream)
        #expect(face.trailingPadding == 5)
        #expect(face.mimeType == "image/j2k")
    }

    @Test func bytesThatAreNotPaddingAndOtherFormatsAreLeftAsTheyCame() throws {
        // Not padding: the image is handed out whole, as before.
        let tail: [UInt8] = [0x00, 0x42, 0x00]
        let kept = try Self.face(in: DG2.encode(image: Self.jp2 + tail, width: 0, height: 0, encoding: .iso19794_5))
        #expect(kept.imageData == Self.jp2 + tail)
        #expect(kept.trailingPadding == 0)
        // JPEG: not this row's; its bytes stay as they are.
        let jpeg = SpecimenDocument.faceImageBytes(.jpeg) + [0, 0, 0, 0]
        let jpegFace = try Self.face(in: DG2.encode(image: jpeg, width: 0, height: 0, encoding: .iso19794_5))
        #expect(jpegFace.imageData == jpeg)
        #expect(jpegFace.trailingPadding == 0)
        // An unpadded JP2 is untouched.
        #expect(FaceImage.withoutJPEG2000Padding(Self.jp2) == (Self.jp2, 0))
        // A codestream whose tail is padding but has no EOC before it: left alone.
        let noEOC = Array(Self.j2k.dropLast(2)) + [0x00, 0x00]
        #expect(FaceImage.withoutJPEG2000Padding(noEOC).padding == 0)
    }

    @Test func theResultCountsThePaddingInANamedWarningAndGivesTheImagesOwnSize() throws {
        let dg2 = DG2.encode(image: Self.jp2 + [UInt8](repeating: 0, count: 64), width: 0, height: 0, encoding: .iso19794_5)
        let result = ReadResult.assemble(
            files: [.dg(2): dg2], access: nil, applications: nil, skipped: [], transport: TransportReport(), durationMs: 0)
        #expect(result.face?.size == Self.jp2.count)
        #expect(result.face?.mimeType == "image/jp2")
        #expect(result.warnings.contains { $0.hasPrefix("faceImagePadding: 64 bytes") }, "\(result.warnings)")
        let plain = ReadResult.assemble(
            files: [.dg(2): DG2.encode(image: Self.jp2, width: 0, height: 0, encoding: .iso19794_5)],
            access: nil, applications: nil, skipped: [], transport: TransportReport(), durationMs: 0)
        #expect(!plain.warnings.contains { $0.hasPrefix("faceImagePadding") })
    }
}
