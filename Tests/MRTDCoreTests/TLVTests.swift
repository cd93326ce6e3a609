import Testing
@testable import MRTDCore

@Suite struct TLVRobustnessTests {
    @Test func hugeLongFormLengthFailsBeforeReading() {
        #expect(throws: TLVError.truncated(needed: 0xFFFF_FFFF, available: 2)) {
            try TLV.parse([0x61, 0x84, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00])
        }
        #expect(throws: TLVError.unsupportedLength(firstByte: 0x85)) {
            try TLV.parse([0x61, 0x85, 0x01, 0x00, 0x00, 0x00, 0x00])
        }
    }

    @Test func nestedLyingLengthIsRejected() {
        // Outer length fine, inner length larger than the outer value.
        #expect(throws: TLVError.truncated(needed: 9, available: 2)) {
            try TLV.parse([0x61, 0x05, 0x5F, 0x1F, 0x09, 0x41, 0x42])
        }
    }

    /// The nesting cap refuses one constructed level more than the caller allows, and the error
    /// names that caller's cap (it named the default 32 whatever the cap; fuzz_ber_tlv checks it).
    @Test func nestingBeyondTheCallersCapIsRefusedNamingThatCap() throws {
        let threeLevels: [UInt8] = [0x30, 0x06, 0x30, 0x04, 0x30, 0x02, 0x04, 0x00]
        #expect(throws: TLVError.nestingTooDeep(limit: 2)) { try TLV.parse(threeLevels, maxDepth: 2) }
        #expect(throws: TLVError.nestingTooDeep(limit: 1)) { try TLV.parse(threeLevels, maxDepth: 1) }
        #expect(throws: TLVError.nestingTooDeep(limit: 0)) { try TLV.parse(threeLevels, maxDepth: 0) }
        #expect(try TLV.parse(threeLevels, maxDepth: 3).encodedLength == threeLevels.count)
        let deep = (0..<40).reduce([0x04, 0x00] as [UInt8]) { inner, _ in [0x30, UInt8(inner.count)] + inner }
        #expect(throws: TLVError.nestingTooDeep(limit: TLV.defaultMaxDepth)) { try TLV.parse(deep.suffix(2 * 34)) }
    }

    @Test func trailingBytesAreRejected() {
        #expect(throws: TLVError.trailingBytes(1)) { try TLV.parse([0x02, 0x01, 0x01, 0x00]) }
    }

    @Test func encodesAndParsesLongForms() throws {
        let value = [UInt8](repeating: 0xAB, count: 300)
        let bytes = TLV.encode(tag: 0x5F2E, value: value)
        #expect(Array(bytes.prefix(5)) == [0x5F, 0x2E, 0x82, 0x01, 0x2C])
        let tlv = try TLV.parse(bytes, expecting: 0x5F2E)
        #expect(tlv.bytes == value)
        #expect(tlv.encoded == bytes)
    }
}

@Suite struct MinimalBytesTests {
    static let cases: [(UInt, [UInt8])] = [
        (0, [0x00]), (0x84, [0x84]), (0xFF, [0xFF]), (0x100, [0x01, 0x00]), (0x7F21, [0x7F, 0x21]),
        (UInt.max, [UInt8](repeating: 0xFF, count: 8)),
    ]

    @Test(arguments: cases)
    func bigEndianWithoutLeadingZeros(value: UInt, bytes: [UInt8]) {
        #expect(MinimalBytes.bigEndian(value) == bytes)
        #expect(TLV.encodeTag(value) == bytes)
    }

    @Test func negativeValuesCountAsZero() {
        #expect(MinimalBytes.bigEndian(nonNegative: -5) == [0x00])
        #expect(MinimalBytes.bigEndian(nonNegative: 13) == [0x0D])
    }
}
