import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import SwiftASN1
import MRTDSimulation
import MRTDTranscript

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex)! }

private func script(_ pairs: [(String, String)]) -> [ScriptedTransport.Exchange] {
    pairs.map { .init(command: bytes($0.0), response: bytes($0.1)) }
}

/// The PACE worked examples of ICAO Doc 9303-11 (Appendices G, H, I; VECTORS.md §2-4) and the BSI
/// EAC worked example (§6), replayed through `PACE.perform` over a scripted transport with the
/// terminal's random values injected.
///
/// One deliberate difference from the printed APDUs: MSE:Set AT carries the parameter ID (tag 84)
/// because the PACEInfo has one (ARCHITECTURE pitfalls; RELIABILITY PACE-02); the appendices print
/// it without. Every other byte is as printed (or rebuilt, where VECTORS.md says so).
@Suite("PACE worked examples, byte for byte")
struct PACEWorkedExampleTests {
    static let appendixGKey = try! MRZKey(documentNumber: "T22000129", dateOfBirth: "640812", dateOfExpiry: "101031")

    static func parameters(_ paceInfo: String) throws -> PACEParameters {
        let infos = SecurityInfos(infos: [.pace(try PACEInfo(berEncoded: bytes(paceInfo)))])
        return try PACEParameters.strongest(in: infos)
    }

    @Test func genericMappingECDHReplaysAppendixG1() async throws {
        let transport = ScriptedTransport(script([
            ("0022C1A412800A04007F0007020204020283010184010D", "9000"),
            ("10860000027C0000", "7C12801095A3A016522EE98D01E76CB6B98B42C39000"),
            ("10860000457C438141047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D00",
             "7C43824104824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F5730D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C549000"),
            ("10860000457C438341042DB7A64C0355044EC9DF190514C625CBA2CEA48754887122F3A5EF0D5EDD301C3556F3B3B186DF10B857B58F6A7EB80F20BA5DC7BE1D43D9BF850149FBB3646200",
             "7C438441049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F0949000"),
            ("008600000C7C0A8508C2B0BD78D94BA86600", "7C0A86083ABB9674BCE93C089000"),
        ]))
        let channel = ChipChannel(transport: transport)
        let random = ScriptedRandom(bytes(
            "7F4EF07B9EA82FD78AD689B38D0BC78CF21F249D953BC46F4C6E19259C010F99"
            + "A73FB703AC1436A18E0CFA5ABB3F7BEC7A070E7A6788486BEE230C4A22762595"))
        let outcome = try await PACE.perform(
            channel: channel, parameters: Self.parameters("3012060A04007F0007020204020202010202010D"),
            password: .mrz(Self.appendixGKey), random: random)
        #expect(transport.consumed == 5)
        #expect(random.remaining == 0)
        #expect(outcome.domainParametersName == "brainpoolP256r1")
        #expect(channel.secureMessaging?.cipher == .aes128)
        #expect(channel.secureMessaging?.ssc == [UInt8](repeating: 0, count: 16))
    }

    @Test func genericMappingDHReplaysAppendixG2() async throws {
        let transport = ScriptedTransport(script([
            ("0022C1A412800A04007F00070202040102830101840100", "9000"),
            ("10860000027C0000", "7C128010854D8DF5827FA6852D1A4FA701CDDDCA9000"),
            ("10860000867C818381818023FB3749EA030D2A25B278D2A562047ADE3F01B74F17A15402CB7352CA7D2B3EB71C343DB13D1DEBCE9A3666DBCFC920B49174A602CB47965CAA73DC702489A44D41DB914DE9613DC5E98C94160551C0DF86274B9359BC0490D01B03AD54022DCB4F57FAD6322497D7A1E28D46710F461AFE710FBBBC5F8BA166F4311975EC6C00",
             "7C818382818078879F57225AA8080D52ED0FC890A4B25336F699AA89A2D3A189654AF70729E623EA5738B26381E4DA19E004706FACE7B235C2DBF2F38748312F3C98C2DD4882A41947B324AA1259AC22579DB93F7085655AF30889DBB845D9E6783FE42C9F2449400306254C8AE8EE9DD812A804C0B66E8CAFC14F84D8258950A91B44126EE69000"),
            ("10860000867C8183838180907D89E2D425A178AA81AF4A7774EC8E388C115CAE67031E85EECE520BD911551B9AE4D04369F29A02626C86FBC6747CC7BC352645B6161A2A42D44EDA80A08FA8D61B76D3A154AD8A5A51786B0BC07147057871A922212C5F67F43173172236B7747D1671E6D692A3C7D40A0C3C5CE397545D015C175EB5130551EDBC2EE5D400",
             "7C8183848180075693D9AE941877573E634B6E644F8E60AF17A0076B8B123D9201074D36152BD8B3A213F53820C42ADC79AB5D0AEEC3AEFB91394DA476BD97B9B14D0A65C1FC71A0E019CB08AF55E1F729005FBA7E3FA5DC41899238A250767A6D46DB974064386CD456743585F8E5D90CC8B4004B1F6D866C79CE0584E49687FF61BC29AEA19000"),
            ("008600000C7C0A8508B46DD9BD4D98381F00", "7C0A8608917F37B5C0E6D8D19000"),
        ]))
        let channel = ChipChannel(transport: transport)
        let random = ScriptedRandom(bytes("5265030F751F4AD18B08AC565FC7AC952E41618D" + "89CCD99B0E8D3B1F11E1296DCA68EC53411CF2CA"))
        let outcome = try await PACE.perform(
            channel: channel, parameters: Self.parameters("3012060A04007F00070202040102020102020100"),
            password: .mrz(Self.appendixGKey), random: random)
        #expect(transport.consumed == 5)
        #expect(outcome.domainParametersName == "RFC5114-1024-160")
    }

