import MRTDCore
import MRTDTesting
import Testing

/// PN532 host-link framing (UM0701-02 §6.2.1) as libnfc's pn532_uart driver writes it.
@Suite struct PN532FrameTests {
    @Test func aNormalFrameAfterTheWakeUpPreambleIsParsed() throws {
        // What libnfc sends first: the HSU wake-up bytes, then SAMConfiguration (normal mode).
        var buffer = [UInt8](hex: "5555000000" + "0000FF05FBD4140100001700")!
        #expect(PN532Frame.next(from: &buffer) == .information([0xD4, 0x14, 0x01, 0x00, 0x00]))
        #expect(buffer.allSatisfy { $0 == 0x00 }, "only the postamble is left")
        #expect(PN532Frame.next(from: &buffer) == nil)
    }

    @Test func ackAndNackFramesAreRecognised() {
        var buffer = PN532Frame.ackBytes + PN532Frame.nackBytes
        #expect(PN532Frame.next(from: &buffer) == .ack)
        #expect(PN532Frame.next(from: &buffer) == .nack)
        #expect(PN532Frame.next(from: &buffer) == nil)
    }

    @Test func aFrameSplitAcrossReadsWaitsForItsEnd() {
        let frame = PN532Frame.encode([0xD4, 0x40, 0x01, 0x00, 0x84, 0x00, 0x00, 0x08])
        var buffer = Array(frame.prefix(7))
        #expect(PN532Frame.next(from: &buffer) == nil)
        buffer += frame.dropFirst(7)
        #expect(PN532Frame.next(from: &buffer) == .information([0xD4, 0x40, 0x01, 0x00, 0x84, 0x00, 0x00, 0x08]))
    }

    @Test func framesAbove255BytesUseTheExtendedFormat() {
        let data: [UInt8] = [0xD5, 0x41, 0x00] + [UInt8](repeating: 0xAB, count: 258)
        let frame = PN532Frame.encode(data)
        #expect(Array(frame.prefix(8)) == [0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x01, 0x05, 0xFA])
        #expect(frame.count == 8 + data.count + 2)
        var buffer = frame
        #expect(PN532Frame.next(from: &buffer) == .information(data))
    }

    @Test func normalFramesRoundTripAtTheirLargestSize() {
        let data: [UInt8] = [0xD4] + (0..<254).map { UInt8($0 & 0xFF) }
        let frame = PN532Frame.encode(data)
        #expect(frame[3] == 0xFF && frame[4] == 0x01, "LEN FF, LCS 01: still a normal frame")
        var buffer = frame
        #expect(PN532Frame.next(from: &buffer) == .information(data))
    }

    @Test(arguments: [
        "0000FF05FAD4140100001700",  // LEN + LCS != 0
        "0000FF05FBD4140100001800",  // DCS wrong
        "0000FFFFFF0105F9D400",  // extended LCS wrong
    ])
    func corruptFramesAreReportedNotParsed(_ hex: String) throws {
        var buffer = try #require([UInt8](hex: hex))
        #expect(PN532Frame.next(from: &buffer) == .corrupt)
    }
}
