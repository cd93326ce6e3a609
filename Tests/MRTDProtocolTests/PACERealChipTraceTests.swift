import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDTranscript

private func bytes(_ hex: String) -> [UInt8] { [UInt8](hex: hex)! }

/// PACE sessions recorded from real documents in gmrtd's test suite (`pace/pace_test.go`, MIT;
/// VECTORS.md §8), replayed with the terminal keys of the recording: a New Zealand passport (GM,
/// 3DES) and a German document (PACE-CAM, AES, then EF.CardSecurity read under AES secure messaging).
/// As in the ICAO replays, MSE:Set AT carries tag 84 (the recordings omit it).
@Suite("PACE against recorded real chips")
struct PACERealChipTraceTests {
    @Test func newZealandPassportGenericMappingWith3DES() async throws {
        let transport = ScriptedTransport([
            ("0022C1A412800A04007F0007020204020183010184010D", "9000"),
            ("10860000027c0000", "7c128010b88382812290017af1cc906ff00e7f4d9000"),
            ("10860000457c438141047706b2b6246ab4612229b8a11212ddba7fea0568c9c0975dee22c0e3dd3a3f0321e8afee836e373b570d24000d56fb195104d486e63321ff8c819dd5ee018dcb00",
             "7c43824104780b4edec9b926f9f964fad826d9990a667608d96ba7b397ae8609b6533e0d036d148365ddf4e5ff6611c2b62aa17fc9899f327bc929db543e7abd0ee724e4be9000"),
            ("10860000457c43834104507a0156efae8fb8acc519036c0b2fe0393c878744c7f91878ee4e07a41412ba5c0753d68a44a91e9f57f3f992ab689e6c2065d3b2a27c3658a4fd632931ee3800",
             "7c438441042dbaf62e6fdfb31eb66f206493b9e7721586f0e5c93754d7bd5a884ca251ee4d720ab539a60561bc46812fa289b58ac69f0c6e32adbaf7241049a31211f80f5b9000"),
            ("008600000c7c0a85088d7c617d43efe09e00", "7c0a8608cb57047c809079f69000"),
        ].map { ScriptedTransport.Exchange(command: bytes($0.0), response: bytes($0.1)) })
        let channel = ChipChannel(transport: transport)
        let infos = try SecurityInfos(derEncoded: bytes("31143012060a04007f0007020204020102010202010d"))
        let key = try MRZKey(documentNumber: "LM277954", dateOfBirth: "781214", dateOfExpiry: "271115")
        _ = try await PACE.perform(
            channel: channel, parameters: PACEParameters.strongest(in: infos), password: .mrz(key),
            random: ScriptedRandom(bytes("2808272c0ec20e01a3450030ef32855e9feb5cb17719e985389b1cf47609e69f"
                                         + "8f89449052df6c7983750c7b042c3cea12b36819174424c7cd28153f7b70b402")))
        // The chip's token verified under our retail-MAC KSMAC; 3DES SM starts at SSC 0.
        #expect(transport.consumed == 5)
        #expect(channel.secureMessaging?.cipher == .tripleDES)
        #expect(channel.secureMessaging?.ssc == [UInt8](repeating: 0, count: 8))
    }

    @Test func germanDocumentChipAuthenticationMappingVerifiesAgainstItsCardSecurity() async throws {
        guard let cardSecurity = sharedFile("samples/gmrtd/cardsecurity/EF_CardSecurity_DE.bin").map({ [UInt8]($0) }) else { return }
        let transport = ScriptedTransport([
            ("0022C1A412800A04007F0007020204060283010184010D", "9000"),
            ("10860000027c0000", "7c1280109bff93e6ed9f5f9764ec0d783d14fb039000"),
            ("10860000457c43814104303f340815eea501772393e299a4a6f6694600189c249c63a8513ff3fefa66e346d11970b5f76fb564c3b0e54b215528f647ec5a9ab209cdbe262e763d6119a100",
             "7c4382410476dc295c4fb14237d87318d70967e25ec45f74d6fd4aff588c90efb3d868f05b450ba6b64967227c2246dbe2905522c8086dac7f3bbe5cf3b192f0a0c2d97ee59000"),
            ("10860000457c438341048442b191ef5346a6b6dacb6cd5728c4a72f0ca7aecdf7afdfb3ef175e12a6f7c74f509af768b8dbe2cf42d16c1f00714691d78a19cdf1b493390d1173785f2b700",
             "7c438441042315ae8143f21de15b35f083cfa148c5fcbd9f2eb9dcdc4519bcf337443e79e55b28a5e218fb919c30880d263e469645ff114c46ed29918910be3453527d21649000"),
            ("008600000c7c0a8508fee088a4d7be1b7f00",
             "7c3c860819a2b9192e11512a8a30b3ae8830311b1d5605777f47cb4ed028346cd00105d32859de127da3d8398865358f26f08ebe410864eaf6e39f33f3f59000"),
            // SELECT EF.CardSecurity and READ BINARY of its first 4 bytes, AES secure messaging.
            ("0ca4020c1d87110147ee2e3bd440fb596167f2bb6cd6395e8e08a105747484314bcf00", "990290008e085f570baddd1002d29000"),
            ("0cb000000d9701048e085d283ec183cbb99800", "871101d688d27a6d16f03619e76dcb59c1f1ec990290008e08b7df9a5982bb17299000"),
        ].map { ScriptedTransport.Exchange(command: bytes($0.0), response: bytes($0.1)) })
        let channel = ChipChannel(transport: transport)
        let infos = try SecurityInfos(derEncoded: bytes(
            "31283012060A04007F0007020204020202010202010D3012060A04007F0007020204060202010202010D"))
        let parameters = try PACEParameters.strongest(in: infos)
        #expect(parameters.paceProtocol.mapping == .cam)
        let key = try MRZKey(documentNumber: "C4KHNY1PF", dateOfBirth: "780214", dateOfExpiry: "330315")
        let outcome = try await PACE.perform(
            channel: channel, parameters: parameters, password: .mrz(key),
            random: ScriptedRandom(bytes("01fd26013f5bc41fad8bb09811e435f16fbe2eb3c2e1d999b0f63da8c3d58bb5"
                                         + "1fcd3d8ac4fae3960a14fea2925d75add335f13b248eba192358dded93a89552")))
        #expect(try await channel.selectFile(.cardSecurity) == .success)
        let head = try await channel.readBinary(offset: 0, length: 4)
        #expect(head.data == Array(cardSecurity.prefix(4)))
        #expect(transport.consumed == 7)
        // The recorded chip's CA_IC maps the static key in its (real, signed) EF.CardSecurity onto
        // its mapping key: PACE-CAM verified against a real document.
        #expect(PACE.verifyChipAuthenticationMapping(outcome, cardSecurity: cardSecurity).result == CheckResult.passedUnverifiedKey)
    }
}
