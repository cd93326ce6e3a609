import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// Damaged DG14, DG15 and signatures never trap: every single-byte change and truncation gives a
/// value or a specific error.
@Suite struct AuthenticationMutationTests {
    /// DH keys with damaged unnamed parameters get a primality check each (slow), so DH mutates
    /// every 9th byte of the 1024-bit group's DG14.
    @Test(arguments: [(ChipAuthenticationKeySpec(domainParameterID: 13, cipher: .aes128), 1),
                      (.init(domainParameterID: 0, cipher: .tripleDES, keyID: 4), 9)])
    func mutatedDG14NeverTraps(_ spec: ChipAuthenticationKeySpec, _ step: Int) throws {
        let dg14 = try #require(try AuthenticationFixture.make(chipAuthentication: [spec]).dg14)
        #expect(Self.classify(dg14) == "ok")
        var outcomes: [String: Int] = [:]
        for index in stride(from: 0, to: dg14.count, by: step) {
            for mutation in [{ (b: UInt8) in b ^ 0x01 }, { _ in 0xFF }, { _ in 0x00 }] {
                var bytes = dg14
                bytes[index] = mutation(bytes[index])
                outcomes[Self.classify(bytes), default: 0] += 1
            }
        }
        for length in stride(from: 0, to: dg14.count, by: step) { outcomes[Self.classify(Array(dg14.prefix(length))), default: 0] += 1 }
        #expect(outcomes["ok", default: 0] > 0)
        #expect(outcomes.keys.contains { $0 != "ok" }, "\(outcomes)")
        // Every truncation is a broken DG14; a damaged key or parameters is a Chip Authentication failure.
        #expect(outcomes["other"] == nil, "\(outcomes)")
        #expect(outcomes[SecurityInfosError.malformed("").code, default: 0] >= dg14.count / step)
    }

    /// `ok`, `none` (no Chip Authentication offered), or the code of the `SecurityInfosError` or
    /// `ProtocolError` the input gets; `other` for any other error.
    static func classify(_ dg14: [UInt8]) -> String {
        do {
            guard let parameters = try ChipAuthenticationParameters.select(from: SecurityInfos(dg14: dg14)) else { return "none" }
            _ = try ChipAuthentication.chipPublicKey(parameters)
            return "ok"
        } catch let error as SecurityInfosError {
            return error.code
        } catch let error as ProtocolError {
            return error.code
        } catch {
            return "other"
        }
    }

    @Test func arbitrarySignaturesAreRejectedNotTrapped() throws {
        let rsa = try ActiveAuthenticationPublicKey(subjectPublicKeyInfo: PrivateKey.generateRSA(bits: 1024).subjectPublicKeyInfo())
        let ec = try ActiveAuthenticationPublicKey(
            subjectPublicKeyInfo: PrivateKey.generateEC(standardizedDomainParameterID: 13).subjectPublicKeyInfo())
        let random = SystemRandom()
        for length in [0, 1, 2, 7, 8, 63, 64, 65, 70, 127, 128, 129, 300] {
            let signature = try random.randomBytes(length)
            for key in [rsa, ec] {
                // A verdict, not an error: invalid, with the reason.
                let result = try key.verify(challenge: [1, 2, 3, 4, 5, 6, 7, 8], signature: signature)
                #expect(!result.isValid && result.failure != nil, "\(length) bytes: \(result)")
            }
        }
        // Representatives built to reach every branch of the ISO/IEC 9796-2 parser.
        for prefix in [[UInt8](), [0x6B], [0x6B, 0xBB], [0x4A], [0x6A, 0xCC], [0x00, 0x00]] {
            let block = prefix + [0xBC]
            #expect(throws: Never.self) { _ = ISO9796Part2.check(representative: block, modulusBits: 8 * block.count, m2: []) }
        }
    }
}