    @Test func integratedMappingECDHReplaysAppendixH1() async throws {
        // No APDUs in the appendix: the ones VECTORS.md rebuilt, the chip's answers built from its values.
        let transport = ScriptedTransport(script([
            ("0022C1A412800A04007F0007020204040283010284010D", "9000"),
            ("10860000027C0000", "7C128010143DC40C08C8E891FBED7DEDB92B64AD9000"),
            ("10860000147C1281105DD4CBFC96F5453B130D890A1CDBAE3200", "7C009000"),
            ("10860000457C4383410489CBA23FFE96AA18D824627C3E934E54A9FD0B87A95D1471DC1C0ABFDCD640D46755DE9B7B778280B6BEBD57439ADFEB0E21FD4ED6DF42578C13418A59B34C3700",
             "7C4384410467F78E5F7F7686082B293E8D087E056916D0F74BC01A5F8957D0DE45691E51E8932B69A962B52A0985AD2C0A271EE6A13A8ADDDCD1A3A994B9DED257F4D227539000"),
            ("008600000C7C0A8508450F02B86F6A090900", "7C0A860875D4D96E8D5B03089000"),
        ]))
        let channel = ChipChannel(transport: transport)
        let random = ScriptedRandom(bytes(
            "5DD4CBFC96F5453B130D890A1CDBAE32" + "A73FB703AC1436A18E0CFA5ABB3F7BEC7A070E7A6788486BEE230C4A22762595"))
        // Erratum 1: K_π of Appendix H comes from "123456" (a CAN), not from the Appendix G MRZ.
        _ = try await PACE.perform(
            channel: channel, parameters: Self.parameters("3012060A04007F0007020204040202010202010D"),
            password: .can("123456"), random: random)
        #expect(transport.consumed == 5)
    }

    @Test func integratedMappingDHTokensMatchAppendixH2() throws {
        // Appendix H.2 uses 1024-bit private keys (the reader draws q-sized ones), so it is checked
        // below the APDU level: mapping and K in MRTDCryptoTests, keys and tokens here.
        let k = bytes("419410D6C0A17A4C07C54872CE1CBCEB0A2705C1A434C8A89A4CFE41F1D78124CA7EC52BDE7615E5345E48AB1ABB6E7D1D59A57F3174084D3CA4570397C1F62228BDFDB2DA191EA2239E2C060DBE3BBC23C2FCD0AF12E0F9E0B99FCF91FF1959011D5798B2FCBC1F14FCC24E441F4C8F9B08D977E9498560E63E7FFAB3134EA7")
        #expect(KeyDerivation.derive(sharedSecret: k, counter: 1, cipher: .aes128).hex == "01AFC10CF87BE36D8179E87370171F07")
        let kMac = KeyDerivation.derive(sharedSecret: k, counter: 2, cipher: .aes128)
        #expect(kMac.hex == "23F0FBD05FD6C7B8B88F4C8309669061")
        let pkIC = bytes("928D9A0F9DBA450F13FC859C6F290D1D36E42431138A4378500BEB4E0401854CFF111F71CB6DC1D0335807A11388CC8EAA87B07907AAD9FBA6B169AF6D8C26AF8DDDC39ADC3AD2E3FF882B84D23E9768E95A80E4746FB07A9767679FE92133B4D379935C771BD7FBED6C7BB4B1708B275EA75679524CDC9C6A91370CC662A2F3")
        let pkIFD = bytes("0F0CC62945A8029251FB7EF3C094E12EC68E4EF07F27CB9D9CD04C5C4250FAE0E4F8A951557E929AEB48E5C6DD47F2F5CD7C351A9BD2CD722C07EDE166770F08FFCB370262CF308DD7B07F2E0DA9CAAA1492344C852906919538C98A4BA4187E76CE9D87832386D319CE2E043C3343AEAE6EDBA1A9894DC5094D22F7FE1351D5")
        let oid: ASN1ObjectIdentifier = "0.4.0.127.0.7.2.2.4.3.2"
        #expect(try PACE.token(kMac: kMac, oid: oid, agreement: .dh, publicKey: pkIC, cipher: .aes128).hex == "55D61977CBF5307E")
        #expect(try PACE.token(kMac: kMac, oid: oid, agreement: .dh, publicKey: pkIFD, cipher: .aes128).hex == "C2F04230187E1525")
    }

