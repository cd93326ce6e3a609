import MRTDChipCrypto
import Testing

/// The chip side of PACE against ICAO Doc 9303-11 Appendices G (Generic Mapping, ECDH and DH),
/// H (Integrated Mapping, ECDH and DH) and I (PACE-CAM), VECTORS.md §2-§4: the chip's group
/// arithmetic, point encoding, pseudo-random function, tokens and CAM data give the printed values.
@Suite("Chip crypto: PACE vectors")
struct ChipPACEVectorTests {
    // MARK: G.1 ECDH-GM, brainpoolP256r1

    @Test func ecdhGenericMappingPerAppendixG1() throws {
        let group = try ChipGroups.make(.standardized(13))
        let kPi = try ChipKeyDerivation.passwordKey(mrzInformation: "T22000129364081251010318", cipher: .aes128)
        let s = hex("3F00C4D39D153F2B2A214A078D899B22")
        #expect(try ChipPACE.encryptNonce(s, passwordKey: kPi, cipher: .aes128).hexString == "95A3A016522EE98D01E76CB6B98B42C3")

        let chipMapSK = hex("498FF49756F2DC1587840041839A85982BE7761D14715FB091EFA7BCE9058560")
        let terminalMapPK = hex("047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D")
        #expect(try group.publicKey(privateKey: chipMapSK, generator: group.generator).hexString
            == "04824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F5730D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C54")
        let h = try group.sharedElement(privateKey: chipMapSK, peerPublicKey: terminalMapPK)
        #expect(h.hexString == "0460332EF2450B5D247EF6D3868397D398852ED6E8CAF6FFEEF6BF85CA57057FD50840CA7415BAF3E43BD414D35AA4608B93A2CAF3A4E3EA4E82C9C13D03EB7181")
        let mapped = try group.genericMapping(nonce: s, sharedElement: h)
        #expect(mapped.hexString == "048CED63C91426D4F0EB1435E7CB1D74A46723A0AF21C89634F65A9AE87A9265E28C879506743F8611AC33645C5B985C80B5F09A0B83407C1B6A4D857AE76FE522")

