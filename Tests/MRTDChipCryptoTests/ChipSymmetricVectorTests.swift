import MRTDChipCrypto
import Testing

/// The chip side's symmetric primitives against the published vectors (../shared/vectors/VECTORS.md
/// §1, §7; the same anchors the product's MRTDCryptoTests use): ISO/IEC 9797-1 MAC algorithm 3,
/// AES-CMAC (RFC 4493, SP 800-38B), the Doc 9303 KDF with 3DES parity, BAC key derivation.
@Suite("Chip crypto: MACs and key derivation vectors")
struct ChipSymmetricVectorTests {
    @Test(arguments: [
        ("0123456789ABCDEFFEDCBA9876543210", "4E6F77206973207468652074696D6520666F7220616C6C20", "E9086230CA3BE796"),
        ("0123456789ABCDEFFEDCBA9876543210", "4E6F77206973207468652074696D6520666F72206974", "5A692CE64F404145"),
        ("7962D9ECE03D1ACD4C76089DCE131543",
         "72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F2", "5F1448EEA8AD90A7"),
    ])
    func retailMACWithPaddingMethod2(key: String, message: String, mac: String) throws {
        let padded = ChipPadding.pad(hex(message), blockSize: 8)
        #expect(try ChipMAC.retailMAC(key: hex(key), data: padded).hexString == mac)
    }

    @Test func retailMACWithoutPaddingPerBouncyCastle() throws {
        #expect(try ChipMAC.retailMAC(key: hex("7CA110454A1A6E570131D9619DC1376E"), data: Array("Hello World !!!!".utf8)).hexString
            == "F09B856213BAB83B")
    }

    static let m64 = hex("6BC1BEE22E409F96E93D7E117393172AAE2D8A571E03AC9C9EB76FAC45AF8E5130C81C46A35CE411E5FBC1191A0A52EFF69F2445DF4F9B17AD2B417BE66C3710")

    @Test(arguments: [
        ("2B7E151628AED2A6ABF7158809CF4F3C", 0, "BB1D6929E95937287FA37D129B756746"),
        ("2B7E151628AED2A6ABF7158809CF4F3C", 16, "070A16B46B4D4144F79BDD9DD04A287C"),
        ("2B7E151628AED2A6ABF7158809CF4F3C", 20, "7D85449EA6EA19C823A7BF78837DFADE"),
        ("2B7E151628AED2A6ABF7158809CF4F3C", 40, "DFA66747DE9AE63030CA32611497C827"),
        ("2B7E151628AED2A6ABF7158809CF4F3C", 64, "51F0BEBF7E3B9D92FC49741779363CFE"),
        ("603DEB1015CA71BE2B73AEF0857D77811F352C073B6108D72D9810A30914DFF4", 0, "028962F61B7BF89EFC6B551F4667D983"),
        ("603DEB1015CA71BE2B73AEF0857D77811F352C073B6108D72D9810A30914DFF4", 16, "28A7023F452E8F82BD4BF28D8C37C35C"),
        ("603DEB1015CA71BE2B73AEF0857D77811F352C073B6108D72D9810A30914DFF4", 20, "156727DC0878944A023C1FE03BAD6D93"),
    ])
    func aesCMACPerRFC4493AndSP80038B(key: String, length: Int, mac: String) throws {
        #expect(try ChipMAC.cmac(key: hex(key), data: Array(Self.m64.prefix(length))).hexString == mac)
    }

    @Test func bacKeysPerAppendixD() throws {
        let seed = try ChipKeyDerivation.bacSeed(mrzInformation: "L898902C<369080619406236")
        #expect(seed.hexString == "239AB9CB282DAF66231DC5A4DF6BFBAE")
        #expect(try ChipKeyDerivation.derive(seed, counter: ChipKeyDerivation.encryption, cipher: .tripleDES).hexString
            == "AB94FDECF2674FDFB9B391F85D7F76F2")
        #expect(try ChipKeyDerivation.derive(seed, counter: ChipKeyDerivation.mac, cipher: .tripleDES).hexString
            == "7962D9ECE03D1ACD4C76089DCE131543")
        let kSeed = hex("0036D272F5C350ACAC50C3F572D23600")
        #expect(try ChipKeyDerivation.derive(kSeed, counter: ChipKeyDerivation.encryption, cipher: .tripleDES).hexString
            == "979EC13B1CBFE9DCD01AB0FED307EAE5")
        #expect(try ChipKeyDerivation.derive(kSeed, counter: ChipKeyDerivation.mac, cipher: .tripleDES).hexString
            == "F1CB1F1FB5ADF208806B89DC579DC1F8")
    }

    @Test func passwordKeysPerAppendicesGAndH() throws {
        #expect(try ChipKeyDerivation.passwordKey(mrzInformation: "T22000129364081251010318", cipher: .aes128).hexString
            == "89DED1B26624EC1E634C1989302849DD")
        #expect(try ChipKeyDerivation.passwordKey(mrzInformation: "C11T002JM496081222310314", cipher: .aes128).hexString
            == "4E6F6FBF7BE748B932C7B74161BBA9DF")
        #expect(try ChipKeyDerivation.passwordKey(cardAccessNumber: "123456", cipher: .aes128).hexString
            == "591468CDA83D65219CCCB8560233600F")
    }

    /// AES-192/256 keys come from SHA-256 (§9.7.1): the first 24 or all 32 bytes. SHA-256 of
    /// K || 00000001 for the G.1 shared secret, computed independently (Python hashlib).
    @Test func aes192And256KeysUseSHA256() throws {
        let k = hex("28768D20701247DAE81804C9E780EDE582A9996DB4A315020B2733197DB84925")
        let sha1 = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.encryption, cipher: .aes128)
        #expect(sha1.hexString == "F5F0E35C0D7161EE6724EE513A0D9A7F")
        let aes256 = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.encryption, cipher: .aes256)
        let aes192 = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.encryption, cipher: .aes192)
        #expect(aes256.count == 32 && aes192.count == 24)
        #expect(Array(aes256.prefix(24)) == aes192)
        #expect(aes256.hexString == Self.sha256KDF)
    }

    static let sha256KDF = "8419651A9932A555FE20D96406746A82F750F4CCB3D6BE786D4630BCC681BF0E"
}
