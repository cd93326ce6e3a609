import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing
@testable import MRTDVerification
import SwiftASN1

/// The pieces of `mrtdctl trust update` that run offline: the bounded ZIP reader (against real
/// archives from python's zipfile: stored and deflated entries, every truncation refused), the LDIF
/// attribute spellings, and the plan (verify, compare with what is installed).
@Suite struct TrustUpdateUnitTests {
    static func python3Zip(_ files: [(name: String, bytes: [UInt8])], stored: Bool = false) throws -> [UInt8]? {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-zip-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for file in files { try Data(file.bytes).write(to: directory.appendingPathComponent(file.name)) }
        let output = directory.appendingPathComponent("out.zip")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", """
            import sys, zipfile, os
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_STORED if sys.argv[3] == 'stored' else zipfile.ZIP_DEFLATED) as z:
                z.writestr(zipfile.ZipInfo('sub/'), '')
                for name in sys.argv[4:]:
                    z.write(os.path.join(sys.argv[2], name), arcname='sub/' + name)
            """, output.path, directory.path, stored ? "stored" : "deflated"] + files.map(\.name)
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { return nil }
        return [UInt8](try Data(contentsOf: output))
    }

    static func sample(_ count: Int, seed: UInt64) -> [UInt8] {
        var random = SplitMix64(state: seed)
        // Half random, half repetitive: deflate has something to compress.
        return (0..<count).map { $0 % 2 == 0 ? UInt8(truncatingIfNeeded: random.next()) : UInt8($0 % 7) }
    }

    @Test(arguments: [false, true])
    func readsWhatZipfileWrites(stored: Bool) throws {
        let files = [("a.ml", Self.sample(70_000, seed: 1)), ("b.bin", Self.sample(5, seed: 2)), ("empty", [UInt8]())]
        guard let zip = try Self.python3Zip(files, stored: stored) else {
            #expect(Prerequisite.skip("python3 missing: ZIP reader not tested against zipfile"))
            return
        }
        let archive = try ZipArchive(zip, maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 20)
        #expect(archive.entries.map(\.name) == ["sub/a.ml", "sub/b.bin", "sub/empty"])
        #expect(archive.entries.map(\.bytes) == files.map(\.1))
    }

    @Test func everyTruncationAndCorruptionIsRefused() throws {
        guard let zip = try Self.python3Zip([("a.ml", Self.sample(3000, seed: 3))]) else {
            #expect(Prerequisite.skip("python3 missing: ZIP reader not tested against zipfile"))
            return
        }
        for length in stride(from: 0, to: zip.count, by: 7) {
            #expect(throws: ZipArchive.Failure.self, "truncated at \(length)") {
                try ZipArchive(Array(zip.prefix(length)), maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 20)
            }
        }
        // A flipped byte in the deflated data: zlib or the CRC-32 catches it.
        var corrupted = zip
        corrupted[60] ^= 0x55
        #expect(throws: ZipArchive.Failure.self) { try ZipArchive(corrupted, maxEntryBytes: 1 << 20, maxTotalBytes: 1 << 20) }
        // Limits are checked before inflating.
        #expect(throws: ZipArchive.Failure.self) { try ZipArchive(zip, maxEntryBytes: 2999, maxTotalBytes: 1 << 20) }
        let error = #expect(throws: TrustUpdateError.self) {
            try TrustUpdate.items(in: Array(zip.prefix(zip.count - 1)), name: "DE_ML.zip")
        }
        #expect(error?.errorCode == .trustUpdateArchiveInvalid)
        #expect(error?.message.contains("truncated ZIP") == true)
    }

    @Test(arguments: ["pkdMasterListContent;binary", "CscaMasterListData;binary", "pkdMasterListContent"])
    func ldifMasterListsInEitherSpelling(attribute: String) throws {
        let pki = try FixturePKI.make(.ecP256, country: "UW", cscaCommonName: "LDIF CSCA", keySet: 3)
        let list = try pki.masterList(containing: [pki.csca]) { $0.signingTime = Date(timeIntervalSinceNow: -86_400) }
        let base64 = Data(list).base64EncodedString()
        var text = "version: 1\n\n# a comment\ndn: cn=x,c=UW\n\(attribute):: " + base64.prefix(40)
        var rest = base64.dropFirst(40)
        while !rest.isEmpty {
            text += "\n " + rest.prefix(60)
            rest = rest.dropFirst(60)
        }
        text += "\ncn: x\n\n"
        let items = try TrustUpdate.items(in: Array(text.utf8), name: "icaopkd-002.ldif")
        #expect(items.count == 1)
        #expect(items.first?.kind == .masterList)
        #expect(items.first?.bytes == list)
        // Anchored only in itself: refused, unless its CSCA is pinned for the source.
        let refused = #expect(throws: TrustUpdateError.self) { try TrustUpdate.plan(items, store: TrustStore(), installedDirectory: nil) }
        #expect(refused?.errorCode == .trustUpdateNotAnchored)
        let pin = DigestAlgorithm.sha256.hash(pki.csca).hex
        let planned = try TrustUpdate.plan(items, store: TrustStore(), installedDirectory: nil, pins: .init([pin]))
        #expect(planned.map(\.relativePath) == ["masterlists/UW.ml"])
        #expect(planned.first?.unchanged == false)
    }

    @Test func planRefusesOlderAndUnverifiedAndKeepsCRLsOfTheirCSCA() throws {
        let pki = try FixturePKI.make(.ecP256, country: "UW", cscaCommonName: "Plan CSCA", keySet: 3)
        func list(_ daysAgo: Double, corrupt: Bool = false) throws -> [UInt8] {
            try pki.masterList(containing: [pki.csca]) {
                $0.signingTime = Date(timeIntervalSinceNow: -daysAgo * 86_400)
                if corrupt { $0.signature = .corrupted }
            }
        }
        var store = TrustStore()
        #expect(store.addMasterList(try list(10), path: "installed.ml").signature == "verified")
        let newer = try TrustUpdate.plan([.init(kind: .masterList, bytes: try list(1), origin: "new.ml")], store: store, installedDirectory: nil)
        #expect(newer.first?.unchanged == false)
        let same = try TrustUpdate.plan([.init(kind: .masterList, bytes: try list(10), origin: "same.ml")], store: store, installedDirectory: nil)
        #expect(same.first?.unchanged == true)
        let older = #expect(throws: TrustUpdateError.self) {
            try TrustUpdate.plan([.init(kind: .masterList, bytes: try list(20), origin: "old.ml")], store: store, installedDirectory: nil)
        }
        #expect(older?.errorCode == .trustUpdateOlderThanInstalled)
        // Several lists of one country in one source (an ICAO LDIF): the newest counts.
        let mixed = try TrustUpdate.plan([.init(kind: .masterList, bytes: try list(20), origin: "old.ml"),
                                          .init(kind: .masterList, bytes: try list(2), origin: "new.ml")], store: store, installedDirectory: nil)
        #expect(mixed.map(\.origin) == ["new.ml"])
        let broken = #expect(throws: TrustUpdateError.self) {
            try TrustUpdate.plan([.init(kind: .masterList, bytes: try list(1, corrupt: true), origin: "bad.ml")], store: store, installedDirectory: nil)
        }
        #expect(broken?.errorCode == .trustUpdateNotVerified)

        // A CRL of a CSCA in the store is planned under crls/; one of an unknown CSCA is refused.
        let crl = try pki.crl(revoking: [[0x01]])
        let crlItems = try TrustUpdate.items(in: crl, name: "UW.crl")
        #expect(crlItems.map(\.kind) == [.crl])
        let plannedCRL = try TrustUpdate.plan(crlItems, store: store, installedDirectory: nil)
        #expect(plannedCRL.first?.relativePath.hasPrefix("crls/UW-") == true)
        let stranger = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Stranger CSCA", keySet: 4)
        let refused = #expect(throws: TrustUpdateError.self) {
            try TrustUpdate.plan(try TrustUpdate.items(in: try stranger.crl(revoking: []), name: "UV.crl"), store: store, installedDirectory: nil)
        }
        #expect(refused?.errorCode == .trustUpdateNotVerified)
    }

    /// A deviation list and a CRL arriving together in one ZIP (python's zipfile): both verified
    /// against the store's CSCA and planned; a deviation list older than the installed one (read
    /// from the trust directory) is refused; one signed by a CSCA the store lacks is refused.
    @Test func deviationListsAndCRLsInAZip() throws {
        let pki = try FixturePKI.make(.ecP256, country: "UW", cscaCommonName: "DVL CSCA", keySet: 3)
        let deviation = TestDeviationList.Deviation(descriptions: [(text: "test", oid: "2.23.136.1.1.7.1.1", parameter: 1)])
        func dvl(_ daysAgo: Double, by signer: FixturePKI? = nil) throws -> [UInt8] {
            try (signer ?? pki).deviationList(TestDeviationList(deviations: [deviation])) {
                $0.signingTime = Date(timeIntervalSinceNow: -daysAgo * 86_400)
            }
        }
        guard let zip = try Self.python3Zip([("UW.dvl", try dvl(2)), ("UW.crl", try pki.crl(revoking: [[0x05]]))]) else {
            #expect(Prerequisite.skip("python3 missing: ZIP reader not tested against zipfile"))
            return
        }
        var store = TrustStore()
        store.addAnchor(try Certificate(derEncoded: pki.csca), source: "csca", isTestMaterial: false)
        let items = try TrustUpdate.items(in: zip, name: "uw.zip")
        #expect(Set(items.map(\.kind)) == [.deviationList, .crl])
        let planned = try TrustUpdate.plan(items, store: store, installedDirectory: nil)
        #expect(planned.map(\.relativePath).contains("deviationlists/UW.dvl"))
        #expect(planned.contains { $0.relativePath.hasPrefix("crls/UW-") && $0.relativePath.hasSuffix(".crl") })

        // Installed: a deviation list of yesterday. The one of two days ago is older: refused.
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-dvl-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("deviationlists"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(try dvl(1)).write(to: directory.appendingPathComponent("deviationlists/UW.dvl"))
        let older = #expect(throws: TrustUpdateError.self) {
            try TrustUpdate.plan(items.filter { $0.kind == .deviationList }, store: store, installedDirectory: directory.path)
        }
        #expect(older?.errorCode == .trustUpdateOlderThanInstalled)
        let stranger = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Stranger DVL CSCA", keySet: 4)
        let unknown = #expect(throws: TrustUpdateError.self) {
            try TrustUpdate.plan([.init(kind: .deviationList, bytes: try dvl(0, by: stranger), origin: "x.dvl")], store: store, installedDirectory: nil)
        }
        #expect(unknown?.errorCode == .trustUpdateNotVerified)
    }
}
