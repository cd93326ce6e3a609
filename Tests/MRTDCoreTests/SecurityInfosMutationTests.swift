import Testing
@testable import MRTDCore

/// Damaged EF.CardAccess, DG14 and EF.CardSecurity files (RELIABILITY fuzz target
/// `fuzz_securityinfos`, on fixed mutations of the real samples): parsing succeeds or throws
/// `SecurityInfosError`; it never traps, and what parses can be inspected without trapping.
@Suite("SecurityInfos parsing of damaged files")
struct SecurityInfosMutationTests {
    enum Kind: String, Sendable { case cardAccess, dg14, cardSecurity }

    static let files: [(String, Kind)] = [
        ("gmrtd/cardaccess/EF_CardAccess_SG.bin", .cardAccess),
        ("openpace/cardaccess/EF_CardAccess_DE_testcard_old.bin", .cardAccess),
        ("openpace/cardaccess/EF_CardAccess_ca3.bin", .cardAccess),
        ("gmrtd/dg14/EF_DG14_AT.bin", .dg14),
        ("openpace/cardsecurity/EF_CardSecurity_BSI_EAC_WorkedExample_ECDH.bin", .cardSecurity),
    ]

    static func parse(_ bytes: [UInt8], as kind: Kind) throws -> SecurityInfos {
        switch kind {
        case .cardAccess: return try SecurityInfos(derEncoded: bytes)
        case .dg14: return try SecurityInfos(dg14: bytes)
        case .cardSecurity: return try CardSecurity(rawBytes: bytes).securityInfos
        }
    }

    /// Touches every parsed value the protocol code reads.
    static func inspect(_ infos: SecurityInfos) {
        for info in infos.paceDomainParameterInfos { _ = try? info.domainParameter.domainParameters }
        for info in infos.chipAuthenticationPublicKeyInfos {
            _ = try? info.publicKey
            _ = try? info.algorithm.domainParameters
        }
        _ = infos.paceInfos.map(\.paceProtocol)
    }

    @Test(arguments: 0..<files.count)
    func damagedSampleNeverTraps(index: Int) throws {
        let (path, kind) = Self.files[index]
        guard let original = sharedSample(path) else { return }
        var parsed = 0
        var rejected = 0
        var attempts = 0
        let step = max(1, original.count / 97)
        for position in stride(from: 0, to: original.count, by: step) {
            for mutated in [
                Array(original.prefix(position)),
                { var b = original; b[position] ^= 0xFF; return b }(),
                { var b = original; b[position] = 0x80; return b }(),
            ] {
                attempts += 1
                do {
                    Self.inspect(try Self.parse(mutated, as: kind))
                    parsed += 1
                } catch is SecurityInfosError {
                    rejected += 1
                }
            }
        }
        #expect(rejected > 0)
        // Any other error kind would have ended the test with that error.
        #expect(parsed + rejected == attempts)
    }
}
