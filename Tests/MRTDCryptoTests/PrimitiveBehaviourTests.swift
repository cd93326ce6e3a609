import MRTDCrypto
import SwiftASN1
import Testing

@Suite("Digests")
struct DigestTests {
    @Test(arguments: [
        (DigestAlgorithm.sha1, "A9993E364706816ABA3E25717850C26C9CD0D89D"),
        (.sha224, "23097D223405D8228642A477BDA255B32AADBCE4BDA0B3F7E36C9DA7"),
        (.sha256, "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD"),
        (.sha384, "CB00753F45A35E8BB5A03D699AC65007272C32AB0EDED1631A8B605A43FF5BED8086072BA1E7CC2358BAECA134C825A7"),
        (.sha512, "DDAF35A193617ABACC417349AE20413112E6FA4E89A97EA20A9EEEE64B55D39A2192992A274FC1A836BA3C23A3FEEBBD454D4423643CE80E2A9AC94FA54CA49F"),
    ])
    func digestOfABCMatchesFIPS180KnownAnswer(algorithm: DigestAlgorithm, expected: String) {
        let digest = algorithm.hash(Array("abc".utf8))
        #expect(digest.hexString == expected)
        #expect(digest.count == algorithm.outputLength)
    }

    @Test func emptyInputHashesToTheEmptyDigest() {
        #expect(DigestAlgorithm.sha256.hash([UInt8]()).hexString == "E3B0C44298FC1C149AFBF4C8996FB92427AE41E4649B934CA495991B7852B855")
    }

    @Test func sliceAndNonContiguousCollectionsHashLikeArrays() {
        let bytes = Array("xxabcxx".utf8)
        let expected = DigestAlgorithm.sha1.hash(Array("abc".utf8))
        #expect(DigestAlgorithm.sha1.hash(bytes[2..<5]) == expected)
        #expect(DigestAlgorithm.sha1.hash("abc".utf8) == expected)
        #expect(DigestAlgorithm.sha1.hash(Set<UInt8>([0x61]).lazy.map { $0 }) == DigestAlgorithm.sha1.hash([0x61]))
    }

    @Test(arguments: DigestAlgorithm.allCases)
    func oidRoundTrips(algorithm: DigestAlgorithm) {
        #expect(DigestAlgorithm(oid: algorithm.oid) == algorithm)
    }

    @Test func unknownOIDIsRejected() {
        #expect(DigestAlgorithm(oid: "1.2.3.4") == nil)
    }
}

@Suite("Padding")
struct PaddingTests {
    @Test(arguments: [
        ("", 8, "8000000000000000"),
        ("01020304050607", 8, "0102030405060780"),
        ("0102030405060708", 8, "01020304050607088000000000000000"),
        ("99029000", 16, "99029000800000000000000000000000"),
    ])
    func padAppendsMarkerAndZerosToABlockMultiple(input: String, blockSize: Int, expected: String) throws {
        let padded = ISO9797Padding.pad(hex(input), blockSize: blockSize)
        #expect(padded.hexString == expected)
        #expect(try ISO9797Padding.unpad(padded) == hex(input))
    }

    @Test(arguments: ["", "0000000000000000", "0102030405060708", "0180000000000001"])
    func unpadRejectsInputWithoutMarker(input: String) {
        #expect(throws: CryptoError.invalidPadding) { try ISO9797Padding.unpad(hex(input)) }
    }
}

@Suite("Cipher input validation")
struct CipherValidationTests {
    static let data8 = [UInt8](repeating: 0, count: 8)
    static let data16 = [UInt8](repeating: 0, count: 16)

    @Test(arguments: [0, 8, 15, 17, 32])
    func tripleDESRejectsKeysOtherThan16Or24Bytes(length: Int) {
        let key = [UInt8](repeating: 1, count: length)
        #expect(throws: CryptoError.invalidKeyLength(length)) { try TripleDES.encryptCBC(key: key, data: Self.data8) }
        #expect(throws: CryptoError.invalidKeyLength(length)) { try TripleDES.decryptCBC(key: key, data: Self.data8) }
    }