    static let appendixIKey = try! MRZKey(documentNumber: "C11T002JM", dateOfBirth: "960812", dateOfExpiry: "231031")
    static let appendixICAKeyInfo = "3062060904007F0007020201023052300C060704007F0007010202010D034200041872709494399E7470A6431BE25E83EEE24FEA568C2ED28DB48E05DB3A610DC884D256A40E35EFCB59BF6753D3A489D28C7A4D973C2DA138A6E7A4A08F68E16F02010D"

    static func appendixIRun() async throws -> PACE.Outcome {
        let transport = ScriptedTransport(script([
            ("0022C1A412800A04007F0007020204060283010184010D", "9000"),
            ("10860000027C0000", "7C128010CB60E8E0D85B76A9BD304747C2AD42E29000"),
            ("10860000457C438141047F1D410ADB7DDB3B84BF1030800981A9105D7457B4A3ADE002384F3086C67EDE1AB889104A27DB6D842B019020FBF3CEACB0DC627F7BDCAC29969E19D0E553C100",
             "7C43824104A234236AA9B9621E8EFB73B5245C0E09D2576E5277183C1208BDD55280CAE8B304F365713A356E65A451E165ECC9AC0AC46E3771342C8FE5AEDD092685338E239000"),
            ("10860000457C43834104446C934084D9DAB863944F219520076C29EE3F7AE6722B11FF319EC1C7728F955483400BFF60BF0C5929270009277DC2A515E12575010AD9BA916CF1BF86FEFC00",
             "7C4384410402AD566F3C6EC7F9324509AD50A51FA52030782A4968FCFEDF737DAEA993333111C3B9B4C2287789BD137E7F8AA882E2A3C633CCD6ECC2C63C57AD401A09C2E19000"),
            ("008600000C7C0A8508E86BD06018A1CD3B00",
             "7C3C86088596CF055C67C1A38A301EEA964DAAE372AC990E3EFDE6333353BFC89A6704D93DA8798CF77F5B7A54BD10CBA372B42BE0B9B5F28AA8DE2F4F929000"),
        ]))
        let random = ScriptedRandom(bytes(
            "5D8BB87BD74D985A4B7D4325B9F7B976FE835122773400798914AA22738135CC"
            + "76ECFDAA9841C323A3F5FC5E88B88DB3EFF7E35EBF57A7E6946CB630006C2120"))
        let outcome = try await PACE.perform(
            channel: ChipChannel(transport: transport),
            parameters: parameters("3012060A04007F0007020204060202010202010D"),
            password: .mrz(appendixIKey), random: random)
        #expect(transport.consumed == 5)
        return outcome
    }

    @Test func chipAuthenticationMappingReplaysAppendixIAndVerifiesAgainstCardSecurity() async throws {
        let outcome = try await Self.appendixIRun()
        #expect(outcome.chipAuthenticationData?.hex == "85DC3FA93D0952BFA82F5FD189EE75BD82F11D1F0B8ED4BF5319AC9B53C426B3")
        let keyInfo = try ChipAuthenticationPublicKeyInfo(berEncoded: bytes(Self.appendixICAKeyInfo))
        let cardSecurity = try SpecimenDocument.cardSecurity(SecurityInfos(infos: [.chipAuthenticationPublicKey(keyInfo)]))
        let check = PACE.verifyChipAuthenticationMapping(outcome, cardSecurity: cardSecurity)
        #expect(check.result == CheckResult.passedUnverifiedKey)
    }