        let chipEphSK = hex("107CF58696EF6155053340FD633392BA81909DF7B9706F226F32086C7AFF974A")
        let chipEphPK = try group.publicKey(privateKey: chipEphSK, generator: mapped)
        #expect(chipEphPK.hexString == "049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F094")
        let terminalEphPK = hex("042DB7A64C0355044EC9DF190514C625CBA2CEA48754887122F3A5EF0D5EDD301C3556F3B3B186DF10B857B58F6A7EB80F20BA5DC7BE1D43D9BF850149FBB36462")
        let k = try group.sharedSecret(privateKey: chipEphSK, peerPublicKey: terminalEphPK)
        #expect(k.hexString == "28768D20701247DAE81804C9E780EDE582A9996DB4A315020B2733197DB84925")
        let kMac = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.mac, cipher: .aes128)
        #expect(kMac.hexString == "FE251C7858B356B24514B3BD5F4297D1")
        let oid = "0.4.0.127.0.7.2.2.4.2.2"
        #expect(try ChipPACE.authenticationToken(kMac: kMac, cipher: .aes128, protocolOID: oid, publicKey: chipEphPK, ellipticCurve: true).hexString
            == "C2B0BD78D94BA866")
        #expect(try ChipPACE.authenticationToken(kMac: kMac, cipher: .aes128, protocolOID: oid, publicKey: terminalEphPK, ellipticCurve: true).hexString
            == "3ABB9674BCE93C08")
    }

    // MARK: G.2 DH-GM, RFC 5114 1024/160

    static let g2p = "B10B8F96A080E01DDE92DE5EAE5D54EC52C99FBCFB06A3C69A6A9DCA52D23B616073E28675A23D189838EF1E2EE652C013ECB4AEA906112324975C3CD49B83BFACCBDD7D90C4BD7098488E9C219A73724EFFD6FAE5644738FAA31A4FF55BCCC0A151AF5F0DC8B4BD45BF37DF365C1A65E68CFDA76D4DA708DF1FB2BC2E4A4371"
    static let g2g = "A4D1CBD5C3FD34126765A442EFB99905F8104DD258AC507FD6406CFF14266D31266FEA1E5C41564B777E690F5504F213160217B4B01B886A5E91547F9E2749F4D7FBD7D3B9A92EE1909D0D2263F80A76A6A24C087A091F531DBF0A0169B6A28AD662A4D18E73AFA32D779D5918D08BC8858F4DCEF97C2A24855E6EEB22B3B2E5"

    @Test func dhGenericMappingPerAppendixG2() throws {
        let group = try ChipGroups.make(.standardized(0))
        #expect(group.generator.hexString == Self.g2g)
        #expect(group.primeBitCount == 1024)
        let s = hex("FA5B7E3E49753A0DB9178B7B9BD898C8")
        let chipMapSK = hex("66DDAFEAC1609CB5B963BB0CB3FF8B3E047F336C")
        let terminalMapPK = hex("23FB3749EA030D2A25B278D2A562047ADE3F01B74F17A15402CB7352CA7D2B3EB71C343DB13D1DEBCE9A3666DBCFC920B49174A602CB47965CAA73DC702489A44D41DB914DE9613DC5E98C94160551C0DF86274B9359BC0490D01B03AD54022DCB4F57FAD6322497D7A1E28D46710F461AFE710FBBBC5F8BA166F4311975EC6C")
        #expect(try group.publicKey(privateKey: chipMapSK, generator: group.generator).hexString
            == "78879F57225AA8080D52ED0FC890A4B25336F699AA89A2D3A189654AF70729E623EA5738B26381E4DA19E004706FACE7B235C2DBF2F38748312F3C98C2DD4882A41947B324AA1259AC22579DB93F7085655AF30889DBB845D9E6783FE42C9F2449400306254C8AE8EE9DD812A804C0B66E8CAFC14F84D8258950A91B44126EE6")
        let h = try group.sharedElement(privateKey: chipMapSK, peerPublicKey: terminalMapPK)
        #expect(h.hexString == "5BABEBEF5B74E5BA94B5C063FDA15F1F1CDE94873EE0A5D3A2FCAB49F258D07F544F13CB66658C3AFEE9E727389BE3F6CBBBD32128A8C21DD6EEA3CF7091CDDFB08B8D007D40318DCCA4FFBF51208790FB4BD111E5A968ED6B6F08B26CA87C410B3CE0C310CE104EABD16629AA48620C1279270CB0750C0D37C57FFFE302AE7F")
        let mapped = try group.genericMapping(nonce: s, sharedElement: h)
        #expect(mapped.hexString == "7C9CBFE98F9FBDDA8D143506FA7D9306F4CB17E3C71707AFF5E1C1A12370249684D64EE37AF44B8DBD9D45BF6023919CBAA027AB97ACC771666C8E98FF483301BFA4872DEDE9034EDFACB70814166B7F360676829B826BEA57291B5AD69FBC84EF1E779032A305803F74341793E869742D401325B37EE8565FFCDEE618342DC5")
        let chipEphSK = hex("A5B780126B7C980E9FCEA1D4539DA1D27C342DFA")
        let chipEphPK = try group.publicKey(privateKey: chipEphSK, generator: mapped)
        #expect(chipEphPK.hexString == "075693D9AE941877573E634B6E644F8E60AF17A0076B8B123D9201074D36152BD8B3A213F53820C42ADC79AB5D0AEEC3AEFB91394DA476BD97B9B14D0A65C1FC71A0E019CB08AF55E1F729005FBA7E3FA5DC41899238A250767A6D46DB974064386CD456743585F8E5D90CC8B4004B1F6D866C79CE0584E49687FF61BC29AEA1")
        let terminalEphPK = hex("907D89E2D425A178AA81AF4A7774EC8E388C115CAE67031E85EECE520BD911551B9AE4D04369F29A02626C86FBC6747CC7BC352645B6161A2A42D44EDA80A08FA8D61B76D3A154AD8A5A51786B0BC07147057871A922212C5F67F43173172236B7747D1671E6D692A3C7D40A0C3C5CE397545D015C175EB5130551EDBC2EE5D4")
        let k = try group.sharedSecret(privateKey: chipEphSK, peerPublicKey: terminalEphPK)
        #expect(k.hexString == "6BABC7B3A72BCD7EA385E4C62DB2625BD8613B24149E146A629311C4CA6698E38B834B6A9E9CD7184BA8834AFF5043D436950C4C1E7832367C10CB8C314D40E5990B0DF7013E64B4549E2270923D06F08CFF6BD3E977DDE6ABE4C31D55C0FA2E465E553E77BDF75E3193D3834FC26E8EB1EE2FA1E4FC97C18C3F6CFFFE2607FD")
        let kMac = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.mac, cipher: .aes128)
        #expect(kMac.hexString == "805A1D27D45A5116F73C54469462B7D8")
        let oid = "0.4.0.127.0.7.2.2.4.1.2"
        #expect(try ChipPACE.authenticationToken(kMac: kMac, cipher: .aes128, protocolOID: oid, publicKey: chipEphPK, ellipticCurve: false).hexString
            == "B46DD9BD4D98381F")
        #expect(try ChipPACE.authenticationToken(kMac: kMac, cipher: .aes128, protocolOID: oid, publicKey: terminalEphPK, ellipticCurve: false).hexString
            == "917F37B5C0E6D8D1")
    }

    @Test func explicitDHParametersEqualTheStandardizedGroup() throws {
        let explicit = try ChipGroups.make(.modp(p: hex(Self.g2p), g: hex(Self.g2g), q: hex("F518AA8781A8DF278ABA4E7D64B7CB9D49462353")))
        let standard = try ChipGroups.make(.standardized(0))
        let key = hex("66DDAFEAC1609CB5B963BB0CB3FF8B3E047F336C")
        #expect(try explicit.publicKey(privateKey: key, generator: explicit.generator)
            == standard.publicKey(privateKey: key, generator: standard.generator))
    }

    /// Groups 1 and 2 of RFC 5114: g generates the subgroup of order q (a public key g^q would be 1,
    /// so the chip's own validation refuses g^q and accepts g^(q-1)).
    @Test(arguments: [1, 2])
    func rfc5114GroupsHaveGeneratorsOfOrderQ(id: Int) throws {
        let group = try ChipGroups.make(.standardized(id))
        #expect(group.primeBitCount == 2048)
        try group.validatePublicKey(group.generator)
        #expect(throws: ChipCryptoError.self) { try group.validatePublicKey([0x01]) }
    }

    // MARK: H.1, H.2 Integrated Mapping

    static let kPiH = "591468CDA83D65219CCCB8560233600F"

    @Test func ecdhIntegratedMappingPerAppendixH1() throws {
        let group = try ChipGroups.make(.standardized(13))
        let s = hex("2923BE84E16CD6AE529049F1F1BBE9EB")
        #expect(try ChipPACE.encryptNonce(s, passwordKey: hex(Self.kPiH), cipher: .aes128).hexString == "143DC40C08C8E891FBED7DEDB92B64AD")
        let r = try ChipPACE.pseudoRandom(s: s, t: hex("5DD4CBFC96F5453B130D890A1CDBAE32"), cipher: .aes128, primeBitCount: group.primeBitCount)
        #expect(r.hexString == "E4447E2DFB3586BAC05DDB00156B57FBB2179A3949294C97254189800C517BAA8DA0FF397ED8C445D3E421E4FEB57322")
        let mapped = try group.integratedMapping(pseudoRandom: r)
        #expect(mapped.hexString == "048E82D31559ED0FDE92A4D0498ADD3C23BABA94FB77691E31E90AEA77FB17D4274C1AE14BD0C3DBAC0C871B7F3608169364437CA30AC243A089D3F266C1E60FAD")
        let chipSK = hex("107CF58696EF6155053340FD633392BA81909DF7B9706F226F32086C7AFF974A")
        let chipPK = try group.publicKey(privateKey: chipSK, generator: mapped)
        #expect(chipPK.hexString == "0467F78E5F7F7686082B293E8D087E056916D0F74BC01A5F8957D0DE45691E51E8932B69A962B52A0985AD2C0A271EE6A13A8ADDDCD1A3A994B9DED257F4D22753")
        let terminalPK = hex("0489CBA23FFE96AA18D824627C3E934E54A9FD0B87A95D1471DC1C0ABFDCD640D46755DE9B7B778280B6BEBD57439ADFEB0E21FD4ED6DF42578C13418A59B34C37")
        let k = try group.sharedSecret(privateKey: chipSK, peerPublicKey: terminalPK)
        #expect(k.hexString == "4F150FDE1D4F0E38E95017B891BAE17133A0DF45B0D3E18B60BA7BEAFDC2C713")
        let kMac = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.mac, cipher: .aes128)
        #expect(kMac.hexString == "B01E89E3D9E8719E586B50B4A7506E0B")
        #expect(try ChipPACE.authenticationToken(kMac: kMac, cipher: .aes128, protocolOID: "0.4.0.127.0.7.2.2.4.4.2", publicKey: terminalPK, ellipticCurve: true).hexString
            == "75D4D96E8D5B0308")
    }

    @Test func dhIntegratedMappingPerAppendixH2() throws {
        let group = try ChipGroups.make(.standardized(0))
        let s = hex("FA5B7E3E49753A0DB9178B7B9BD898C8")
        #expect(try ChipPACE.encryptNonce(s, passwordKey: hex(Self.kPiH), cipher: .aes128).hexString == "9ABB8864CA0FF1551E620D1EF4E13510")
        let r = try ChipPACE.pseudoRandom(s: s, t: hex("B3A6DB3C870C3E99245E0D1C06B747DE"), cipher: .aes128, primeBitCount: group.primeBitCount)
        #expect(r.hexString == "EAB98D13E09052952AA729907C3C946184DEA0FE74AD2B3AF506F0A83018459C38099CD1F7FF4EA0A078DB1FAC1365505E3DC85500EF95E20B4EEF2E88489233BEE0546B472F994B618D168702406791DEEF3CB4810932EC278F3533FDB860EB4835C36FA4F1BF3FA0B828A718C96BDE88FBA38A3E6C35AAA10959251EB5FC710FC187258995944C0F926E249373F485")
        let mapped = try group.integratedMapping(pseudoRandom: r)
        #expect(mapped.hexString == "1D7D767F11E333BCD6DBAEF40E799E7A926B96973550656FF3C830726D118D61C276CDCC61D475CF03A98E0C0E79CAEBA5BE25578BD4551D0B10903236F0B0F976852FA78EEA14EA0ACA87D1E91F688FE0DFF897BBE35A472621D343564B262F34223AE8FC59B664BFEDFA2BFE7516CA5510A6BBB633D517EC25D4E0BBAA16C2")
    }

    // MARK: I PACE-CAM

    @Test func chipAuthenticationMappingDataPerAppendixI() throws {
        let group = try ChipGroups.make(.standardized(13))
        let kEnc = hex("0A9DA4DB03BDDE39FC5202BC44B2E89E")
        let caIC = hex("85DC3FA93D0952BFA82F5FD189EE75BD82F11D1F0B8ED4BF5319AC9B53C426B3")
        #expect(try ChipPACE.encryptChipAuthenticationData(caIC, kEnc: kEnc, cipher: .aes128).hexString
            == "1EEA964DAAE372AC990E3EFDE6333353BFC89A6704D93DA8798CF77F5B7A54BD10CBA372B42BE0B9B5F28AA8DE2F4F92")
        // CA_IC · PK_IC = PK_map,IC: with the static key SK_IC unknown, check the relation the
        // chip's CA_IC must satisfy through its own group: CA_IC · PK_IC equals the mapping key.
        let pkIC = hex("041872709494399E7470A6431BE25E83EEE24FEA568C2ED28DB48E05DB3A610DC884D256A40E35EFCB59BF6753D3A489D28C7A4D973C2DA138A6E7A4A08F68E16F")
        #expect(try group.publicKey(privateKey: caIC, generator: pkIC).hexString
            == "04A234236AA9B9621E8EFB73B5245C0E09D2576E5277183C1208BDD55280CAE8B304F365713A356E65A451E165ECC9AC0AC46E3771342C8FE5AEDD092685338E23")
        // And the chip's CA_IC = SK_map · SK⁻¹ for a key it made: multiplying back gives SK_map·G.
        let mapSK = hex("9E56A6B59C95D06ECE5CD10F983BB2F4F1943528E577F23881D89D8C3BBEE0AA")
        let staticSK = hex("5D8BB87BD74D985A4B7D4325B9F7B976FE835122773400798914AA22738135CC")
        let ca = try ChipPACE.chipAuthenticationData(mappingKey: mapSK, staticKey: staticSK, group: group)
        let staticPK = try group.publicKey(privateKey: staticSK, generator: group.generator)
        #expect(try group.publicKey(privateKey: ca, generator: staticPK) == group.publicKey(privateKey: mapSK, generator: group.generator))
        #expect(try group.publicKey(privateKey: mapSK, generator: group.generator).hexString
            == "04A234236AA9B9621E8EFB73B5245C0E09D2576E5277183C1208BDD55280CAE8B304F365713A356E65A451E165ECC9AC0AC46E3771342C8FE5AEDD092685338E23")
    }

    // MARK: Validation

    @Test func offCurveAndOutOfRangeKeysAreRefused() throws {
        let curve = try ChipGroups.make(.standardized(13))
        var point = curve.generator
        point[point.count - 1] ^= 0x01
        #expect(throws: ChipCryptoError.self) { try curve.validatePublicKey(point) }
        try curve.validatePublicKey(curve.generator)
        let dh = try ChipGroups.make(.standardized(0))
        #expect(throws: ChipCryptoError.self) { try dh.validatePublicKey(hex(Self.g2p)) }
        var outside = dh.generator
        outside[outside.count - 1] ^= 0x01
        #expect(throws: ChipCryptoError.self) { try dh.validatePublicKey(outside) }
    }

    /// Private keys are drawn at the order's length with the excess top bits cleared, so a scripted
    /// source hands in a worked example's key unchanged.
    @Test func privateKeysTakeScriptedBytesUnchanged() throws {
        let key = hex("107CF58696EF6155053340FD633392BA81909DF7B9706F226F32086C7AFF974A")
        let script = ScriptedBytes([key])
        #expect(try ChipGroups.make(.standardized(13)).generatePrivateKey(random: script.next) == key)
        let dhKey = hex("A5B780126B7C980E9FCEA1D4539DA1D27C342DFA")
        let dhScript = ScriptedBytes([dhKey])
        #expect(try ChipGroups.make(.standardized(0)).generatePrivateKey(random: dhScript.next) == dhKey)
    }
}