    @Test(arguments: [1, 7, 9, 23])
    func tripleDESRejectsPartialBlocks(length: Int) {
        let key = [UInt8](repeating: 1, count: 16)
        #expect(throws: CryptoError.invalidDataLength(length)) {
            try TripleDES.encryptCBC(key: key, data: [UInt8](repeating: 0, count: length))
        }
    }

    @Test func tripleDESRejectsWrongIVLength() {
        #expect(throws: CryptoError.self) {
            try TripleDES.encryptCBC(key: Self.data16, iv: Self.data16, data: Self.data8)
        }
    }

    @Test func threeKeyTripleDESRoundTripsAndTwoKeyEqualsKAKBKA() throws {
        let k = hex("0123456789ABCDEFFEDCBA9876543210")
        let plain = hex("4E6F77206973207468652074696D6520666F7220616C6C20")
        let iv = hex("1122334455667788")
        let twoKey = try TripleDES.encryptCBC(key: k, iv: iv, data: plain)
        let threeKey = try TripleDES.encryptCBC(key: k + Array(k.prefix(8)), iv: iv, data: plain)
        #expect(twoKey == threeKey)
        #expect(try TripleDES.decryptCBC(key: k, iv: iv, data: twoKey) == plain)
    }

    @Test func emptyInputEncryptsToEmptyOutput() throws {
        #expect(try TripleDES.encryptCBC(key: Self.data16, data: []) == [])
        #expect(try AES.encryptCBC(key: Self.data16, iv: Self.data16, data: []) == [])
    }

    @Test(arguments: [0, 8, 15, 20, 33])
    func aesRejectsKeysOtherThan16_24Or32Bytes(length: Int) {
        let key = [UInt8](repeating: 1, count: length)
        #expect(throws: CryptoError.invalidKeyLength(length)) { try AES.encryptCBC(key: key, iv: Self.data16, data: Self.data16) }
        #expect(throws: CryptoError.invalidKeyLength(length)) { try AES.encryptECB(key: key, data: Self.data16) }
        #expect(throws: CryptoError.invalidKeyLength(length)) { try AESCMAC.mac(key: key, data: Self.data16) }
    }

    @Test(arguments: [8, 15, 17])
    func aesRejectsPartialBlocks(length: Int) {
        #expect(throws: CryptoError.invalidDataLength(length)) {
            try AES.decryptCBC(key: Self.data16, iv: Self.data16, data: [UInt8](repeating: 0, count: length))
        }
    }

    @Test func aesRejectsWrongIVLength() {
        #expect(throws: CryptoError.self) { try AES.encryptCBC(key: Self.data16, iv: Self.data8, data: Self.data16) }
    }

    @Test(arguments: [16, 24, 32])
    func aesRoundTripsForEveryKeySize(length: Int) throws {
        let key = (0..<length).map { UInt8($0) }
        let plain = (0..<48).map { UInt8($0 * 3 & 0xFF) }
        let iv = [UInt8](repeating: 0x5A, count: 16)
        #expect(try AES.decryptCBC(key: key, iv: iv, data: AES.encryptCBC(key: key, iv: iv, data: plain)) == plain)
        #expect(try AES.decryptECB(key: key, data: AES.encryptECB(key: key, data: plain)) == plain)
    }

    @Test(arguments: [8, 15, 24])
    func retailMACRejectsKeysOtherThan16Bytes(length: Int) {
        #expect(throws: CryptoError.invalidKeyLength(length)) {
            try RetailMAC.mac(key: [UInt8](repeating: 1, count: length), data: Self.data8)
        }
    }

    @Test(arguments: [0, 7, 9])
    func retailMACRejectsUnpaddedOrEmptyInput(length: Int) {
        #expect(throws: CryptoError.invalidDataLength(length)) {
            try RetailMAC.mac(key: Self.data16, data: [UInt8](repeating: 0, count: length))
        }
    }

    @Test func errorDescriptionNamesTheProblem() {
        #expect(CryptoError.invalidKeyLength(7).description == "invalid key length: 7 bytes")
    }
}

@Suite("Random sources")
struct RandomSourceTests {
    @Test func scriptedRandomReturnsBytesInOrderThenThrows() throws {
        let random = ScriptedRandom(hex("781723860C06C2260B795240CB7049B01C19B33E32804F0B"))
        #expect(random.remaining == 24)
        #expect(try random.randomBytes(8).hexString == "781723860C06C226")
        #expect(try random.randomBytes(16).hexString == "0B795240CB7049B01C19B33E32804F0B")
        #expect(random.remaining == 0)
        #expect(try random.randomBytes(0) == [])
        #expect(throws: CryptoError.randomSourceExhausted) { try random.randomBytes(1) }
    }

    @Test func scriptedRandomConsumesNothingOnAnOverlongRequest() throws {
        let random = ScriptedRandom([1, 2, 3])
        #expect(throws: CryptoError.randomSourceExhausted) { try random.randomBytes(4) }
        #expect(random.remaining == 3)
        #expect(try random.randomBytes(3) == [1, 2, 3])
    }

    @Test func recordingRandomRecordsEveryByteInOrder() throws {
        let random = RecordingRandom(ScriptedRandom([1, 2, 3, 4, 5]))
        let first = try random.randomBytes(2)
        let second = try random.randomBytes(3)
        #expect(random.recorded == first + second)
        #expect(random.recorded == [1, 2, 3, 4, 5])
        #expect(throws: CryptoError.randomSourceExhausted) { try random.randomBytes(1) }
        #expect(random.recorded == [1, 2, 3, 4, 5])
    }

    @Test func systemRandomReturnsTheRequestedCountAndVaries() throws {
        let random = SystemRandom()
        let a = try random.randomBytes(32)
        let b = try random.randomBytes(32)
        #expect(a.count == 32)
        #expect(a != b)
        #expect(try random.randomBytes(0) == [])
    }

    @Test func secureWipeZeroesAndKeepsTheCount() {
        var key = hex("979EC13B1CBFE9DCD01AB0FED307EAE5")
        secureWipe(&key)
        #expect(key == [UInt8](repeating: 0, count: 16))
        var empty: [UInt8] = []
        secureWipe(&empty)
        #expect(empty.isEmpty)
    }
}
