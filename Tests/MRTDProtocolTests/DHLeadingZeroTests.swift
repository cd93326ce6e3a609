import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDSimulation
import MRTDTranscript

/// Issue 32: a DH public value whose top byte is zero (about one value in 177 for the 1024-bit
/// group: p starts with B1) travels, and enters the authentication tokens and `Comp()`, as an
/// unsigned integer without that byte (Doc 9303-11 §9.4.1); the shared secret K keeps the length
/// of p. PACE DH-GM 1024/160 with the CAN and Chip Authentication with DH run against the virtual
/// chip with keys searched so that one side's public value starts with 00; the PACE tokens on the
/// wire are checked against a MAC computed here over the minimal encoding, not by `PACE.token`.
@Suite("DH public values with a leading zero byte (issue 32)")
struct DHLeadingZeroTests {
    static let group = try! DHGroup(standard: .rfc5114_1024_160)
    static let paceInfo = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!, parameterID: 0)
    static let can = "123456"
    // The chip's nonce and both mapping keys are fixed (keys below q), so the mapped generator is known.
    static let nonce = [UInt8](repeating: 0x5A, count: 16)
    static let terminalMapKey = [UInt8](repeating: 0x11, count: 20)
    static let chipMapKey = [UInt8](repeating: 0x22, count: 20)
    static let ordinaryKey = [UInt8](repeating: 0x33, count: 20)
    /// The two tokens of a session between `ordinaryKey` and the first leading-zero key (either way
    /// round: K is the same), computed by a second implementation, scripts/crosscheck-pace-dh-token
    /// (Python integers, hashlib, pyca/cryptography CMAC): over the 00-leading value, over the other.
    static let crossCheckedTokens = (overLeadingZeroValue: "AD1EB7E396C64516", overOrdinaryValue: "3280B2DD3BF80FDC")

    /// `g^ = g^s · H mod p` for the fixed nonce and mapping keys (§4.4.3.3.1).
    static func mappedGenerator() throws -> [UInt8] {
        let chipMapPK = try group.publicKey(privateKey: chipMapKey, generator: group.generator)
        let h = try group.sharedElement(privateKey: terminalMapKey, peerPublicKey: chipMapPK)
        return try group.genericMapping(nonce: nonce, sharedElement: h)
    }

    /// Whether `generator^x mod p` is below 2^1016, i.e. its 128-byte form starts with 00 (however
    /// the group encodes it).
    static func hasLeadingZero(_ privateKey: [UInt8], generator: [UInt8]) throws -> Bool {
        let y = try group.publicKey(privateKey: privateKey, generator: generator)
        return y.count < group.fieldByteCount || y.first == 0
    }

    /// The first private key `01..01 || counter` whose public value has a leading zero byte.
    static func keyWithLeadingZero(generator: [UInt8]) throws -> [UInt8] {
        for counter in UInt32(1)...10_000 {
            let key = [UInt8](repeating: 0x01, count: 16) + withUnsafeBytes(of: counter.bigEndian) { Array($0) }
            if try hasLeadingZero(key, generator: generator) { return key }
        }
        throw CryptoError.invalidInput("no key with a leading zero byte in 10000 tries")
    }

    /// A PACE run of the virtual chip (scripted: nonce, mapping key, `chipKey`) and the reader
    /// (scripted: mapping key, `terminalKey`), with the CAN; the exchanges as sent.
    static func runPACE(terminalKey: [UInt8], chipKey: [UInt8]) async throws -> [ScriptedTransport.Exchange] {
        let config = try VirtualChipConfiguration.paceChip(
            document: PACEMatrixTests.specimen, accessKey: PACEMatrixTests.key, infos: [paceInfo], can: can, bac: false,
            random: ScriptedRandom(nonce + chipMapKey + chipKey))
        let recorder = RecordingTransport(VirtualChip(configuration: config))
        let parameters = try PACEParameters.strongest(in: SecurityInfos(infos: [.pace(paceInfo)]))
        _ = try await PACE.perform(channel: ChipChannel(transport: recorder), parameters: parameters,
                                   password: .can(can), random: ScriptedRandom(terminalMapKey + terminalKey))
        return recorder.exchanges
    }

    /// Data object `tag` inside `7C` of a GENERAL AUTHENTICATE command or answer.
    static func object(_ tag: UInt, in dynamicAuthenticationData: [UInt8]) throws -> [UInt8] {
        let children = try TLV.parse(dynamicAuthenticationData, expecting: 0x7C).children()
        return try #require(children.first { $0.tag == tag }).bytes
    }

    static func command(_ exchange: ScriptedTransport.Exchange, _ tag: UInt) throws -> [UInt8] {
        try object(tag, in: CommandAPDU(bytes: exchange.command).data)
    }

    static func answer(_ exchange: ScriptedTransport.Exchange, _ tag: UInt) throws -> [UInt8] {
        try object(tag, in: ResponseAPDU(bytes: exchange.response).data)
    }

    /// The PACE token computed here: CMAC(KS_MAC, 7F49 { 06 id-PACE-DH-GM-AES-CBC-CMAC-128, 84 y })
    /// truncated to 8 bytes, y with its leading zero bytes dropped, KS_MAC = SHA-1(K || 00000002)[0..<16].
    static func independentToken(k: [UInt8], y: [UInt8]) throws -> [UInt8] {
        let ksMac = Array(DigestAlgorithm.sha1.hash(k + [0, 0, 0, 2]).prefix(16))
        let oid: [UInt8] = [0x06, 0x0A, 0x04, 0x00, 0x7F, 0x00, 0x07, 0x02, 0x02, 0x04, 0x01, 0x02]
        let object = TLV.encode(tag: 0x7F49, value: oid + TLV.encode(tag: 0x84, value: Array(y.drop { $0 == 0 })))
        return Array(try AESCMAC.mac(key: ksMac, data: object).prefix(8))
    }

    /// Checks both tokens of a recorded run against ``independentToken(k:y:)``; returns the
    /// terminal's and the chip's ephemeral public values as sent.
    static func checkTokens(_ exchanges: [ScriptedTransport.Exchange], terminalKey: [UInt8]) throws -> ([UInt8], [UInt8]) {
        try #require(exchanges.count == 5)
        let terminalPK = try command(exchanges[3], 0x83)
        let chipPK = try answer(exchanges[3], 0x84)
        let k = try group.sharedSecret(privateKey: terminalKey, peerPublicKey: chipPK)
        #expect(k.count == group.fieldByteCount, "K keeps the length of p")
        #expect(try command(exchanges[4], 0x85) == independentToken(k: k, y: chipPK), "T_PCD over the chip's minimal y")
        #expect(try answer(exchanges[4], 0x86) == independentToken(k: k, y: terminalPK), "T_PICC over the reader's minimal y")
        return (terminalPK, chipPK)
    }

    @Test func theReadersLeadingZeroIsNeitherSentNorAuthenticated() async throws {
        let generator = try Self.mappedGenerator()
        let terminalKey = try Self.keyWithLeadingZero(generator: generator)
        let exchanges = try await Self.runPACE(terminalKey: terminalKey, chipKey: Self.ordinaryKey)
        let (terminalPK, chipPK) = try Self.checkTokens(exchanges, terminalKey: terminalKey)
        #expect(terminalPK.first != 0 && terminalPK.count < Self.group.fieldByteCount, "DO 83 without the leading 00")
        #expect(chipPK.count == Self.group.fieldByteCount, "the chip's value has no leading zero here")
        #expect(try Self.answer(exchanges[4], 0x86) == [UInt8](hex: Self.crossCheckedTokens.overLeadingZeroValue))
        #expect(try Self.command(exchanges[4], 0x85) == [UInt8](hex: Self.crossCheckedTokens.overOrdinaryValue))
        // The mapping key (DO 81) is a minimal unsigned integer as well.
        #expect(try Self.command(exchanges[2], 0x81).first != 0)
    }

    @Test func theChipsLeadingZeroIsNeitherSentNorAuthenticated() async throws {
        let generator = try Self.mappedGenerator()
        #expect(try !Self.hasLeadingZero(Self.ordinaryKey, generator: generator))
        let chipKey = try Self.keyWithLeadingZero(generator: generator)
        let exchanges = try await Self.runPACE(terminalKey: Self.ordinaryKey, chipKey: chipKey)
        let (_, chipPK) = try Self.checkTokens(exchanges, terminalKey: Self.ordinaryKey)
        #expect(chipPK.first != 0 && chipPK.count < Self.group.fieldByteCount, "DO 84 without the leading 00")
        #expect(try Self.command(exchanges[4], 0x85) == [UInt8](hex: Self.crossCheckedTokens.overLeadingZeroValue))
        #expect(try Self.answer(exchanges[4], 0x86) == [UInt8](hex: Self.crossCheckedTokens.overOrdinaryValue))
    }

    /// CA with DH (3DES: MSE:Set KAT; AES: GENERAL AUTHENTICATE with a CA v2 token) after BAC, with a
    /// terminal key whose public value starts with 00.
    @Test(arguments: [SymmetricCipher.tripleDES, .aes128])
    func chipAuthenticationSendsTheTerminalKeyWithoutItsLeadingZero(_ cipher: SymmetricCipher) async throws {
        let setup = try AuthenticationMatrixTests.setup(
            ca: [.init(domainParameterID: 0, cipher: cipher, version: cipher == .tripleDES ? 1 : 2)])
        let chipKey = try #require(setup.fixture.chip.chipAuthenticationKeys.first)
        let channel = ChipChannel(transport: setup.chip)
        let application = try await channel.send(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: ApplicationID.lds1))
        try #require(application.statusWord.isSuccess)
        try await BAC.perform(channel: channel, key: AuthenticationMatrixTests.key, random: SystemRandom())
        let terminalKey = try Self.keyWithLeadingZero(generator: Self.group.generator)
        let parameters = ChipAuthenticationParameters(
            caProtocol: chipKey.caProtocol, version: chipKey.version,
            publicKeyInfo: try chipKey.keyPair.subjectPublicKeyInfo(explicitParameters: true))
        let outcome = try await ChipAuthentication.perform(
            channel: channel, parameters: parameters, random: ScriptedRandom(terminalKey))
        let sent = outcome.terminalPublicKey
        #expect(sent.first != 0 && sent.count < Self.group.fieldByteCount, "PK_PCD without the leading 00")
        #expect(outcome.version == chipKey.version)
        // The chip derived the same session keys: a command under them is answered.
        let select = try await channel.send(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: [0x01, 0x01]))
        #expect(select.statusWord.isSuccess)
        #expect(await setup.chip.commandsUnderChipAuthenticationKeys == [0xA4])
    }

    /// TA's `Comp()` of a DH key (TR-03110-3 §A.2.2.3) is SHA-1 of the minimal unsigned integer,
    /// however many leading zeros the value came with.
    @Test func compressedDHKeyIgnoresLeadingZeros() throws {
        let key = try Self.keyWithLeadingZero(generator: Self.group.generator)
        let y = try Self.group.publicKey(privateKey: key, generator: Self.group.generator)
        let minimal = Array(y.drop { $0 == 0 })
        let padded = [UInt8](repeating: 0, count: Self.group.fieldByteCount - minimal.count) + minimal
        let expected = DigestAlgorithm.sha1.hash(minimal)
        #expect(TerminalAuthentication.compressed(padded, keyAgreement: .dh) == expected)
        #expect(TerminalAuthentication.compressed(minimal, keyAgreement: .dh) == expected)
    }
}
