import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing

@testable import MRTDProtocol
import MRTDSimulation
import MRTDTranscript

/// CPU time (process CPU clock) of the terminal side of PACE (brainpoolP256r1 GM / IM / CAM, NIST P-521 GM, DH 2048 GM) next to
/// the raw OpenSSL operations it needs, measured in the same run. Prints; asserts that the recorded
/// run established secure messaging the chip accepts and that every replay reached the same keys. Run alone for stable numbers: `swift test --filter PACEBenchmarkTests`.
@Suite("PACE benchmark (prints)", .serialized)
struct PACEBenchmarkTests {
    static let iterations = 50

    /// Records one PACE run against the virtual chip, checks that the chip answers a command under
    /// its secure messaging, then replays the terminal side `iterations` times (chip answers
    /// scripted, terminal randomness replayed) and returns CPU µs per run.
    func terminalCost(_ info: PACEInfo) async throws -> Double {
        let chip = VirtualChip(configuration: try .paceChip(
            document: PACEMatrixTests.specimen, accessKey: PACEMatrixTests.key, infos: [info]))
        let recorder = RecordingTransport(chip)
        let random = RecordingRandom(SystemRandom())
        let parameters = try PACEParameters.strongest(in: SecurityInfos(infos: [.pace(info)]))
        let channel = ChipChannel(transport: recorder)
        _ = try await PACE.perform(channel: channel, parameters: parameters,
                                   password: .mrz(PACEMatrixTests.key), random: random)
        let script = recorder.exchanges
        // The chip accepts the session: SELECT of the eMRTD application under secure messaging succeeds.
        let select = CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: ApplicationID.lds1)
        #expect(try await channel.send(select).statusWord == .success)
        let protectedSelect = try #require(recorder.exchanges.last).command
        let start = processCPUMicroseconds()
        for _ in 0..<Self.iterations {
            let transport = ScriptedTransport(script)
            let replay = ChipChannel(transport: transport)
            _ = try await PACE.perform(channel: replay, parameters: parameters,
                                       password: .mrz(PACEMatrixTests.key), random: ScriptedRandom(random.recorded))
            #expect(transport.consumed == script.count)
            // Same session keys and counter as the accepted session: the same protected SELECT.
            var session = try #require(replay.secureMessaging)
            #expect(try session.protect(select) == protectedSelect)
        }
        return (processCPUMicroseconds() - start) / Double(Self.iterations)
    }

    @Test func pacePerRunNextToTheOpenSSLFloor() async throws {
        let gm = PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!
        let im = PACEProtocol(mapping: .im, keyAgreement: .ecdh, cipher: .aes128)!
        let cam = PACEProtocol(mapping: .cam, keyAgreement: .ecdh, cipher: .aes128)!
        // The terminal's EC operations per run (OpenSSLFloor.Costs states what each mapping needs).
        let rows: [(String, PACEInfo, ECGroup.StandardCurve, KeyPath<OpenSSLFloor.Costs, Double>)] = [
            ("brainpoolP256r1 GM ", PACEInfo(protocol: gm, parameterID: 13), .brainpoolP256r1, \.paceGenericMapping),
            ("brainpoolP256r1 IM ", PACEInfo(protocol: im, parameterID: 13), .brainpoolP256r1, \.paceIntegratedMapping),
            ("brainpoolP256r1 CAM", PACEInfo(protocol: cam, parameterID: 13), .brainpoolP256r1, \.paceChipAuthenticationMapping),
            ("NIST P-521 GM      ", PACEInfo(protocol: gm, parameterID: 18), .p521, \.paceGenericMapping),
        ]
        for (name, info, curve, floor) in rows {
            // Floor and protocol measured back to back, so machine load affects both alike.
            let costs = try OpenSSLFloor.measure(curve: curve, iterations: Self.iterations * 2)
            let cost = try await terminalCost(info)
            let camCost = info.paceProtocol?.mapping == .cam ? try camCheckCost(curve) : 0
            print(String(format: "PACE %@ terminal: %5.0f µs/run (+ CAM check %4.0f µs) | floor %5.0f µs = %.2fx | OpenSSL keygen %4.0f µs, k·P %4.0f µs, a·G+b·P %4.0f µs",
                         name, cost, camCost, costs[keyPath: floor], (cost + camCost) / costs[keyPath: floor],
                         costs.keyGeneration, costs.scalarMultiplication, costs.doubleMultiplication))
            #expect(cost > 0)
        }
    }

    @Test func dhGenericMappingNextToTheOpenSSLFloor() async throws {
        let gm = PACEProtocol(mapping: .gm, keyAgreement: .dh, cipher: .aes128)!
        let costs = try OpenSSLFloor.measure(dhGroup: .rfc5114_2048_256, iterations: Self.iterations / 5)
        let cost = try await terminalCost(PACEInfo(protocol: gm, parameterID: 2))
        print(String(format: "PACE DH 2048/256 GM terminal: %5.0f µs/run | floor %5.0f µs = %.2fx | OpenSSL x^e %4.0f µs, y^q %4.0f µs",
                     cost, costs.paceGenericMapping, cost / costs.paceGenericMapping, costs.exponentiation, costs.subgroupCheck))
        #expect(costs.exponentiation > 0 && costs.subgroupCheck > 0)
        #expect(cost > 0)
    }

    /// The PACE-CAM verification against EF.CardSecurity (one k·P plus parsing), µs per check.
    func camCheckCost(_ curve: ECGroup.StandardCurve) throws -> Double {
        let group = try ECGroup(standard: curve)
        let staticKey = try group.generatePrivateKey(using: SystemRandom())
        let staticPK = try group.publicKey(privateKey: staticKey, generator: group.generator)
        let caIC = try group.generatePrivateKey(using: SystemRandom())
        let start = processCPUMicroseconds()
        for _ in 0..<Self.iterations {
            _ = try group.multiply(point: staticPK, scalar: caIC)
        }
        return (processCPUMicroseconds() - start) / Double(Self.iterations)
    }
}
