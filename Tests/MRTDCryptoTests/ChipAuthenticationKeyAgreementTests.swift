import MRTDCrypto
import Testing
import MRTDCore

/// Chip Authentication key agreement against the BSI EAC worked example (VECTORS.md §6, CA v2 with
/// ECDH on brainpoolP256r1 and DH on the RFC 5114 1024-bit group), and key validation.
@Suite("Chip Authentication key agreement")
struct ChipAuthenticationKeyAgreementTests {
    // ChipAuthenticationPublicKeyInfo.chipAuthenticationPublicKey of EF.CardSecurity (both cases).
    static let ecdhChipSPKI = hex("3052300C060704007F0007010202010D034200"
        + "04A44EBE5451DF7AADB01E459B8C928A87746A57927C8C28A6775C97A7E1FE8D9A46FF4A1CC7E4D1389AEA19758E4F75C28C598FD734AEBEB135337CF95BE12E94")
    static let dhChipSPKI = hex("308195300C060704007F00070102020100038184000281801B3345F8DC04341BF8B2C97F652FA680E5D4FA4C146AE4B839431A644A79BC368C4822C89CD018A57F953644BEDA679C5B532902320E83E13B80DEEF8C18AF3E7D493AE3F88196101B9F78EAFE4B3025EF8BFF916B2FC02D762D0838DEA29C09B485591C2F47F87C71F530BB358F56AF6459D86DBF85EAF9EDBD962CD364F7B8")

    struct Vector: Sendable, CustomTestStringConvertible {
        var name: String
        var chipSPKI: [UInt8]
        var terminalPrivateKey: [UInt8]
        var terminalPublicKey: String
        var sharedSecret: String
        var nonce: [UInt8]
        var kEnc: String
        var kMac: String
        var testDescription: String { name }
    }

    static let vectors: [Vector] = [
        Vector(name: "ECDH brainpoolP256r1", chipSPKI: ecdhChipSPKI,
               terminalPrivateKey: hex("A6A4D255C5BF7A77EC3D0553DB74F693CF044E18C98364D4977A296108AF19BD"),
               terminalPublicKey: "045A7A377FC9CAFC03AC7FF45441A8B2909D88EAB8E6B0173847AB49B949DF3799A34EE57EC55268CF8B1C3EC489F8BF4CF4C68D3FD9670E89C0D5D3FFF1AAF89F",
               sharedSecret: "791DA04273CCFE862E52DF60347E2557192E1F8D7517822CE3D306056C1CDEB4",
               nonce: hex("4287B3072A3EDC60"),
               kEnc: "94ABCD271AB7D9A5590BA52CB518B831", kMac: "78B5709E7ABEDB185B424D0EE3A82499"),
        Vector(name: "DH RFC 5114 1024-bit", chipSPKI: dhChipSPKI,
               terminalPrivateKey: hex("A2CFFD06C34AFD622EEE0FC31F093FDFDA609C67121CACF0A8F52291DE6853BB5C93CF76705775ECF408A74302613BEECB381447D36494C9E18951EC17252DD2A807AAE09FA4DC30183339013D9C9191303CACEE3C91E926A36D014A5CFA94950CADB37B534F32A9BF76B37980979304C5663871BD746EB9E95A47CA471B4EDE"),
               terminalPublicKey: "A2830947A6FCAACDE2FCB88B29AB38E07C3453ABC4BCB466087E11C79F32A19E6EF22BE108F8DD18FE8249C960951511200DC985AA3EC0CCAD59A5F9BBCC33EE5F1577E20330B4DD10EB06B740277C97A189180EDE52BEE9D429F10FB77F180F05D6A99C499CB5E1ECEEB8E92284F66EA98479674CE73F53C567A03B0D297833",
               sharedSecret: "2A4FC2D11490DF4773DDFA6FF705557C51F4AD4533E8D8A66A3001BFDD271DB87BE3C1CAC22A05E8AF1A066DD0298E75DB928AAFDF00EB4BFB1BD12F372313C1CA649056517305638515D5A4FBE0AC59BDC80E8C5A5F46254D231916EA77F80AC58E6B63A26198EE4387F10981E8E46FFBA23790C81E679363C589587D30BBB3",
               nonce: hex("1A1AC1AB04D96965"),
               kEnc: "E813D09DF69FFCC63763C537F828985C", kMac: "066721F3EBEA787B4F1C6DCA431EC229"),
    ]

