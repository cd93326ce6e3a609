import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDTranscript

/// Damaged chip answers in every PACE step (RELIABILITY fuzz target `fuzz_pace_ga`, run here on a
/// fixed set of mutations of the Appendix G.1 session): PACE ends with a `ProtocolError`, never a
/// trap, never with secure messaging started.
@Suite("PACE with damaged chip answers")
struct PACEMutationTests {
    static let script: [(String, String)] = [
        ("0022C1A412800A04007F0007020204020283010184010D", "9000"),
        ("10860000027C0000", "7C12801095A3A016522EE98D01E76CB6B98B42C39000"),
        ("10860000457C438141047ACF3EFC982EC45565A4B155129EFBC74650DCBFA6362D896FC70262E0C2CC5E544552DCB6725218799115B55C9BAA6D9F6BC3A9618E70C25AF71777A9C4922D00",
         "7C43824104824FBA91C9CBE26BEF53A0EBE7342A3BF178CEA9F45DE0B70AA601651FBA3F5730D8C879AAA9C9F73991E61B58F4D52EB87A0A0C709A49DC63719363CCD13C549000"),
        ("10860000457C438341042DB7A64C0355044EC9DF190514C625CBA2CEA48754887122F3A5EF0D5EDD301C3556F3B3B186DF10B857B58F6A7EB80F20BA5DC7BE1D43D9BF850149FBB3646200",
         "7C438441049E880F842905B8B3181F7AF7CAA9F0EFB743847F44A306D2D28C1D9EC65DF6DB7764B22277A2EDDC3C265A9F018F9CB852E111B768B326904B59A0193776F0949000"),
        ("008600000C7C0A8508C2B0BD78D94BA86600", "7C0A86083ABB9674BCE93C089000"),
    ]

    struct Mutation: Sendable, CustomTestStringConvertible {
        var exchange: Int
        var kind: String
        var position: Int
        var testDescription: String { "exchange \(exchange) \(kind) at \(position)" }

        func apply(_ response: [UInt8]) -> [UInt8] {
            var r = response
            switch kind {
            case "flip": r[min(position, r.count - 1)] ^= 0x01
            case "truncate": r = Array(r.prefix(min(position, r.count - 2))) + [0x90, 0x00]
            default: r.insert(0x00, at: min(position, r.count - 2))
            }
            return r
        }
    }

    static let mutations: [Mutation] = (1...4).flatMap { exchange in
        let length = [UInt8](hex: script[exchange].1)!.count - 2
        let positions = Set([0, 1, 2, 3, 4, length / 2, length - 1])
        return positions.sorted().flatMap { p in
            ["flip", "truncate", "insert"].map { Mutation(exchange: exchange, kind: $0, position: p) }
        }
    }

    @Test(arguments: mutations)
    func damagedAnswerEndsPACEWithAProtocolError(_ mutation: Mutation) async throws {
        var exchanges = Self.script.map {
            ScriptedTransport.Exchange(command: [UInt8](hex: $0.0)!, response: [UInt8](hex: $0.1)!)
        }
        exchanges[mutation.exchange].response = mutation.apply(exchanges[mutation.exchange].response)
        let channel = ChipChannel(transport: ScriptedTransport(exchanges))
        let key = PACEWorkedExampleTests.appendixGKey
        let parameters = try PACEWorkedExampleTests.parameters("3012060A04007F0007020204020202010202010D")
        let random = ScriptedRandom([UInt8](hex:
            "7F4EF07B9EA82FD78AD689B38D0BC78CF21F249D953BC46F4C6E19259C010F99"
            + "A73FB703AC1436A18E0CFA5ABB3F7BEC7A070E7A6788486BEE230C4A22762595")!)
        await #expect(throws: ProtocolError.self) {
            _ = try await PACE.perform(channel: channel, parameters: parameters, password: .mrz(key), random: random)
        }
        #expect(channel.secureMessaging == nil)
    }
}
