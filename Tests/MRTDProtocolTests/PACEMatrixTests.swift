import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Synchronization
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// Every PACE mapping × every standardized parameter ID it may use × every cipher, with the MRZ and
/// with the CAN, each a full read (EF.COM, EF.SOD, DG1, DG2) of the specimen over PACE secure
/// messaging against the virtual chip.
@Suite("PACE matrix against the virtual chip")
struct PACEMatrixTests {
    static let specimen = try! SpecimenDocument.make()
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey
    static let can = "123456"

    struct Case: Sendable, CustomTestStringConvertible {
        var paceProtocol: PACEProtocol
        var parameterID: Int
        var password: String
        var testDescription: String { "\(paceProtocol.name) #\(parameterID) \(password)" }
    }

    /// IDs 0-2 (DH) and 8-18 (ECDH); Integrated Mapping leaves out NIST P-224 (p ≢ 3 mod 4).
    static let cases: [Case] = PACEProtocol.all.flatMap { proto in
        let ids = proto.keyAgreement == .dh ? Array(0...2) : Array(8...18)
        return ids.filter { !(proto.mapping == .im && $0 == 10) }.flatMap { id in
            ["MRZ", "CAN"].map { Case(paceProtocol: proto, parameterID: id, password: $0) }
        }
    }

    static let tally = Mutex((count: 0, milliseconds: 0.0, start: Date()))

    @Test func matrixCoversEveryCombination() {
        // 19 protocols: GM 2×4 + IM 2×4 ciphers on 3 DH / 11 ECDH groups (IM: 10), CAM 3 ciphers × 11 curves.
        #expect(Self.cases.count == 2 * ((3 + 11) * 4 + (3 + 10) * 4 + 11 * 3))
    }

    @Test(arguments: cases)
    func fullReadOverPACE(_ c: Case) async throws {
        let started = ContinuousClock.now
        _ = try await Self.fullRead(c)
        let elapsed = ContinuousClock.now - started
        let ms = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        Self.tally.withLock { tally in
            tally.count += 1
            tally.milliseconds += ms
            if tally.count == Self.cases.count {
                print(String(format: "PACE matrix: %d full reads, %.0f ms summed, %.0f ms wall", tally.count,
                             tally.milliseconds, Date().timeIntervalSince(tally.start) * 1000))
            }
        }
    }

    /// The same matrix with a T=0 style chip (docs/field-quirks.md, `respond-61xx`): every answer
    /// longer than 128 bytes, PACE's DH public keys among them, comes in `61xx` pieces fetched with
    /// GET RESPONSE; half the cases over short APDUs only.
    @Test(arguments: cases)
    func fullReadOverPACEWithEveryLongAnswerIn61xxPieces(_ c: Case) async throws {
        // DH-2048 (IDs 1, 2) sends 264-byte commands: extended length; the rest short on CAN.
        let shortOnly = c.password == "CAN" && !(c.paceProtocol.keyAgreement == .dh && c.parameterID > 0)
        let (read, chip) = try await Self.fullRead(c, quirks: [.respond61xx], extendedLength: !shortOnly)
        #expect(await chip.getResponsesAnswered > 0)
        #expect(read.result.transport.apdus == (await chip.exchangeCount))
        if c.paceProtocol.keyAgreement == .dh && c.parameterID > 0 && c.paceProtocol.mapping == .gm {
            // DH 2048: the mapping and key agreement answers (264 bytes) came in pieces as well.
            #expect(read.result.transport.adjustments.contains { $0.hasPrefix("61xx") })
        }
    }

    static func fullRead(
        _ c: Case, quirks: Set<VirtualChipQuirk> = [], extendedLength: Bool = true
    ) async throws -> (DocumentReader.Read, VirtualChip) {
        let info = PACEInfo(protocol: c.paceProtocol, parameterID: c.parameterID)
        var config = try VirtualChipConfiguration.paceChip(
            document: Self.specimen, accessKey: Self.key, infos: [info], can: Self.can, bac: false).with(quirks: quirks)
        if !extendedLength {
            config.extendedLength = false
            config.maxReadLength = 256
        }
        let chip = VirtualChip(configuration: config)
        let accessKey: AccessKey = c.password == "CAN" ? .can(Self.can) : .mrz(Self.key)
        let read = await DocumentReader.read(transport: chip, options: ReadOptions(accessKey: accessKey, access: .pace))
        #expect(read.result.error == nil, "\(read.result.error?.message ?? "")")
        let access = try #require(read.result.access)
        #expect(access.protocol == "PACE")
        #expect(access.password == c.password)
        #expect(access.mapping == c.paceProtocol.mapping.rawValue)
        #expect(access.keyAgreement == c.paceProtocol.keyAgreement.rawValue)
        #expect(access.cipher == c.paceProtocol.cipher.rawValue)
        #expect(access.parameterId == c.parameterID)
        #expect(access.domainParameters == KeyAgreementGroups.name(ofStandardized: c.parameterID))
        #expect(access.fallback == nil)
        for file in [LDSFile.com, .sod, .dg(1), .dg(2)] {
            #expect(read.files[file] == Self.specimen.files[file], "\(file.name)")
        }
        if c.paceProtocol.mapping == .cam {
            #expect(read.result.checks.chipAuthentication.result == CheckResult.passedUnverifiedKey)
        }
        return (read, chip)
    }
}
