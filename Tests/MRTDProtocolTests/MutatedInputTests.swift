import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol

/// Parsers and the secure-messaging unwrap fed with mutated copies of valid input must throw or
/// succeed, never trap (a crash here would take the daemon down). Seeded, so failures reproduce.
@Suite struct MutatedInputTests {

    /// Flips bytes, truncates, or overwrites a length-like byte with an extreme value.
    static func mutations(of input: [UInt8], count: Int, seed: UInt64) -> [[UInt8]] {
        var rng = SplitMix64(state: seed)
        return (0..<count).map { _ in
            var m = input
            switch Int.random(in: 0..<4, using: &rng) {
            case 0:
                for _ in 0..<Int.random(in: 1...4, using: &rng) {
                    m[Int.random(in: 0..<m.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
            case 1:
                m = Array(m.prefix(Int.random(in: 0..<m.count, using: &rng)))
            case 2:
                let i = Int.random(in: 0..<min(m.count, 64), using: &rng)
                m[i] = [0x80, 0x81, 0x82, 0x83, 0x84, 0xFF, 0x00].randomElement(using: &rng)!
            default:
                let i = Int.random(in: 0..<min(m.count, 64), using: &rng)
                m.insert(contentsOf: [0x84, 0xFF, 0xFF, 0xFF, 0xFF], at: i)
            }
            return m
        }
    }

    static let specimen = try! SpecimenDocument.make(face: .jpeg2000, faceEncoding: .iso39794_5)
    static let jpegSpecimen = try! SpecimenDocument.make()

    @Test func lDSParsersNeverTrapOnMutatedFiles() {
        var parsed = 0
        for (index, file) in [Self.specimen.files[.dg(2)]!, Self.jpegSpecimen.files[.dg(2)]!].enumerated() {
            for m in Self.mutations(of: file, count: 1500, seed: UInt64(index + 1)) {
                if (try? DG2(rawBytes: m)) != nil { parsed += 1 }
                _ = FaceImage.dimensions(of: Array(m.dropFirst(40)))
            }
        }
        for m in Self.mutations(of: Self.specimen.files[.dg(1)]!, count: 1500, seed: 3) {
            if (try? DG1(rawBytes: m)) != nil { parsed += 1 }
        }
        for m in Self.mutations(of: Self.specimen.files[.com]!, count: 1500, seed: 4) {
            if (try? EFCOM(rawBytes: m)) != nil { parsed += 1 }
        }
        for m in Self.mutations(of: Self.specimen.files[.sod]!, count: 1500, seed: 5) {
            _ = try? TLV.parse(m)
            if let cms = try? TLV.parse(m, expecting: 0x77) { _ = try? LDSSecurityObject(derEncoded: cms.bytes) }
        }
        #expect(parsed > 0, "some mutations (bytes inside the image) still parse")
    }

    @Test func secureMessagingUnwrapNeverTrapsOnMutatedResponses() throws {
        let kEnc = [UInt8](hex: "979EC13B1CBFE9DCD01AB0FED307EAE5")!
        let kMac = [UInt8](hex: "F1CB1F1FB5ADF208806B89DC579DC1F8")!
        let valid = [UInt8](hex: "871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A990290008E08C8B2787EAEA07D749000")!
        var accepted = 0
        for m in Self.mutations(of: valid, count: 3000, seed: 6) {
            var sm = SecureMessaging(cipher: .tripleDES, kEnc: kEnc, kMac: kMac, ssc: [UInt8](hex: "887022120C06C22B")!)
            if (try? sm.unprotect(m)) != nil { accepted += 1 }
        }
        // The MAC covers every byte but the trailing status word, so only mutations confined to it
        // (or to nothing) may pass.
        var sm = SecureMessaging(cipher: .tripleDES, kEnc: kEnc, kMac: kMac, ssc: [UInt8](hex: "887022120C06C22B")!)
        #expect(try sm.unprotect(valid).data.hex == "04303130365F36063034303030305C026175")
        #expect(accepted < 100)
    }
}
