import Testing
@testable import MRTDScanners

@Suite struct AccessISReportDecoderTests {
    static let ocr = Frames.accessISFrame(type: 0x02, bytes(Specimen.td3.map { $0 + "\r" }.joined()))

    @Test(arguments: [1, 5, 63, 64, 65, 4096])
    func reassemblesReportsCutAnywhere(chunk: Int) {
        let stream = Frames.accessIS(Self.ocr)
        #expect(decode(AccessISReportDecoder(), stream, chunk: chunk).map(\.lines) == [Specimen.td3])
    }

    @Test func theFlowControlBitIsNotPartOfTheLength() {
        let stream = Frames.accessIS(Self.ocr, flowControl: true)
        #expect(decode(AccessISReportDecoder(), stream, chunk: 64).map(\.lines) == [Specimen.td3])
    }

    @Test func otherReportSizes() {
        let stream = Frames.accessIS(Self.ocr, size: 32)
        #expect(decode(AccessISReportDecoder(reportSize: 32), stream, chunk: 7).map(\.lines) == [Specimen.td3])
    }

    @Test func magstripeBarcodeAndUnknownFramesAreIgnored() {
        let magstripe = Frames.accessISFrame(type: UInt8(ascii: "M"), bytes("%B4111111111111111^DOE/J?"))
        let barcode = Frames.accessISFrame(type: UInt8(ascii: "B"), bytes("M1DOE/JOHN E ABC123"))
        let unknown = Frames.accessISFrame(type: 0x7E, [0x00, 0xFF, 0x10])
        let td1 = Frames.accessISFrame(type: 0x02, bytes(Specimen.td1.map { $0 + "\r" }.joined()))
        let frames = decode(AccessISReportDecoder(), Frames.accessIS(magstripe + barcode + unknown + td1), chunk: 64)
        #expect(frames.count == 4)
        #expect(frames.prefix(3).allSatisfy { $0.isIgnored })
        #expect(frames[3].lines == Specimen.td1)
        // The kind names the type byte only, never the frame's content.
        if case .ignored(let kind) = frames[0] { #expect(kind.contains("0x4D") && !kind.contains("4111")) }
    }

    @Test func noiseBetweenFramesAndAFrameCutShort() {
        let cut = Array(Self.ocr.prefix(30))
        let stream = Frames.accessIS(bytes("xx") + cut + Self.ocr + bytes("\r\n"))
        let frames = decode(AccessISReportDecoder(), stream, chunk: 10)
        #expect(frames.count == 2)
        #expect(frames[0].isMalformed)
        #expect(frames[1].lines == Specimen.td3)
    }

    @Test func aPartialReportWaitsForItsRest() {
        var decoder = AccessISReportDecoder()
        let stream = Frames.accessIS(Self.ocr)
        #expect(decoder.feed(Array(stream.prefix(stream.count - 1))).isEmpty)
        #expect(decoder.feed([stream.last!]).map(\.lines) == [Specimen.td3])
    }
}
