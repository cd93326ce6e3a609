import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDTranscript

/// ICAO Doc 9303-11 Appendix D (VECTORS.md §1), reproduced byte for byte with the terminal's random
/// source scripted to RND.IFD and K.IFD.
@Suite struct AppendixDTests {
    static let key = try! MRZKey(documentNumber: "L898902C<", dateOfBirth: "690806", dateOfExpiry: "940623")
    static let random = "781723860C06C226" + "0B795240CB7049B01C19B33E32804F0B"

    static func exchanges() -> [ScriptedTransport.Exchange] {
        [
            ("0084000008", "46 08F9 1988 7022 12 9000"),
            ("0082000028 72C29C2371CC9BDB65B779B8E8D37B29ECC154AA56A8799FAE2F498F76ED92F25F1448EEA8AD90A7 28",
             "46B9342A41396CD7386BF5803104D7CEDC122B9132139BAF2EEDC94EE178534F2F2D235D074D7449 9000"),
            ("0CA4020C158709016375432908C044F68E08BF8B92D635FF24F800", "990290008E08FA855A5D4C50A8ED9000"),
            ("0CB000000D9701048E08ED6705417E96BA5500", "8709019FF0EC34F9922651990290008E08AD55CC17140B2DED9000"),
            ("0CB000040D9701128E082EA28A70F3C7B53500",
             "871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A990290008E08C8B2787EAEA07D749000"),
        ].map { .init(command: [UInt8](hex: $0.0)!, response: [UInt8](hex: $0.1)!) }
    }

    @Test func basicAccessKeysMatchAppendixD1() {
        let (kEnc, kMac) = BAC.accessKeys(for: Self.key)
        #expect(Self.key.mrzInformation == "L898902C<369080619406236")
        #expect(kEnc.hex == "AB94FDECF2674FDFB9B391F85D7F76F2")
        #expect(kMac.hex == "7962D9ECE03D1ACD4C76089DCE131543")
    }

    @Test func bacAndSecureMessagingReproduceAppendixDByteForByte() async throws {
        let transport = ScriptedTransport(Self.exchanges(), capabilities: .shortOnly)
        let channel = ChipChannel(transport: transport)
        try await BAC.perform(channel: channel, key: Self.key, random: ScriptedRandom([UInt8](hex: Self.random)!))
        // D.3: session keys and SSC.
        #expect(channel.secureMessaging?.ssc.hex == "887022120C06C226")

        // D.4: SELECT EF.COM, READ BINARY 4 bytes, READ BINARY 18 bytes at offset 4.
        #expect(try await channel.selectFile(.com) == .success)
        let head = try await channel.readBinary(offset: 0, length: 4)
        #expect(head.data.hex == "60145F01")
        let rest = try await channel.readBinary(offset: 4, length: 18)
        #expect(rest.data.hex == "04303130365F36063034303030305C026175")
        #expect(channel.secureMessaging?.ssc.hex == "887022120C06C22C")
        #expect(transport.consumed == 5)
        #expect(channel.report.apdus == 5)

        let com = try EFCOM(rawBytes: head.data + rest.data)
        #expect(com.dataGroups == [.dg(1), .dg(2)])
    }

    @Test func aResponseWithAFlippedMACBitIsRejectedAndEndsTheSession() async throws {
        var script = Self.exchanges()
        script[3].response[script[3].response.count - 4] ^= 0x01  // last byte of DO'8E'
        let channel = ChipChannel(transport: ScriptedTransport(script, capabilities: .shortOnly))
        try await BAC.perform(channel: channel, key: Self.key, random: ScriptedRandom([UInt8](hex: Self.random)!))
        _ = try await channel.selectFile(.com)
        await #expect(throws: ProtocolError.secureMessagingMACInvalid) {
            _ = try await channel.readBinary(offset: 0, length: 4)
        }
        #expect(channel.secureMessaging == nil, "session keys must be dropped after a bad MAC")
    }

    @Test func aPlainStatusWordInsideSecureMessagingIsReportedAsSessionLost() async throws {
        var script = Self.exchanges()
        script[3].response = [0x67, 0x00]
        let channel = ChipChannel(transport: ScriptedTransport(script, capabilities: .shortOnly))
        try await BAC.perform(channel: channel, key: Self.key, random: ScriptedRandom([UInt8](hex: Self.random)!))
        _ = try await channel.selectFile(.com)
        await #expect(throws: ProtocolError.unprotectedResponse(.wrongLength)) {
            _ = try await channel.readBinary(offset: 0, length: 4)
        }
        #expect(channel.secureMessaging == nil)
    }

    @Test func aResponseWithoutDO99IsRejected() async throws {
        // Recompute a valid MAC over DO'87' alone so that only the missing DO'99' is wrong.
        let ssc = [UInt8](hex: "887022120C06C22A")!
        let do87 = [UInt8](hex: "8709019FF0EC34F9922651")!
        let kMac = [UInt8](hex: "F1CB1F1FB5ADF208806B89DC579DC1F8")!
        let mac = try RetailMAC.mac(key: kMac, data: ISO9797Padding.pad(ssc + do87, blockSize: 8))
        var script = Self.exchanges()
        script[3].response = do87 + [0x8E, 0x08] + mac + [0x90, 0x00]
        let channel = ChipChannel(transport: ScriptedTransport(script, capabilities: .shortOnly))
        try await BAC.perform(channel: channel, key: Self.key, random: ScriptedRandom([UInt8](hex: Self.random)!))
        _ = try await channel.selectFile(.com)
        await #expect(throws: ProtocolError.secureMessagingObjectMissing("DO'99' (processing status)")) {
            _ = try await channel.readBinary(offset: 0, length: 4)
        }
    }

    @Test func aChipRefusingTheCryptogramMeansAccessDenied() async throws {
        var script = Self.exchanges()
        script[1].response = [0x63, 0x00]
        let channel = ChipChannel(transport: ScriptedTransport(script, capabilities: .shortOnly))
        await #expect(throws: ProtocolError.accessDenied(protocol: "BAC", .authenticationFailed)) {
            try await BAC.perform(channel: channel, key: Self.key, random: ScriptedRandom([UInt8](hex: Self.random)!))
        }
        #expect(channel.secureMessaging == nil)
    }

    @Test func aChipAnswerThatDoesNotEchoTheTerminalNonceIsRejected() async throws {
        // A correctly MACed cryptogram whose RND.IFD differs from the one sent (Doc 9303-11 §4.3.4.1).
        let (kEnc, kMac) = BAC.accessKeys(for: Self.key)
        let r = [UInt8](hex: "4608F91988702212 781723860C06C227 0B4F80323EB3191CB04970CB4052790B")!
        let eIC = try TripleDES.encryptCBC(key: kEnc, data: r)
        let mIC = try RetailMAC.mac(key: kMac, data: ISO9797Padding.pad(eIC, blockSize: 8))
        var script = Self.exchanges()
        script[1].response = eIC + mIC + [0x90, 0x00]
        let channel = ChipChannel(transport: ScriptedTransport(script, capabilities: .shortOnly))
        await #expect(throws: ProtocolError.authenticationFailed("the chip's cryptogram does not echo the nonces")) {
            try await BAC.perform(channel: channel, key: Self.key, random: ScriptedRandom([UInt8](hex: Self.random)!))
        }
        #expect(channel.secureMessaging == nil)
    }
}
