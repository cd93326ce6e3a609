import MRTDChipCrypto
import Testing

/// The chip side of BAC and secure messaging against ICAO Doc 9303-11 Appendix D.3 and D.4
/// (VECTORS.md §1) and the BSI EAC worked example's AES SM values (§6): the chip must unwrap the
/// terminal's protected APDUs printed there and produce exactly the printed protected responses.
@Suite("Chip crypto: BAC and secure messaging vectors")
struct ChipSecureMessagingVectorTests {
    static let rndIC = hex("4608F91988702212")
    static let eifdMifd = hex("72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F25F1448EEA8AD90A7")

    @Test func bacChipSideAnswersPerAppendixD3() throws {
        let bac = try ChipBAC(mrzInformation: "L898902C<369080619406236")
        let terminal = try #require(try bac.check(Self.eifdMifd, rndIC: Self.rndIC))
        #expect(terminal.rndIFD.hexString == "781723860C06C226")
        #expect(terminal.kIFD.hexString == "0B795240CB7049B01C19B33E32804F0B")
        let opened = try bac.answer(rndIC: Self.rndIC, terminal: terminal, kIC: hex("0B4F80323EB3191CB04970CB4052790B"))
        #expect(opened.response.hexString
            == "46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F2F2D235D074D7449")
        #expect(opened.session.ssc.hexString == "887022120C06C226")
    }

    @Test func bacRefusesAWrongMACOrChallenge() throws {
        let bac = try ChipBAC(mrzInformation: "L898902C<369080619406236")
        var tampered = Self.eifdMifd
        tampered[39] ^= 0x01
        #expect(try bac.check(tampered, rndIC: Self.rndIC) == nil)
        #expect(try bac.check(Self.eifdMifd, rndIC: hex("4608F91988702213")) == nil)
        let otherDocument = try ChipBAC(mrzInformation: "L898902C<369080619406237")
        #expect(try otherDocument.check(Self.eifdMifd, rndIC: Self.rndIC) == nil)
    }

    /// D.4: SELECT EF.COM, READ BINARY 4, READ BINARY 18 at offset 4, chip side.
    @Test func tripleDESSessionPerAppendixD4() throws {
        var sm = ChipSecureMessaging(
            cipher: .tripleDES, kEnc: hex("979EC13B1CBFE9DCD01AB0FED307EAE5"), kMac: hex("F1CB1F1FB5ADF208806B89DC579DC1F8"),
            ssc: hex("887022120C06C226"))
        let selectUnwrapped = sm.unwrapCommand(cla: 0x0C, ins: 0xA4, p1: 0x02, p2: 0x0C,
                                                   data: hex("8709016375432908C044F68E08BF8B92D635FF24F8"))
        let select = try #require(selectUnwrapped)
        #expect(select == .init(cla: 0x00, ins: 0xA4, p1: 0x02, p2: 0x0C, data: hex("011E"), ne: nil))
        #expect(try sm.wrapResponse(data: [], sw1: 0x90, sw2: 0x00, oddINS: false).hexString == "990290008E08FA855A5D4C50A8ED9000")

        let read4Unwrapped = sm.unwrapCommand(cla: 0x0C, ins: 0xB0, p1: 0x00, p2: 0x00, data: hex("9701048E08ED6705417E96BA55"))
        let read4 = try #require(read4Unwrapped)
        #expect(read4 == .init(cla: 0x00, ins: 0xB0, p1: 0x00, p2: 0x00, data: [], ne: 4))
        #expect(try sm.wrapResponse(data: hex("60145F01"), sw1: 0x90, sw2: 0x00, oddINS: false).hexString
            == "8709019FF0EC34F9922651990290008E08AD55CC17140B2DED9000")

        let read18Unwrapped = sm.unwrapCommand(cla: 0x0C, ins: 0xB0, p1: 0x00, p2: 0x04, data: hex("9701128E082EA28A70F3C7B535"))
        let read18 = try #require(read18Unwrapped)
        #expect(read18.ne == 18 && read18.p2 == 0x04)
        #expect(try sm.wrapResponse(data: hex("04303130365F36063034303030305C026175"), sw1: 0x90, sw2: 0x00, oddINS: false).hexString
            == "871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A990290008E08C8B2787EAEA07D749000")
        #expect(sm.ssc.hexString == "887022120C06C22C")
    }

    @Test func aWrongCommandMACIsRefused() throws {
        var sm = ChipSecureMessaging(
            cipher: .tripleDES, kEnc: hex("979EC13B1CBFE9DCD01AB0FED307EAE5"), kMac: hex("F1CB1F1FB5ADF208806B89DC579DC1F8"),
            ssc: hex("887022120C06C226"))
        #expect(sm.unwrapCommand(cla: 0x0C, ins: 0xA4, p1: 0x02, p2: 0x0C,
                                 data: hex("8709016375432908C044F68E08BF8B92D635FF24F9")) == nil)
        // The header is covered too: the same objects under another P2 fail.
        var fresh = ChipSecureMessaging(
            cipher: .tripleDES, kEnc: hex("979EC13B1CBFE9DCD01AB0FED307EAE5"), kMac: hex("F1CB1F1FB5ADF208806B89DC579DC1F8"),
            ssc: hex("887022120C06C226"))
        #expect(fresh.unwrapCommand(cla: 0x0C, ins: 0xA4, p1: 0x02, p2: 0x04,
                                    data: hex("8709016375432908C044F68E08BF8B92D635FF24F8")) == nil)
    }

    /// BSI EAC worked example: AES SM with KSenc/KSmac from PACE; with SSC = 1 the command data
    /// 830D…31 encrypts to BE90…B8 (IV = E(KSenc, SSC)), and with SSC = 2 the MAC over DO'99' 9000
    /// is A895…D6.
    @Test func aesSessionPerBSIWorkedExample() throws {
        var sm = ChipSecureMessaging(
            cipher: .aes128, kEnc: hex("68406B4162100563D9C901A6154D2901"), kMac: hex("73FF268784F72AF833FDC9464049AFC9"),
            ssc: [UInt8](repeating: 0, count: 16))
        // A command as the terminal builds it at SSC = 1: MSE:Set DST, data encrypted to the printed
        // cryptogram, MAC computed here with the chip's CMAC (the vector gives no command MAC).
        let cryptogram = hex("BE90237EEB4BA0FF253EA246AE31C8B8")
        let do87 = [0x87, 0x11, 0x01] + cryptogram
        var ssc1 = [UInt8](repeating: 0, count: 16)
        ssc1[15] = 1
        let macInput = ChipPadding.pad(ssc1 + ChipPadding.pad([0x0C, 0x22, 0x81, 0xB6], blockSize: 16) + do87, blockSize: 16)
        let mac = try ChipMAC.mac(.aes128, key: hex("73FF268784F72AF833FDC9464049AFC9"), data: macInput)
        let commandUnwrapped = sm.unwrapCommand(cla: 0x0C, ins: 0x22, p1: 0x81, p2: 0xB6, data: do87 + [0x8E, 0x08] + mac)
        let command = try #require(commandUnwrapped)
        #expect(command.data.hexString == "830D44454356434141543030303031")
        let response = try sm.wrapResponse(data: [], sw1: 0x90, sw2: 0x00, oddINS: false)
        #expect(response.hexString == "990290008E08A89570A68664A7D6" + "9000")
    }

    /// Odd INS (READ BINARY B1): the response data travel in DO'85' without the padding indicator,
    /// and the chip takes the command's DO'85' as well.
    @Test func oddINSUsesDataObject85() throws {
        let kEnc = hex("68406B4162100563D9C901A6154D2901")
        let kMac = hex("73FF268784F72AF833FDC9464049AFC9")
        var chip = try ChipSecureMessaging(cipher: .aes256, sharedSecret: kEnc + kMac)
        let wrapped = try chip.wrapResponse(data: hex("53020102"), sw1: 0x90, sw2: 0x00, oddINS: true)
        #expect(wrapped.first == 0x85 && wrapped[1] == 0x10)
        let even = try ChipSecureMessaging(cipher: .aes256, sharedSecret: kEnc + kMac)
        var evenCopy = even
        let evenWrapped = try evenCopy.wrapResponse(data: hex("53020102"), sw1: 0x90, sw2: 0x00, oddINS: false)
        #expect(evenWrapped.first == 0x87 && evenWrapped[2] == 0x01)
        // Same SSC and keys: the cryptogram is the same, only the object differs.
        #expect(Array(wrapped[2..<18]) == Array(evenWrapped[3..<19]))
    }
}
