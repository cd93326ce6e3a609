import MRTDCrypto
import Testing

/// ICAO Doc 9303-11 Appendix D (Basic Access Control worked example), VECTORS.md §1.
@Suite("ICAO 9303-11 Appendix D: BAC")
struct BACVectorTests {
    static let kSeed = hex("239AB9CB282DAF66231DC5A4DF6BFBAE")
    static let kEnc = hex("AB94FDECF2674FDFB9B391F85D7F76F2")
    static let kMac = hex("7962D9ECE03D1ACD4C76089DCE131543")

    @Test func mrzInformationHashesToTheKeySeed() {
        let digest = DigestAlgorithm.sha1.hash(Array("L898902C<369080619406236".utf8))
        #expect(digest.hexString == "239AB9CB282DAF66231DC5A4DF6BFBAEDF477565")
        #expect(Array(digest.prefix(16)) == Self.kSeed)
    }

    @Test func keySeedDerivesParityAdjustedEncryptionAndMACKeys() {
        #expect(KeyDerivation.derive(sharedSecret: Self.kSeed, counter: KeyDerivation.encryptionCounter, cipher: .tripleDES) == Self.kEnc)
        #expect(KeyDerivation.derive(sharedSecret: Self.kSeed, counter: KeyDerivation.macCounter, cipher: .tripleDES) == Self.kMac)
    }

    @Test func parityAdjustmentMatchesAppendixD2() {
        #expect(KeyDerivation.adjustParity(hex("AB94FCEDF2664EDFB9B291F85D7F77F2")) == Self.kEnc)
        #expect(KeyDerivation.adjustParity(hex("7862D9ECE03C1BCD4D77089DCF131442")) == Self.kMac)
    }

    @Test func terminalCryptogramAndMACMatchAppendixD3() throws {
        let s = hex("781723860C06C2264608F919887022120B795240CB7049B01C19B33E32804F0B")
        let eIFD = try TripleDES.encryptCBC(key: Self.kEnc, data: s)
        #expect(eIFD.hexString == "72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F2")
        let mIFD = try RetailMAC.mac(key: Self.kMac, data: ISO9797Padding.pad(eIFD, blockSize: 8))
        #expect(mIFD.hexString == "5F1448EEA8AD90A7")
    }

    @Test func chipResponseDecryptsAndVerifiesPerAppendixD3() throws {
        let eIC = hex("46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F")
        #expect(try RetailMAC.mac(key: Self.kMac, data: ISO9797Padding.pad(eIC, blockSize: 8)).hexString == "2F2D235D074D7449")
        let r = try TripleDES.decryptCBC(key: Self.kEnc, data: eIC)
        #expect(r.hexString == "4608F91988702212781723860C06C2260B4F80323EB3191CB04970CB4052790B")
    }

    @Test func sessionKeysDeriveFromXoredKeySeed() {
        let kIFD = hex("0B795240CB7049B01C19B33E32804F0B")
        let kIC = hex("0B4F80323EB3191CB04970CB4052790B")
        let seed = zip(kIFD, kIC).map { $0 ^ $1 }
        #expect(seed.hexString == "0036D272F5C350ACAC50C3F572D23600")
        #expect(KeyDerivation.derive(sharedSecret: seed, counter: 1, cipher: .tripleDES).hexString == "979EC13B1CBFE9DCD01AB0FED307EAE5")
        #expect(KeyDerivation.derive(sharedSecret: seed, counter: 2, cipher: .tripleDES).hexString == "F1CB1F1FB5ADF208806B89DC579DC1F8")
    }
}

/// ICAO Doc 9303-11 Appendix D.4 (3DES secure messaging), VECTORS.md §1.
@Suite("ICAO 9303-11 Appendix D.4: 3DES secure messaging")
struct SecureMessaging3DESVectorTests {
    static let ksEnc = hex("979EC13B1CBFE9DCD01AB0FED307EAE5")
    static let ksMac = hex("F1CB1F1FB5ADF208806B89DC579DC1F8")

    struct MACVector: Sendable, CustomTestStringConvertible {
        let name: String
        let unpadded: String
        let cc: String
        var testDescription: String { name }
    }

    /// N = SSC || M (commands) and K = SSC || DOs (responses), before padding.
    static let macVectors: [MACVector] = [
        .init(name: "SELECT EF.COM command", unpadded: "887022120C06C2270CA4020C800000008709016375432908C044F6", cc: "BF8B92D635FF24F8"),
        .init(name: "SELECT EF.COM response", unpadded: "887022120C06C228990290 00", cc: "FA855A5D4C50A8ED"),
        .init(name: "READ BINARY 4 command", unpadded: "887022120C06C2290CB0000080000000970104", cc: "ED6705417E96BA55"),
        .init(name: "READ BINARY 4 response", unpadded: "887022120C06C22A8709019FF0EC34F9922651990290 00", cc: "AD55CC17140B2DED"),
        .init(name: "READ BINARY 18 command", unpadded: "887022120C06C22B0CB0000480000000970112", cc: "2EA28A70F3C7B535"),
        .init(name: "READ BINARY 18 response",
              unpadded: "887022120C06C22C871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A99029000", cc: "C8B2787EAEA07D74"),
    ]

    @Test(arguments: macVectors)
    func cryptographicChecksumMatchesAppendixD4(_ vector: MACVector) throws {
        let padded = ISO9797Padding.pad(hex(vector.unpadded), blockSize: 8)
        #expect(try RetailMAC.mac(key: Self.ksMac, data: padded).hexString == vector.cc)
    }

    @Test func commandDataEncryptsToDO87OfAppendixD4() throws {
        let padded = ISO9797Padding.pad(hex("011E"), blockSize: 8)
        #expect(padded.hexString == "011E800000000000")
        #expect(try TripleDES.encryptCBC(key: Self.ksEnc, data: padded).hexString == "6375432908C044F6")
    }

    @Test(arguments: [
        ("9FF0EC34F9922651", "60145F01"),
        ("FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A", "04303130365F36063034303030305C026175"),
    ])
    func responseDataDecryptsAndUnpadsPerAppendixD4(encrypted: String, plain: String) throws {
        let decrypted = try TripleDES.decryptCBC(key: Self.ksEnc, data: hex(encrypted))
        #expect(try ISO9797Padding.unpad(decrypted).hexString == plain)
    }
}
