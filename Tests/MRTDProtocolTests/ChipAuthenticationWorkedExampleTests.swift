import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol

/// Chip Authentication v2 of the BSI EAC worked example (VECTORS.md §6: id-CA-ECDH-AES-CBC-CMAC-128,
/// brainpoolP256r1), run through the protocol code against a chip that answers with the example's
/// nonce and token, byte for byte; afterwards the terminal must speak AES secure messaging under
/// the example's CA keys with SSC 0.
@Suite struct ChipAuthenticationWorkedExampleTests {
    static let paceKSEnc = [UInt8](hex: "68406B4162100563D9C901A6154D2901")!
    static let paceKSMac = [UInt8](hex: "73FF268784F72AF833FDC9464049AFC9")!
    static let caKSEnc = [UInt8](hex: "94ABCD271AB7D9A5590BA52CB518B831")!
    static let caKSMac = [UInt8](hex: "78B5709E7ABEDB185B424D0EE3A82499")!
    static let pcdPublicKey = "045A7A377FC9CAFC03AC7FF45441A8B2909D88EAB8E6B0173847AB49B949DF3799A34EE57EC55268CF8B1C3EC489F8BF4CF4C68D3FD9670E89C0D5D3FFF1AAF89F"
    /// EF.CardSecurity's ChipAuthenticationPublicKeyInfo and ChipAuthenticationInfo (version 2, key 1).
    static let securityInfos = [UInt8](hex: "3181"
        + "8C" + "3062060904007F0007020201023052300C060704007F0007010202010D03420004A44EBE5451DF7AADB01E459B8C928A87746A57927C8C28A6775C97A7E1FE8D9A46FF4A1CC7E4D1389AEA19758E4F75C28C598FD734AEBEB135337CF95BE12E94020101"
        + "3012060A04007F00070202030202020102020101"
        + "3012060A04007F0007020204020202010202010D")!

    /// The chip: checks the plain commands, answers under the PACE keys, then switches to the CA keys.
    actor WorkedExampleChip: APDUTransport {
        nonisolated let capabilities = TransportCapabilities.extended
        var sm = SecureMessaging(cipher: .aes128, kEnc: paceKSEnc, kMac: paceKSMac, ssc: [UInt8](repeating: 0, count: 16))
        var plainCommands: [String] = []

        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            let parsed = try CommandAPDU(bytes: command)
            guard let plain = sm.unprotectCommand(parsed) else { return [0x69, 0x88] }
            plainCommands.append(try plain.encoded().hex)
            switch plain.ins {
            case 0x86:
                let answer = [UInt8](hex: "7C14" + "81084287B3072A3EDC60" + "8208FF0117D68DEE8E72")!
                let wrapped = try sm.protectResponse(ResponseAPDU(data: answer, statusWord: .success))
                sm = SecureMessaging(cipher: .aes128, kEnc: caKSEnc, kMac: caKSMac, ssc: [UInt8](repeating: 0, count: 16))
                return wrapped
            default:
                return try sm.protectResponse(ResponseAPDU(statusWord: .success))
            }
        }
    }

    @Test func caV2WithTheWorkedExampleKeysSwitchesToItsAESSessionKeys() async throws {
        let infos = try SecurityInfos(derEncoded: Self.securityInfos)
        let parameters = try #require(try ChipAuthenticationParameters.select(from: infos))
        #expect(parameters.caProtocol.name == "id-CA-ECDH-AES-CBC-CMAC-128")
        #expect(parameters.version == 2 && parameters.keyID == 1 && parameters.sendKeyID)

        let chip = WorkedExampleChip()
        let channel = ChipChannel(transport: chip)
        channel.startSecureMessaging(SecureMessaging(cipher: .aes128, kEnc: Self.paceKSEnc, kMac: Self.paceKSMac,
                                                     ssc: [UInt8](repeating: 0, count: 16)))
        // The terminal's ephemeral private key of the example (its leading 00 dropped).
        let random = ScriptedRandom([UInt8](hex: "A6A4D255C5BF7A77EC3D0553DB74F693CF044E18C98364D4977A296108AF19BD")!)
        let outcome = try await ChipAuthentication.perform(channel: channel, parameters: parameters, random: random)
        #expect(outcome.version == 2)
        #expect(outcome.domainName == "brainpoolP256r1")
        #expect(random.remaining == 0)

        // After CA: one protected command that the chip can only read under the example's CA keys.
        #expect(try await channel.selectFile(.com) == .success)
        #expect(channel.secureMessaging?.ssc == [UInt8](repeating: 0, count: 15) + [2])
        let commands = await chip.plainCommands
        #expect(commands == [
            "002241A40F800A04007F00070202030202840101",
            "0086000045" + "7C43" + "8041" + Self.pcdPublicKey + "00",
            "00A4020C02011E",
        ])
    }

    @Test func aWrongTokenFailsCAv2WithoutSwitchingKeys() async throws {
        let infos = try SecurityInfos(derEncoded: Self.securityInfos)
        let parameters = try #require(try ChipAuthenticationParameters.select(from: infos))
        let channel = ChipChannel(transport: WorkedExampleChip())
        channel.startSecureMessaging(SecureMessaging(cipher: .aes128, kEnc: Self.paceKSEnc, kMac: Self.paceKSMac,
                                                     ssc: [UInt8](repeating: 0, count: 16)))
        // Another ephemeral key: the chip's token (computed for the example's key) cannot match.
        let random = ScriptedRandom([UInt8](repeating: 0x42, count: 32))
        await #expect(throws: ProtocolError.chipAuthentication(.chipResponseInvalid, detail: "authentication token does not verify")) {
            _ = try await ChipAuthentication.perform(channel: channel, parameters: parameters, random: random)
        }
    }
}