    @Test(arguments: vectors)
    func terminalKeySharedSecretAndSessionKeysMatchTheBSIWorkedExample(_ v: Vector) throws {
        let chipKey = try KeyAgreementPublicKey(subjectPublicKeyInfo: v.chipSPKI)
        #expect(chipKey.problem() == nil)
        let terminal = try KeyAgreementKeyPair(privateKey: v.terminalPrivateKey, on: chipKey)
        #expect(terminal.encodedPublicKey.hexString == v.terminalPublicKey)
        let k = try terminal.sharedSecret(with: chipKey)
        #expect(k.hexString == v.sharedSecret)
        // CA version 2 (TR-03110-3 §B.3): KDF over K || r_PICC.
        #expect(KeyDerivation.derive(sharedSecret: k + v.nonce, counter: KeyDerivation.encryptionCounter, cipher: .aes128).hexString == v.kEnc)
        #expect(KeyDerivation.derive(sharedSecret: k + v.nonce, counter: KeyDerivation.macCounter, cipher: .aes128).hexString == v.kMac)
    }

    @Test func ecdhAuthenticationTokenMatchesTheBSIWorkedExample() throws {
        let pcd = hex("045A7A377FC9CAFC03AC7FF45441A8B2909D88EAB8E6B0173847AB49B949DF3799A34EE57EC55268CF8B1C3EC489F8BF4CF4C68D3FD9670E89C0D5D3FFF1AAF89F")
        let input = hex("7F494F060A04007F00070202030202" + "8641") + pcd
        let token = try AESCMAC.mac(key: hex("78B5709E7ABEDB185B424D0EE3A82499"), data: input).prefix(8)
        #expect(Array(token).hexString == "FF0117D68DEE8E72")
    }

    @Test func chipKeyParametersAreReported() throws {
        let ec = try KeyAgreementPublicKey(subjectPublicKeyInfo: Self.ecdhChipSPKI)
        #expect(ec.algorithm == .ecdh)
        #expect(ec.domainName == "brainpoolP256r1")
        #expect(ec.fieldBits == 256 && ec.orderBits == 256 && ec.sharedSecretLength == 32)
        #expect(!ec.hasExplicitParameters)
        let dh = try KeyAgreementPublicKey(subjectPublicKeyInfo: Self.dhChipSPKI)
        #expect(dh.algorithm == .dh)
        #expect(dh.domainName == "RFC5114-1024-160")
        #expect(dh.fieldBits == 1024 && dh.orderBits == 160 && dh.sharedSecretLength == 128)
        #expect(dh.encodedPublicKey.count == 128)
    }

    @Test(arguments: [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 0, 1, 2])
    func bothSidesAgreeOnEveryStandardizedDomain(_ id: Int) throws {
        let chip = try KeyAgreementKeyPair.generate(standardizedDomainParameterID: id)
        for explicit in [false, true] {
            let chipKey = try KeyAgreementPublicKey(subjectPublicKeyInfo: chip.subjectPublicKeyInfo(explicitParameters: explicit))
            #expect(chipKey.problem() == nil)
            #expect(chipKey.hasExplicitParameters == (explicit || chipKey.algorithm == .dh))
            #expect(chipKey.domainName != nil, "explicit parameters of ID \(id) are recognised")
            let terminal = try KeyAgreementKeyPair.generate(on: chipKey, random: SystemRandom())
            let seeded = try KeyAgreementKeyPair.generate(on: chipKey, random: ScriptedRandom(Array(repeating: 0x11, count: 200)))
            for mine in [terminal, seeded] {
                let k1 = try mine.sharedSecret(with: chipKey)
                let peer = try chip.publicKey.publicKey(encoded: mine.encodedPublicKey)
                #expect(peer.problem() == nil)
                let k2 = try chip.sharedSecret(with: peer)
                #expect(k1 == k2)
                #expect(k1.count == chipKey.sharedSecretLength)
            }
        }
    }

