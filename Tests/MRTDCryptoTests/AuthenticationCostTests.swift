import Foundation
import MRTDCore
import Testing

@testable import MRTDCrypto

/// Prints the CPU time of one Chip Authentication key agreement (terminal side: chip key parsing
/// and validation, ephemeral key, shared secret, session keys) and one Active Authentication check,
/// next to the bare OpenSSL calls they need (key decoding, public-key check, key generation,
/// derivation; the raw RSA operation; hash and ECDSA verification), interleaved in the same run. Asserts correctness only
/// (what is timed succeeds on every run, gives the chip's keys, tells a wrong challenge apart) and that time was counted;
/// the numbers are for the report (issue 3 asks for within 1.5x of the floor).
@Suite(.serialized) struct AuthenticationCostTests {
    /// CPU time of the calling thread, in microseconds (the loops below never suspend).
    static func threadCPUMicroseconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) * 1e6 + Double(ts.tv_nsec) / 1e3
    }

    /// Mean thread CPU time of `ours` and of `floor`, interleaved run by run so both see the same
    /// machine load.
    static func measure(_ iterations: Int, ours: () throws -> Bool, floor: () throws -> Bool) rethrows -> (Double, Double) {
        for _ in 0..<max(1, iterations / 10) {  // warm up
            _ = try ours()
            _ = try floor()
        }
        var totals = (0.0, 0.0)
        for run in 0..<iterations {
            var start = threadCPUMicroseconds()
            guard try ours() else {
                Issue.record("our operation failed on run \(run)")
                return (.nan, .nan)
            }
            var end = threadCPUMicroseconds()
            totals.0 += end - start
            start = end
            guard try floor() else {
                Issue.record("the OpenSSL floor failed on run \(run)")
                return (.nan, .nan)
            }
            end = threadCPUMicroseconds()
            totals.1 += end - start
        }
        return (totals.0 / Double(iterations), totals.1 / Double(iterations))
    }

    static func report(_ name: String, _ ours: Double, _ floor: Double) {
        print(String(format: "COST %@: %.1f µs per run, OpenSSL floor %.1f µs, ratio %.2f", name, ours, floor, ours / floor))
    }

    /// The terminal side of Chip Authentication with the chip key `spki`: the ephemeral key pair and
    /// the AES-128 session keys, or `nil` when the chip key fails validation.
    static func chipAuthenticationTerminalSide(_ spki: [UInt8]) throws -> (ephemeral: KeyAgreementKeyPair, keys: [[UInt8]])? {
        let key = try KeyAgreementPublicKey(subjectPublicKeyInfo: spki)
        guard key.problem() == nil else { return nil }
        let ephemeral = try KeyAgreementKeyPair.generate(on: key, random: SystemRandom())
        var k = try ephemeral.sharedSecret(with: key)
        defer { secureWipe(&k) }
        return (ephemeral, sessionKeys(k))
    }

    static func sessionKeys(_ k: [UInt8]) -> [[UInt8]] {
        [KeyDerivation.encryptionCounter, KeyDerivation.macCounter].map { KeyDerivation.derive(sharedSecret: k, counter: $0, cipher: .aes128) }
    }

    @Test(arguments: [(13, "CA ECDH brainpoolP256r1", 300), (2, "CA DH 2048 (RFC 5114, 256-bit q)", 40)])
    func chipAuthenticationCost(_ id: Int, _ name: String, _ iterations: Int) throws {
        let chip = try KeyAgreementKeyPair.generate(standardizedDomainParameterID: id)
        let spki = try chip.subjectPublicKeyInfo(explicitParameters: id > 2)
        // What is timed gives the session keys the chip derives from its side of the agreement.
        let terminal = try #require(try Self.chipAuthenticationTerminalSide(spki))
        #expect(try terminal.keys == Self.sessionKeys(chip.sharedSecret(with: terminal.ephemeral.publicKey)))
        let (ours, floor) = try Self.measure(
            iterations, ours: { try Self.chipAuthenticationTerminalSide(spki) != nil },
            floor: { OpenSSLFloor.chipAuthentication(subjectPublicKeyInfo: spki) })
        #expect(ours > 0 && floor > 0)
        Self.report(name, ours, floor)
    }

    /// A challenge the signatures below are not over: verification must fail for it.
    static let otherChallenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 9]

    @Test func activeAuthenticationRSA2048Cost() throws {
        let key = try PrivateKey.generateRSA(bits: 2048)
        let publicKey = try ActiveAuthenticationPublicKey(subjectPublicKeyInfo: key.subjectPublicKeyInfo())
        let challenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let signature = try key.rsaPrivateOperation(
            ISO9796Part2.representative(modulusBits: 2048, m2: challenge, digest: .sha256, random: SystemRandom()))
        #expect(try !publicKey.verify(challenge: Self.otherChallenge, signature: signature).isValid)
        let (ours, floor) = try Self.measure(
            2000, ours: { try publicKey.verify(challenge: challenge, signature: signature).isValid },
            floor: { OpenSSLFloor.rsaPublicOperation(key: publicKey, signature: signature) })
        #expect(ours > 0 && floor > 0)
        Self.report("AA RSA-2048 ISO 9796-2 SHA-256", ours, floor)
    }

    @Test func activeAuthenticationECDSAP256Cost() throws {
        let key = try PrivateKey.generateEC(standardizedDomainParameterID: 12)
        let publicKey = try ActiveAuthenticationPublicKey(subjectPublicKeyInfo: key.subjectPublicKeyInfo())
        let challenge: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let plain = try key.ecdsaSign(digest: DigestAlgorithm.sha256.hash(challenge), plain: true)
        let der = ECDSASignatureEncoding.der(r: Array(plain[..<32]), s: Array(plain[32...]))
        #expect(try !publicKey.verify(challenge: Self.otherChallenge, signature: plain, ecdsaDigest: .sha256).isValid)
        #expect(!OpenSSLFloor.ecdsaVerify(key: publicKey, message: Self.otherChallenge, derSignature: der, digest: .sha256))
        let (ours, floor) = try Self.measure(
            1000, ours: { try publicKey.verify(challenge: challenge, signature: plain, ecdsaDigest: .sha256).isValid },
            floor: { OpenSSLFloor.ecdsaVerify(key: publicKey, message: challenge, derSignature: der, digest: .sha256) })
        #expect(ours > 0 && floor > 0)
        Self.report("AA ECDSA P-256 SHA-256 plain", ours, floor)
    }
}
