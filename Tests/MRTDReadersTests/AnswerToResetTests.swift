import MRTDCore
import MRTDTesting
import Testing

@testable import MRTDReaders

@Suite struct AnswerToResetTests {
    @Test func aPCSCContactlessATRGivesItsHistoricalBytesAndT1() throws {
        // PC/SC Part 3: 3B 8n 80 01 <historical> TCK; here an ISO 14443-4 card's ATS bytes.
        let atr = try AnswerToReset(hexBytes("3B 88 80 01 00 00 00 00 77 81 81 00 7E"))
        #expect(atr.isContactless)
        #expect(atr.protocols == [0, 1])
        #expect(atr.historicalBytes == [0x00, 0x00, 0x00, 0x00, 0x77, 0x81, 0x81, 0x00])
        #expect(!atr.isContactlessStorageCard)
        #expect(atr.advertisesExtendedLength == nil)
    }

    @Test func aContactlessStorageCardIsRecognised() throws {
        // A MIFARE Classic 1K as PC/SC Part 3 encodes it (PC/SC RID A0 00 00 03 06).
        let atr = try AnswerToReset(hexBytes("3B 8F 80 01 80 4F 0C A0 00 00 03 06 03 00 01 00 00 00 00 6A"))
        #expect(atr.isContactless && atr.isContactlessStorageCard)
    }

    @Test func aContactT1ATRIsNotContactless() throws {
        // TA1 = 96, TD1 = 81 (T=1), TD2 = 31 (TA3, TB3 follow, T=1), 7 historical bytes.
        let atr = try AnswerToReset(hexBytes("3B D6 18 00 81 31 FE 7D 00 00 00 00 00 00 FD"))
        #expect(!atr.isContactless)
        #expect(atr.protocols == [1])
        #expect(atr.historicalBytes.count == 6)
    }

    @Test func aT0OnlyATRNeedsNoCheckByte() throws {
        let atr = try AnswerToReset(hexBytes("3B 02 14 50"))
        #expect(atr.protocols == [0])
        #expect(atr.historicalBytes == [0x14, 0x50])
    }

    @Test(arguments: [true, false])
    func cardCapabilitiesInTheHistoricalBytesSayWhetherExtendedLengthWorks(_ extended: Bool) throws {
        let atr = try AnswerToReset(VPCDCard.contactlessATR(extendedLength: extended))
        #expect(atr.isContactless)
        #expect(atr.advertisesExtendedLength == extended)
    }

    @Test(arguments: [
        ("", AnswerToReset.ParseError.truncated),
        ("3B", .truncated),
        ("12 00", .invalidInitialCharacter(0x12)),
        ("3B 88 80 01 00 00", .truncated),
        ("3B 88 80 01 00 00 00 00 77 81 81 00", .truncated),
        ("3B 88 80 01 00 00 00 00 77 81 81 00 7A", .checkByteMismatch),
        ("3B F0 11", .truncated),
    ])
    func malformedATRsGiveSpecificErrors(_ hex: String, _ expected: AnswerToReset.ParseError) {
        #expect(throws: expected) { try AnswerToReset(hexBytes(hex)) }
    }

    @Test func anATRLongerThan33BytesIsRefused() {
        #expect(throws: AnswerToReset.ParseError.tooLong(34)) {
            try AnswerToReset([0x3B] + [UInt8](repeating: 0, count: 33))
        }
    }
}

/// Test vectors are written in hex; a typo is a test failure, not a crash.
func hexBytes(_ hex: String) -> [UInt8] {
    guard let bytes = [UInt8](hex: hex) else {
        Issue.record("bad hex in a test vector: \(hex)")
        return []
    }
    return bytes
}
