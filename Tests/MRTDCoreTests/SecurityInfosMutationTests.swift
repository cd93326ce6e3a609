import Testing
@testable import MRTDCore

/// Damaged EF.CardAccess, DG14 and EF.CardSecurity files (RELIABILITY fuzz target
/// `fuzz_securityinfos`, on fixed mutations of the real samples): parsing succeeds or throws
/// `SecurityInfosError`; it never traps, and what parses can be inspected, again failing only with
/// `SecurityInfosError`. Every truncation of the outer object is rejected; some byte changes still parse.
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
    static func inspect(_ infos: SecurityInfos) throws {
        for info in infos.paceDomainParameterInfos { _ = try info.domainParameter.domainParameters }
        for info in infos.chipAuthenticationPublicKeyInfos {
            _ = try info.publicKey
            _ = try info.algorithm.domainParameters
        }
        _ = infos.paceInfos.map(\.paceProtocol)
    }

    @Test(arguments: 0..<files.count)
    func damagedSampleNeverTraps(index: Int) throws {
        let (path, kind) = Self.files[index]
        guard let original = sharedSample(path) else { return }
        try Self.inspect(Self.parse(original, as: kind))
        // Bytes after the outer object are ignored (padding), so only cuts inside it are truncations.
        let outerLength = try TLV.parseHeader(original).totalLength
        var parsedChanges = 0
        let step = max(1, original.count / 97)
        for position in stride(from: 0, to: original.count, by: step) {
            #expect(try Self.parsesAndInspects(Array(original.prefix(position)), as: kind) == (position >= outerLength),
                    "cut to \(position) of \(original.count) bytes")
            for value in [original[position] ^ 0xFF, 0x80] {
                var mutated = original
                mutated[position] = value
                if try Self.parsesAndInspects(mutated, as: kind) { parsedChanges += 1 }
            }
        }
        #expect(parsedChanges > 0, "a changed byte inside a value leaves the structure parseable")
    }

    /// `true` when `bytes` parse and inspect, `false` when they are rejected with
    /// `SecurityInfosError`; any other error is rethrown and fails the test.
    static func parsesAndInspects(_ bytes: [UInt8], as kind: Kind) throws -> Bool {
        do {
            try inspect(parse(bytes, as: kind))
            return true
        } catch is SecurityInfosError {
            return false
        }
    }
}
