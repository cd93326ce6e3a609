import MRTDCore
import MRTDCrypto
import MRTDTesting
import SwiftASN1
import Testing

@testable import MRTDProtocol
import MRTDSimulation

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

    /// Parses `file` and 1500 mutations of it with `parse`. The file itself parses; a mutation that
    /// is a strict prefix of it fails as truncated TLV; the others parse or fail with `Failure`.
    /// Returns how many mutations parsed and how many were rejected.
    static func parseMutations<Failure: Error>(
        of file: [UInt8], seed: UInt64, isTruncation: (Failure) -> Bool, _ parse: ([UInt8]) throws(Failure) -> Void
    ) throws(Failure) -> (parsed: Int, rejected: Int) {
        try parse(file)
        var outcome = (parsed: 0, rejected: 0)
        for m in mutations(of: file, count: 1500, seed: seed) {
            let truncated = m.count < file.count && file.starts(with: m)
            do throws(Failure) {
                try parse(m)
                outcome.parsed += 1
                #expect(!truncated, "a prefix of \(m.count) of \(file.count) bytes parsed")
            } catch {
                outcome.rejected += 1
                #expect(!truncated || isTruncation(error), "prefix of \(m.count) bytes: \(error)")
            }
        }
        return outcome
    }

    static func isTruncation(_ error: LDSError) -> Bool {
        if case .tlv(.truncated) = error { true } else { false }
    }

    @Test func lDSParsersNeverTrapOnMutatedFiles() throws {
        var outcomes: [(parsed: Int, rejected: Int)] = []
        for (index, file) in [Self.specimen.files[.dg(2)]!, Self.jpegSpecimen.files[.dg(2)]!].enumerated() {
            outcomes.append(try Self.parseMutations(of: file, seed: UInt64(index + 1), isTruncation: Self.isTruncation) { m throws(LDSError) in
                _ = FaceImage.dimensions(of: Array(m.dropFirst(40)))
                _ = try DG2(rawBytes: m)
            })
        }
        outcomes.append(try Self.parseMutations(of: Self.specimen.files[.dg(1)]!, seed: 3, isTruncation: Self.isTruncation) {
            m throws(LDSError) in _ = try DG1(rawBytes: m)
        })
        outcomes.append(try Self.parseMutations(of: Self.specimen.files[.com]!, seed: 4, isTruncation: Self.isTruncation) {
            m throws(LDSError) in _ = try EFCOM(rawBytes: m)
        })
        outcomes.append(try Self.parseMutations(of: Self.specimen.files[.sod]!, seed: 5) { error in
            if case .truncated = error { true } else { false }
        } _: { m throws(TLVError) in _ = try TLV.parse(m, expecting: 0x77) })
        // Each file has bytes (image, names, hashes) whose change keeps it parseable.
        for outcome in outcomes { #expect(outcome.parsed > 0 && outcome.rejected > 0, "\(outcomes)") }
    }

    /// The SOD's signed content: what parses re-encodes to an equal value; the rest fails with
    /// `ASN1Error` (a strict prefix, as too short).
    @Test func ldsSecurityObjectParsesOrRejectsMutatedContent() throws {
        let original = try LDSSecurityObject(
            hashAlgorithmOID: DigestAlgorithm.sha256.oid,
            dataGroupHashes: [1: DigestAlgorithm.sha256.hash([1]), 2: DigestAlgorithm.sha256.hash([2])]).derEncoded()
        let outcome = try Self.parseMutations(of: original, seed: 7) { (error: ASN1Error) in
            error.code == .truncatedASN1Field
        } _: { m throws(ASN1Error) in
            let parsed: LDSSecurityObject
            do { parsed = try LDSSecurityObject(derEncoded: m) } catch let error as ASN1Error { throw error } catch {
                Issue.record("not an ASN1Error: \(error)")
                return
            }
            #expect((try? LDSSecurityObject(derEncoded: parsed.derEncoded())) == parsed)
        }
        #expect(outcome.parsed > 0 && outcome.rejected > 0, "\(outcome)")
    }

    @Test func secureMessagingUnwrapNeverTrapsOnMutatedResponses() throws {
        let kEnc = [UInt8](hex: "979EC13B1CBFE9DCD01AB0FED307EAE5")!
        let kMac = [UInt8](hex: "F1CB1F1FB5ADF208806B89DC579DC1F8")!
        let valid = [UInt8](hex: "871901FB9235F4E4037F2327DCC8964F1F9B8C30F42C8E2FFF224A990290008E08C8B2787EAEA07D749000")!
        var accepted = 0
        for m in Self.mutations(of: valid, count: 3000, seed: 6) {
            var sm = SecureMessaging(cipher: .tripleDES, kEnc: kEnc, kMac: kMac, ssc: [UInt8](hex: "887022120C06C22B")!)
            do {
                let response = try sm.unprotect(m)
                accepted += 1
                // Only the unprotected trailing status word may differ; what is returned is the MACed content.
                #expect(response.data.hex == "04303130365F36063034303030305C026175" && response.statusWord == .success)
            } catch {
                #expect(error is ProtocolError, "\(error)")
            }
        }
        // The MAC covers every byte but the trailing status word, so only mutations confined to it
        // (or to nothing) may pass.
        var sm = SecureMessaging(cipher: .tripleDES, kEnc: kEnc, kMac: kMac, ssc: [UInt8](hex: "887022120C06C22B")!)
        #expect(try sm.unprotect(valid).data.hex == "04303130365F36063034303030305C026175")
        #expect(accepted < 100)
    }
}
