import Testing
@testable import MRTDScanners

@Suite struct DeskoDecoderTests {
    @Test(arguments: [1, 2, 3, 7, 1000])
    func decodesEveryFormatInPiecesOfAnySize(chunk: Int) {
        let stream = Frames.desko(Specimen.td3) + Frames.desko(Specimen.td1) + Frames.desko(Specimen.td2)
        let frames = decode(DeskoDecoder(), stream, chunk: chunk)
        #expect(frames.map(\.lines) == [Specimen.td3, Specimen.td1, Specimen.td2])
    }

    @Test func ignoresNoiseBetweenFrames() {
        let stream = bytes("garbage\r\n\u{7}") + Frames.desko(Specimen.td3) + bytes("\r\nmore noise<<<") + Frames.desko(Specimen.td1)
        #expect(decode(DeskoDecoder(), stream, chunk: 5).map(\.lines) == [Specimen.td3, Specimen.td1])
    }

    @Test func aFrameCutShortIsMalformedAndTheNextStillDecodes() {
        let cut = Array(Frames.desko(Specimen.td3).dropLast(20))
        let frames = decode(DeskoDecoder(), cut + Frames.desko(Specimen.td1), chunk: 4)
        #expect(frames.count == 2)
        #expect(frames[0].isMalformed)
        #expect(frames[1].lines == Specimen.td1)
    }

    @Test func anEndlessFrameIsDroppedNotBuffered() {
        let endless = [UInt8(0x02)] + [UInt8](repeating: 0x41, count: 3000)
        let frames = decode(DeskoDecoder(), endless + Frames.desko(Specimen.td2), chunk: 64)
        #expect(frames.first?.isMalformed == true)
        #expect(frames.last?.lines == Specimen.td2)
    }

    @Test func anEmptyFrameIsIgnored() {
        #expect(decode(DeskoDecoder(), bytes("\u{02}\r\r\u{03}"), chunk: 1) == [.ignored(kind: "empty frame")])
    }
}

@Suite struct RTEDecoderTests {
    @Test(arguments: [1, 3, 10, 500])
    func decodesPaddedLinesAndMissingLines(chunk: Int) {
        let stream = Frames.rte(Specimen.td3, width: 44) + Frames.rte(Specimen.td1, width: 30) + Frames.rte(Specimen.td2, width: 44)
        let frames = decode(RTEDecoder(), stream, chunk: chunk)
        #expect(frames.map(\.lines) == [Specimen.td3, Specimen.td1, Specimen.td2])
    }

    @Test func shortLinesLoseOnlyTheirPadding() {
        // An ID card line read short (a slip the check digits will catch): padding removed, nothing else.
        let short = [String(Specimen.td3[0].dropLast(3)), Specimen.td3[1]]
        #expect(decode(RTEDecoder(), Frames.rte(short, width: 44), chunk: 7).map(\.lines) == [short])
    }

    @Test func aWrongBlockCheckIsALineError() {
        let good = Frames.rte(Specimen.td3, width: 44)
        let bad = Frames.rte(Specimen.td3, width: 44, bcc: good.last! ^ 0x5A)
        let frames = decode(RTEDecoder(), bad + good, chunk: 16)
        #expect(frames == [.malformed(reason: "block check character wrong"), .mrz(ScannedMRZ(lines: Specimen.td3))])
        // With the check turned off the same block decodes.
        #expect(decode(RTEDecoder(verifiesBlockCheck: false), bad, chunk: 16).map(\.lines) == [Specimen.td3])
    }

    @Test func blocksOfOtherDevicesAreIgnoredAndNoiseSkipped() {
        let other = Frames.rte(["SOMETHING"], width: 10, device: "MU")
        let stream = bytes("noise") + other + bytes("\r\n") + Frames.rte(Specimen.td3, width: 44)
        let frames = decode(RTEDecoder(), stream, chunk: 9)
        #expect(frames.count == 2)
        #expect(frames[0].isIgnored)
        #expect(frames[1].lines == Specimen.td3)
    }

    @Test func aBlockCutByTheNextStartIsMalformed() {
        let cut = Array(Frames.rte(Specimen.td3, width: 44).prefix(40))
        let frames = decode(RTEDecoder(), cut + Frames.rte(Specimen.td1, width: 30), chunk: 5)
        #expect(frames.first?.isMalformed == true)
        #expect(frames.last?.lines == Specimen.td1)
    }
}

@Suite struct LineDecoderTests {
    @Test(arguments: ["\r", "\n", "\r\n"])
    func groupsLinesIntoFormats(ending: String) {
        let text = (Specimen.td3 + Specimen.td1 + Specimen.td2).map { $0 + ending }.joined()
        for chunk in [1, 13, 4096] {
            #expect(decode(LineDecoder(), bytes(text), chunk: chunk).map(\.lines) == [Specimen.td3, Specimen.td1, Specimen.td2])
        }
    }

    @Test func noiseLinesAreIgnoredAndAnUnfinishedMRZIsMalformed() {
        let text = "READY\r\n" + Specimen.td1[0] + "\r\n" + Specimen.td3[0] + "\r\n" + Specimen.td3[1] + "\r\n"
        let frames = decode(LineDecoder(), bytes(text), chunk: 3)
        #expect(frames.count == 3)
        #expect(frames[0].isIgnored)
        #expect(frames[1].isMalformed)
        #expect(frames[2].lines == Specimen.td3)
    }
}
