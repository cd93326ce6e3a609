import Testing
@testable import MRTDCore

@Suite struct CommandAPDUTests {
    struct Vector: Sendable, CustomTestStringConvertible {
        let name: String
        let apdu: CommandAPDU
        let extended: Bool?
        let bytes: [UInt8]
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "case 1", apdu: CommandAPDU(ins: 0x84, p1: 0, p2: 0), extended: nil,
               bytes: [0x00, 0x84, 0x00, 0x00]),
        Vector(name: "case 2S", apdu: CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8), extended: nil,
               bytes: [0x00, 0x84, 0x00, 0x00, 0x08]),
        Vector(name: "case 2S Ne 256", apdu: CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 256), extended: nil,
               bytes: [0x00, 0xB0, 0x00, 0x00, 0x00]),
        Vector(name: "case 3S", apdu: CommandAPDU(ins: 0xA4, p1: 2, p2: 0x0C, data: [0x01, 0x1E]),
               extended: nil, bytes: [0x00, 0xA4, 0x02, 0x0C, 0x02, 0x01, 0x1E]),
        Vector(name: "case 4S", apdu: CommandAPDU(cla: 0x0C, ins: 0xB0, p1: 0, p2: 0, data: [0xAA], ne: 256),
               extended: nil, bytes: [0x0C, 0xB0, 0x00, 0x00, 0x01, 0xAA, 0x00]),
        Vector(name: "case 2E", apdu: CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 65_536), extended: nil,
               bytes: [0x00, 0xB0, 0x00, 0x00, 0x00, 0x00, 0x00]),
        Vector(name: "case 2E forced", apdu: CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 0x1234), extended: true,
               bytes: [0x00, 0xB0, 0x00, 0x00, 0x00, 0x12, 0x34]),
        Vector(name: "case 3E forced", apdu: CommandAPDU(ins: 0x22, p1: 0xC1, p2: 0xA4, data: [1, 2]),
               extended: true, bytes: [0x00, 0x22, 0xC1, 0xA4, 0x00, 0x00, 0x02, 1, 2]),
        Vector(name: "case 4E forced", apdu: CommandAPDU(ins: 0xB1, p1: 0, p2: 0, data: [0x54, 0x02, 0x80, 0x00], ne: 65_536),
               extended: true, bytes: [0x00, 0xB1, 0x00, 0x00, 0x00, 0x00, 0x04, 0x54, 0x02, 0x80, 0x00, 0x00, 0x00]),
    ]

    @Test(arguments: vectors)
    func encodesAndParsesEveryCase(_ v: Vector) throws {
        #expect(try v.apdu.encoded(extended: v.extended) == v.bytes)
        #expect(try CommandAPDU(bytes: v.bytes) == v.apdu)
    }

    @Test func longDataSwitchesToExtendedAutomatically() throws {
        let apdu = CommandAPDU(ins: 0xD6, p1: 0, p2: 0, data: Array(repeating: 0x11, count: 300), ne: 10)
        #expect(apdu.needsExtendedLength)
        let bytes = try apdu.encoded()
        #expect(Array(bytes[4..<7]) == [0x00, 0x01, 0x2C])
        #expect(Array(bytes.suffix(2)) == [0x00, 0x0A])
        #expect(bytes.count == 4 + 3 + 300 + 2)
        #expect(try CommandAPDU(bytes: bytes) == apdu)
    }

    @Test func shortFormRefusedWhenExtendedIsNeeded() {
        let apdu = CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: 257)
        #expect(throws: APDUError.extendedLengthRequired) { try apdu.encoded(extended: false) }
    }

    @Test(arguments: [0, -1, 65_537])
    func neOutsideRangeIsRejected(_ ne: Int) {
        #expect(throws: APDUError.neOutOfRange(ne)) { try CommandAPDU(ins: 0xB0, p1: 0, p2: 0, ne: ne).encoded() }
    }

    @Test func dataLongerThan65535IsRejected() {
        let apdu = CommandAPDU(ins: 0xD6, p1: 0, p2: 0, data: Array(repeating: 0, count: 65_536))
        #expect(throws: APDUError.dataTooLong(65_536)) { try apdu.encoded() }
    }

    @Test(arguments: [
        [0x00, 0xA4, 0x02],                          // shorter than header
        [0x00, 0xA4, 0x02, 0x0C, 0x03, 0x01],        // Lc 3, 1 byte present
        [0x00, 0xA4, 0x02, 0x0C, 0x01, 0x01, 0x02, 0x03], // Lc 1, 3 bytes present
        [0x00, 0xB0, 0x00, 0x00, 0x00, 0x01],        // extended marker with 1 byte
        [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01], // extended Lc 0 followed by data
        [0x00, 0xD6, 0x00, 0x00, 0x00, 0x00, 0x03, 0x01], // extended Lc 3, 1 byte present
    ] as [[UInt8]])
    func inconsistentLengthsAreRejected(_ bytes: [UInt8]) {
        #expect {
            try CommandAPDU(bytes: bytes)
        } throws: { error in
            guard case .malformed = error as? APDUError else { return false }
            return true
        }
    }
}

@Suite struct ResponseAPDUTests {
    @Test func splitsDataAndStatusWord() throws {
        let r = try ResponseAPDU(bytes: [0x01, 0x02, 0x90, 0x00])
        #expect(r.data == [0x01, 0x02])
        #expect(r.statusWord == .success)
        #expect(r.bytes == [0x01, 0x02, 0x90, 0x00])
    }

    @Test(arguments: [0, 1])
    func responsesWithoutStatusWordAreRejected(_ n: Int) {
        #expect(throws: APDUError.responseTooShort(n)) { try ResponseAPDU(bytes: Array(repeating: 0x90, count: n)) }
    }
}

@Suite struct StatusWordTests {
    @Test(arguments: [
        (StatusWord.fileNotFound, "6A82 (file or application not found)"),
        (StatusWord(rawValue: 0x6110), "6110 (16 bytes still available)"),
        (StatusWord(rawValue: 0x6C20), "6C20 (wrong Le, exact length 32)"),
        (StatusWord(rawValue: 0x63C2), "63C2 (verification failed, 2 tries left)"),
        (StatusWord.success, "9000 (normal processing)"),
        (StatusWord.smDataObjectsIncorrect, "6988 (incorrect secure messaging data objects)"),
    ])
    func describesStatusWordsReadably(_ sw: StatusWord, _ text: String) {
        #expect(sw.description == text)
    }

    @Test func everyStatusWordClassHasReadableText() {
        for sw1 in UInt8(0x60)...0x6F where sw1 != 0x60 {
            let sw = StatusWord(sw1: sw1, sw2: 0x42)
            #expect(!sw.description.contains("unknown"), "\(sw.hex)")
        }
    }

    @Test func exposesLeHintsAndBytesRemaining() {
        #expect(StatusWord(rawValue: 0x6C00).correctLe == 256)
        #expect(StatusWord(rawValue: 0x6C12).correctLe == 0x12)
        #expect(StatusWord(rawValue: 0x6100).bytesRemaining == 256)
        #expect(StatusWord(rawValue: 0x6105).bytesRemaining == 5)
        #expect(StatusWord.success.correctLe == nil)
        #expect(StatusWord.success.bytesRemaining == nil)
        #expect(StatusWord(sw1: 0x6A, sw2: 0x82) == .fileNotFound)
        #expect(StatusWord.fileNotFound.sw1 == 0x6A && StatusWord.fileNotFound.sw2 == 0x82)
        #expect(StatusWord.success.isSuccess && !StatusWord.endOfFileReached.isSuccess)
    }
}
