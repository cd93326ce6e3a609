import Foundation
import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDSimulation

/// Chip and Active Authentication on fuzzed key files and chip answers. First byte even: Active
/// Authentication — DG15 and the INTERNAL AUTHENTICATE response (`[u16 len] DG15 [u16 len] R-APDU`,
/// then the ECDSA digest choice); odd: Chip Authentication — DG14 then the chip's answers to
/// MSE:Set KAT/AT and GENERAL AUTHENTICATE. Terminal random fixed. No trap; AA is valid only for a
/// signature that depends on the challenge and on every bit of itself; CA succeeds only with a DG14
/// key that independently decodes as a valid group element, never as version 2 (no fuzzed answer
/// can carry a token that verifies), and a failure leaves secure messaging off with a code.
@main enum FuzzChipAndActiveAuthentication {
    static func main() {
        if FuzzSeeds.writeIfAsked(makeSeeds) { return }
        FuzzDriver.run(test)
    }

    static let challenge: [UInt8] = Array(repeating: 0x5A, count: 8)
    static let digests: [DigestAlgorithm?] = [nil, .sha1, .sha224, .sha256, .sha384, .sha512]

    struct FixedRandom: RandomSource {
        func randomBytes(_ count: Int) throws -> [UInt8] { Array(repeating: 0x5A, count: count) }
    }

    final class StreamTransport: APDUTransport, @unchecked Sendable {
        var responses: [[UInt8]]
        var next = 0
        let capabilities = TransportCapabilities.extended
        init(_ responses: [[UInt8]]) { self.responses = responses }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            guard next < responses.count else { throw TransportError.cardRemoved }
            defer { next += 1 }
            return responses[next]
        }
    }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        if input.bool() {
            chipAuthentication(&input)
        } else {
            activeAuthentication(&input)
        }
        return 0
    }

    static func activeAuthentication(_ input: inout FuzzInput) {
        let dg15 = input.chunk()
        let response = input.chunk()
        let digest = digests[Int(input.byte()) % digests.count]
        guard let key = try? ActiveAuthenticationPublicKey(dg15: dg15) else { return }
        let outcome: ActiveAuthenticationOutcome? = runBlocking {
            let channel = ChipChannel(transport: StreamTransport([response]))
            do {
                return try await ActiveAuthentication.perform(channel: channel, publicKey: key, ecdsaDigest: digest, random: FixedRandom())
            } catch let error as ProtocolError {
                fuzzCheck(!error.code.isEmpty, "an AA failure without a code")
                return nil
            } catch {
                fuzzCheck(error is TransportError, "AA failed with \(type(of: error)): \(error)")
                return nil
            }
        }
        guard let outcome, outcome.verification.isValid else {
            fuzzCheck(outcome.map { $0.verification.failure != nil } ?? true, "an invalid AA signature without a reason")
            return
        }
        fuzzCheck(outcome.challenge == challenge, "AA verified a different challenge")
        let signature = Array(response.dropLast(2))
        let otherChallenge = (try? key.verify(challenge: challenge.map { $0 ^ 0xFF }, signature: signature, ecdsaDigest: digest))?.isValid
        fuzzCheck(otherChallenge != true, "an AA signature valid for two challenges")
        for index in [0, signature.count / 2, signature.count - 1] where !signature.isEmpty {
            var flipped = signature
            flipped[index] ^= 0x01
            let valid = (try? key.verify(challenge: challenge, signature: flipped, ecdsaDigest: digest))?.isValid
            fuzzCheck(valid != true, "an AA signature still valid with byte \(index) flipped")
        }
    }

    static func chipAuthentication(_ input: inout FuzzInput) {
        let dg14 = input.chunk()
        var responses: [[UInt8]] = []
        while !input.isEmpty, responses.count < 4 { responses.append(input.chunk()) }
        guard let infos = try? SecurityInfos(dg14: dg14),
              let parameters = try? ChipAuthenticationParameters.select(from: infos)
        else { return }
        let stream = responses
        let (outcome, secureMessagingStarted): (ChipAuthenticationOutcome?, Bool) = runBlocking {
            let channel = ChipChannel(transport: StreamTransport(stream))
            do {
                let outcome = try await ChipAuthentication.perform(channel: channel, parameters: parameters, random: FixedRandom())
                return (outcome, channel.secureMessaging != nil)
            } catch let error as ProtocolError {
                fuzzCheck(!error.code.isEmpty, "a CA failure without a code")
                return (nil, channel.secureMessaging != nil)
            } catch {
                fuzzCheck(error is TransportError, "CA failed with \(type(of: error)): \(error)")
                return (nil, channel.secureMessaging != nil)
            }
        }
        guard let outcome else {
            fuzzCheck(!secureMessagingStarted, "secure messaging started by a failed CA")
            return
        }
        fuzzCheck(outcome.version == 1, "CA version \(outcome.version) succeeded on fuzzed answers")
        fuzzCheck(secureMessagingStarted, "CA succeeded without starting secure messaging")
        let key = try? KeyAgreementPublicKey(subjectPublicKeyInfo: parameters.publicKeyInfo)
        fuzzCheck(key != nil && key?.problem() == nil, "CA succeeded with a DG14 key that is not a valid group element")
    }

    static func makeSeeds() throws -> [String: [UInt8]] {
        var seeds: [String: [UInt8]] = [:]
        let ok: [UInt8] = [0x90, 0x00]
        for name in ["EF_DG14_AT.bin", "EF_DG14_MY.bin"] {
            if let data = FileManager.default.contents(atPath: "../shared/samples/gmrtd/dg14/\(name)") {
                seeds["ca_\(name)"] = FuzzSeeds.chunks([1], [[UInt8](data), ok, [0x7C, 0x00] + ok])
            }
        }
        let specs: [(String, ChipAuthenticationKeySpec)] = [
            ("ca_ecdh_p256_aes", ChipAuthenticationKeySpec(domainParameterID: 12, cipher: .aes128, keyID: 1)),
            ("ca_ecdh_3des", ChipAuthenticationKeySpec(domainParameterID: 13, cipher: .tripleDES)),
            ("ca_dh_3des", ChipAuthenticationKeySpec(domainParameterID: 0, cipher: .tripleDES)),
        ]
        for (name, spec) in specs {
            let fixture = try AuthenticationFixture.make(chipAuthentication: [spec])
            seeds[name] = FuzzSeeds.chunks([1], [fixture.dg14!, ok, ok])
        }
        let rsa = try AuthenticationFixture.make(activeAuthentication: .rsa(bits: 1024, digest: .sha1))
        if let key = rsa.chip.activeAuthenticationKey {
            let f = try ISO9796Part2.representative(modulusBits: key.rsaModulusBits, m2: challenge, digest: .sha1, random: FixedRandom())
            seeds["aa_rsa1024"] = FuzzSeeds.chunks([0], [rsa.dg15!, try key.rsaPrivateOperation(f) + ok]) + [0]
        }
        for (name, plain) in [("aa_ecdsa_plain", true), ("aa_ecdsa_der", false)] {
            let ec = try AuthenticationFixture.make(activeAuthentication: .ecdsa(curveID: 12, digest: .sha256, plain: plain, withInfo: true))
            if let key = ec.chip.activeAuthenticationKey {
                let signature = try key.ecdsaSign(digest: DigestAlgorithm.sha256.hash(challenge), plain: plain)
                seeds[name] = FuzzSeeds.chunks([0], [ec.dg15!, signature + ok]) + [3]
            }
        }
        return seeds
    }
}