    @Test func chipAuthenticationMappingFailsAgainstAnotherChipsKey() async throws {
        // RELIABILITY PACE-08: EF.CardSecurity with a different CA key.
        let outcome = try await Self.appendixIRun()
        let other = try ChipAuthenticationPublicKeyInfo(
            keyAgreement: .ecdh, algorithm: .standardized(13),
            publicKey: ECGroup(standard: .brainpoolP256r1).generator, keyID: 13)
        let cardSecurity = try SpecimenDocument.cardSecurity(SecurityInfos(infos: [.chipAuthenticationPublicKey(other)]))
        #expect(PACE.verifyChipAuthenticationMapping(outcome, cardSecurity: cardSecurity)
            == ReadResult.Check(result: .failed, reason: "keyMismatch", keyFile: "EF_CardSecurity"))
        #expect(PACE.verifyChipAuthenticationMapping(outcome, cardSecurity: nil)
            == ReadResult.Check(result: .failed, reason: "cardSecurityMissing", keyFile: "EF_CardSecurity"))
        #expect(PACE.verifyChipAuthenticationMapping(outcome, cardSecurity: [0x30, 0x00])
            == ReadResult.Check(result: .failed, reason: "cardSecurityMalformed", keyFile: "EF_CardSecurity"))
    }

    @Test func bsiWorkedExamplePACEAndAESSecureMessagingReplay() async throws {
        guard let v = bsiWorkedExample() else { return }
        func h(_ key: String) -> [UInt8] { v[key] ?? [] }
        func ga(_ tag: UInt, _ value: [UInt8], last: Bool = false) -> [UInt8] {
            let data = TLV.encode(tag: 0x7C, value: TLV.encode(tag: tag, value: value))
            return (last ? [0x00] : [0x10]) + [0x86, 0x00, 0x00, UInt8(data.count)] + data + [0x00]
        }
        func answer(_ tag: UInt, _ value: [UInt8]) -> [UInt8] {
            TLV.encode(tag: 0x7C, value: TLV.encode(tag: tag, value: value)) + [0x90, 0x00]
        }
        let infos = try SecurityInfos(derEncoded: h("tc_ecdh_ef_cardaccess"))
        let parameters = try PACEParameters.strongest(in: infos)
        #expect(parameters.paceProtocol.name == "id-PACE-ECDH-GM-AES-CBC-CMAC-128")
        // The worked example's terminal keys (the ephemeral one printed with a leading 00).
        let ephSK = Array(h("tc_ecdh_pcd_priv_key").drop { $0 == 0 })
        var exchanges: [ScriptedTransport.Exchange] = [
            .init(command: bytes("0022C1A412800A04007F0007020204020283010384010D"), response: bytes("9000")),
            .init(command: bytes("10860000027C0000"), response: answer(0x80, h("tc_ecdh_nonce_enc"))),
            .init(command: ga(0x81, h("tc_ecdh_map_pcd_pub_key")), response: answer(0x82, h("tc_ecdh_map_picc_pub_key"))),
            .init(command: ga(0x83, h("tc_ecdh_pcd_pub_key")), response: answer(0x84, h("tc_ecdh_picc_pub_key"))),
            .init(command: ga(0x85, h("tc_ecdh_authentication_token_pcd"), last: true),
                  response: answer(0x86, h("tc_ecdh_authentication_token_picc"))),
        ]
        // First protected command (SSC 1): MSE:Set DST with the CVCA reference, and its answer (SSC 2)
        // as the worked example encrypts and MACs them.
        let kMac = bytes("73FF268784F72AF833FDC9464049AFC9")
        let header = bytes("0C2281B6")
        let cryptogram = TLV.encode(tag: 0x87, value: [0x01] + bytes("BE90237EEB4BA0FF253EA246AE31C8B8"))
        var ssc1 = [UInt8](repeating: 0, count: 16)
        ssc1[15] = 1
        let mac = Array(try AESCMAC.mac(key: kMac, data: ISO9797Padding.pad(
            ssc1 + ISO9797Padding.pad(header, blockSize: 16) + cryptogram, blockSize: 16)).prefix(8))
        let body = cryptogram + TLV.encode(tag: 0x8E, value: mac)
        exchanges.append(.init(command: header + [UInt8(body.count)] + body + [0x00],
                               response: bytes("990290008E08A89570A68664A7D69000")))
        let transport = ScriptedTransport(exchanges)
        let channel = ChipChannel(transport: transport)
        _ = try await PACE.perform(
            channel: channel, parameters: parameters, password: .pin("123456"),
            random: ScriptedRandom(h("tc_ecdh_map_pcd_priv_key") + ephSK))
        let dst = try await channel.send(CommandAPDU(ins: 0x22, p1: 0x81, p2: 0xB6, data: bytes("830D44454356434141543030303031")))
        #expect(dst.statusWord == .success)
        #expect(transport.consumed == 6)
    }
}