    @Test func aPointOffTheCurveIsRejected() throws {
        let chipKey = try KeyAgreementPublicKey(subjectPublicKeyInfo: Self.ecdhChipSPKI)
        var encoded = chipKey.encodedPublicKey
        encoded[encoded.count - 1] ^= 0x01
        let problem: KeyAgreementKeyProblem? = {
            guard let key = try? chipKey.publicKey(encoded: encoded) else { return .publicKeyInvalid }
            return key.problem()
        }()
        #expect(problem == .publicKeyInvalid)
    }

    @Test func dhValuesOutsideTheSubgroupAreRejected() throws {
        let chipKey = try KeyAgreementPublicKey(subjectPublicKeyInfo: Self.dhChipSPKI)
        for bad in [[UInt8(1)], [UInt8(2)], chipKey.encodedPublicKey.map { $0 ^ 0x5A }] {
            let key = try chipKey.publicKey(encoded: bad)
            #expect(key.problem() == .publicKeyInvalid)
        }
    }

    /// PKCS #3 `dhKeyAgreement` parameters without q, on a p that is not a safe prime (RFC 5114's
    /// 1024-bit p with g = 4): structurally valid, so accepted; a full DH_check would refuse it.
    @Test func pkcs3DHWithoutSubgroupOrderIsCheckedStructurally() throws {
        func der(_ tag: UInt8, _ value: [UInt8]) -> [UInt8] {
            let count = value.count
            let length: [UInt8] = count < 0x80 ? [UInt8(count)] : count < 0x100 ? [0x81, UInt8(count)] : [0x82, UInt8(count >> 8), UInt8(count & 0xFF)]
            return [tag] + length + value
        }
        let p = hex("00B10B8F96A080E01DDE92DE5EAE5D54EC52C99FBCFB06A3C69A6A9DCA52D23B616073E28675A23D189838EF1E2EE652C013ECB4AEA906112324975C3CD49B83BFACCBDD7D90C4BD7098488E9C219A73724EFFD6FAE5644738FAA31A4FF55BCCC0A151AF5F0DC8B4BD45BF37DF365C1A65E68CFDA76D4DA708DF1FB2BC2E4A4371")
        let algorithm = der(0x30, der(0x06, hex("2A864886F70D010301")) + der(0x30, der(0x02, p) + der(0x02, [4])))
        let spki = der(0x30, algorithm + der(0x03, [0] + der(0x02, [16])))
        let key = try KeyAgreementPublicKey(subjectPublicKeyInfo: spki)
        #expect(key.algorithm == .dh && key.orderBits == 0 && key.domainName == nil)
        #expect(key.problem() == nil)
        let terminal = try KeyAgreementKeyPair.generate(on: key, random: SystemRandom())
        #expect(try terminal.sharedSecret(with: key).count == 128)
        // y = 1 is still refused.
        #expect(try key.publicKey(encoded: [1]).problem() == .publicKeyInvalid)
    }

    @Test func malformedKeyInfoThrowsInvalidInput() {
        var broken = Self.ecdhChipSPKI
        broken.removeLast(3)
        #expect(throws: CryptoError.self) { try KeyAgreementPublicKey(subjectPublicKeyInfo: broken) }
        #expect(throws: CryptoError.unsupported("standardized domain parameter ID 7")) {
            try KeyAgreementPublicKey(standardizedDomainParameterID: 7, encodedPublicKey: [4])
        }
    }
}
