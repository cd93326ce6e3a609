import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// The master lists shipped in `certs/masterlists` (trusted by default), how they are found, and
/// what the load report says about lists, CSCAs and CRLs (trust list / trust check / health).
@Suite struct DefaultTrustTests {
    /// The checkout this test file is in.
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let shipped = repository.appendingPathComponent("certs/masterlists").path
    static let store = TrustStore.load(paths: [shipped])

    @Test func shippedMasterListsVerifyAgainstACSCAInsideThemselves() throws {
        let report = Self.store.report
        #expect(report.masterLists.count == 2)
        #expect(Set(report.masterLists.compactMap(\.country)) == ["DE", "NL"])
        for list in report.masterLists {
            #expect(list.signature == "verified", "\(list.path): \(list.detail ?? "")")
            #expect(list.issuedFrom == "signingTime")
            #expect((list.ageDays ?? -1) >= 0)
        }
        // ICAO master lists carry their own root: each list alone, in an empty store, verifies, and
        // its signer's CSCA is a certificate of that list.
        for list in report.masterLists {
            let alone = TrustStore.load(paths: [list.path])
            let entry = try #require(alone.report.masterLists.first)
            #expect(entry.signature == "verified", "\(list.path): \(entry.detail ?? "")")
            let signerCSCA = try #require(entry.signerCSCA)
            let anchor = try #require(alone.anchors.first { $0.certificate.subject.description == signerCSCA })
            #expect(anchor.source == list.path)
            #expect(anchor.certificate.isCertificateAuthority)  // a root or, for DE, a link certificate of the list
            #expect(!anchor.isTestMaterial)
        }
        #expect(report.errors.isEmpty, "\(report.errors)")
        #expect(report.cscaCount > 500)
        #expect(report.countries.count > 100)
        #expect(!report.containsTestMaterial)
        // Expiring CSCAs are listed soonest first and all lie within 90 days.
        let dates = report.expiringCSCAs.map(\.notAfter)
        #expect(dates == dates.sorted())
        let horizon = UTCDate.iso8601(Date().addingTimeInterval(90 * 86_400))
        #expect(dates.allSatisfy { $0 <= horizon })
    }

    @Test(arguments: ["AT", "DE", "FI", "FR", "MY"])
    func realSODVerifiesWithTheDefaultTrustAlone(country: String) throws {
        guard let sod = sharedSample("gmrtd/sod/EF_SOD_\(country).bin") else { return }
        // As `mrtdctl` built in this checkout finds it (no --trust at all).
        let located = try #require(DefaultTrust.locate(
            environment: [:], executable: Self.repository.appendingPathComponent(".build/debug/mrtdctl").path))
        #expect(URL(fileURLWithPath: located).standardized.path == URL(fileURLWithPath: Self.shipped).standardized.path)
        let report = PassiveAuthentication.verify(files: [.sod: sod], trustStore: Self.store)
        #expect(report.result == .passed, "\(country): \(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(report.csca?.subject.country?.uppercased() == country)
    }

    @Test func locateHonoursTheEnvironmentAndFindsNothingElsewhere() throws {
        #expect(DefaultTrust.locate(environment: ["MRTD_DEFAULT_TRUST": "/x/y"], executable: "/nowhere/bin/mrtdd") == "/x/y")
        #expect(DefaultTrust.locate(environment: ["MRTD_DEFAULT_TRUST": ""], executable: Self.repository.path + "/.build/debug/mrtdd") == nil)
        if !FileManager.default.fileExists(atPath: DefaultTrust.installedPath) {
            #expect(DefaultTrust.locate(environment: [:], executable: "/nowhere/bin/mrtdd") == nil)
        }
        // make-install layout: <prefix>/bin/mrtdd and <prefix>/share/mrtdd/masterlists.
        let prefix = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-prefix-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: prefix) }
        let lists = prefix.appendingPathComponent("share/mrtdd/masterlists")
        try FileManager.default.createDirectory(at: lists, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.shipped + "/NL_ML_2026-07-22.ml", toPath: lists.appendingPathComponent("NL.ml").path)
        #expect(DefaultTrust.locate(environment: [:], executable: prefix.appendingPathComponent("bin/mrtdd").path) == lists.path)
    }

    @Test func trailingBytesAfterAMasterListWarnAndTheListStillLoads() throws {
        let c = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Listed CSCA", keySet: 2)
        var store = TrustStore()
        let recent = FixturePKI.defaultNotBefore.addingTimeInterval(10 * 86_400)
        let entry = store.addMasterList(try c.masterList(containing: [c.csca]) + [0, 0, 0x13, 0x37], path: "ml", at: recent)
        #expect(entry.signature == "verified")
        #expect(entry.warnings == ["masterListTrailingBytes"])
        #expect(store.report.warnings.contains { $0.hasPrefix("masterListTrailingBytes: ml: 4 bytes") })
        #expect(store.anchors.count == 1)
        let clean = TrustStore().addingMasterList(try c.masterList(containing: [c.csca]), at: recent)
        #expect(clean.warnings == nil)
    }

    @Test func masterListOlderThan180DaysWarns() throws {
        let c = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Listed CSCA", keySet: 2)
        let list = try c.masterList(containing: [c.csca])
        // The list has no signingTime: its age is its signer's notBefore (a year ago).
        let old = TrustStore().addingMasterList(list)
        #expect(old.issuedFrom == "signerNotBefore")
        #expect((old.ageDays ?? 0) >= 364)
        #expect(old.warnings == ["masterListOlderThan180Days"])
        let fresh = TrustStore().addingMasterList(list, at: FixturePKI.defaultNotBefore.addingTimeInterval(10 * 86_400))
        #expect(fresh.ageDays == 10)
        #expect(fresh.warnings == nil)
    }

    @Test func cscaExpiringWithin90DaysIsReported() throws {
        let root = try TrustStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let soon = try Shared.pki.withCSCA { $0.notAfter = Date(timeIntervalSinceNow: 30 * 86_400) }
        try TrustStoreTests.write(soon.csca, root.appendingPathComponent("csca/soon.der"))
        try TrustStoreTests.write(Shared.otherPKI.csca, root.appendingPathComponent("csca/later.der"))
        let report = TrustStore.load(paths: [root.path]).report
        #expect(report.expiringCSCAs.map(\.country) == ["UT"])
        #expect(report.warnings.contains { $0.hasPrefix("cscaExpiringSoon:") })
        #expect(report.errors.isEmpty)
    }

    // Issue 14 item 9: a CRL with a broken signature was listed as loaded although never used.
    @Test func crlWithABrokenSignatureIsRejectedNotListedAsLoaded() throws {
        let root = try TrustStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let pki = Shared.pki
        try TrustStoreTests.write(pki.csca, root.appendingPathComponent("csca/ut.der"))
        var crl = try pki.crl(revoking: [[0x05]])
        crl[crl.count - 3] ^= 0x01  // inside the signature value
        try TrustStoreTests.write(crl, root.appendingPathComponent("crls/broken.crl"))
        let forged = try CRLBuilder(issuer: pki.cscaName, revokedSerials: [], thisUpdate: Date(), nextUpdate: Date(timeIntervalSinceNow: 86_400),
                                 scheme: pki.scheme).issue(signedBy: Shared.otherPKI.cscaKey)
        try TrustStoreTests.write(forged, root.appendingPathComponent("crls/forged.crl"))
        let orphan = try Shared.otherPKI.crl(revoking: [])
        try TrustStoreTests.write(orphan, root.appendingPathComponent("crls/orphan.crl"))

        let store = TrustStore.load(paths: [root.path])
        let report = store.report
        #expect(report.crlCount == 0)
        #expect(store.crls.isEmpty)
        #expect(report.crls.map(\.status) == ["rejected", "rejected", "rejected"])
        #expect(report.crls[0].detail?.contains("signature does not verify") == true)
        #expect(report.crls[2].detail?.contains("no CSCA in the store") == true)
        #expect(Set(report.rejected.map { ($0.path as NSString).lastPathComponent }) == ["broken.crl", "forged.crl", "orphan.crl"])
        #expect(report.errors.count == 3)
        let verdict = PassiveAuthentication.verify(files: try FixtureDocument().files(pki: pki), trustStore: store)
        #expect(verdict.warnings.contains("revocationNotChecked"))
    }

    /// Two CRLs of one CSCA signed in turn: the newest valid one decides.
    static func crl(_ pki: FixturePKI, revoking serials: [[UInt8]], daysAgo: Double, nextInDays: Double) throws -> [UInt8] {
        try CRLBuilder(issuer: pki.cscaName, revokedSerials: serials, thisUpdate: Date(timeIntervalSinceNow: -daysAgo * 86_400),
                    nextUpdate: Date(timeIntervalSinceNow: nextInDays * 86_400), scheme: pki.scheme).issue(signedBy: pki.cscaKey)
    }

    @Test func newestValidCRLOfACSCAWins() throws {
        let pki = Shared.pki
        let files = try FixtureDocument().files(pki: pki)
        func load(_ crls: [String: [UInt8]]) throws -> TrustStore {
            let root = try TrustStoreTests.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: root) }
            try TrustStoreTests.write(pki.csca, root.appendingPathComponent("csca/ut.der"))
            for (name, bytes) in crls { try TrustStoreTests.write(bytes, root.appendingPathComponent("crls/\(name)")) }
            return TrustStore.load(paths: [root.path])
        }
        // An old, outdated CRL and a current one: no crlOutdated, the old one is superseded.
        let refreshed = try load([
            "a-old.crl": try Self.crl(pki, revoking: [], daysAgo: 60, nextInDays: -30),
            "b-new.crl": try Self.crl(pki, revoking: [], daysAgo: 1, nextInDays: 29),
        ])
        #expect(refreshed.report.crls.map(\.status) == ["superseded", "current"])
        #expect(refreshed.report.crlsPastNextUpdate == 0)
        #expect(refreshed.report.nextCRLUpdate == refreshed.report.crls[1].nextUpdate)
        let passed = PassiveAuthentication.verify(files: files, trustStore: refreshed)
        #expect(passed.result == .passed)
        #expect(!passed.warnings.contains("crlOutdated"))
        #expect(!passed.warnings.contains("revocationNotChecked"))

        // The newer CRL revokes the DSC: revoked, whatever the older one says.
        let revoked = try load([
            "a-old.crl": try Self.crl(pki, revoking: [], daysAgo: 60, nextInDays: 30),
            "b-new.crl": try Self.crl(pki, revoking: [pki.dscSerial], daysAgo: 1, nextInDays: 29),
        ])
        #expect(PassiveAuthentication.verify(files: files, trustStore: revoked).reason == .dscRevoked)

        // Only an outdated CRL: used, with crlOutdated, and reported as past nextUpdate.
        let outdated = try load(["old.crl": try Self.crl(pki, revoking: [], daysAgo: 60, nextInDays: -30)])
        #expect(outdated.report.crls.map(\.status) == ["outdated"])
        #expect(outdated.report.crlsPastNextUpdate == 1)
        #expect(outdated.report.warnings.contains { $0.hasPrefix("crlOutdated:") })
        #expect(PassiveAuthentication.verify(files: files, trustStore: outdated).warnings.contains("crlOutdated"))
    }

    @Test func newerCRLWithABrokenSignatureDoesNotOverrideTheValidOne() throws {
        let pki = Shared.pki
        var store = TrustStore()
        store.addAnchor(try Certificate(derEncoded: pki.csca), source: "csca")
        store.addCRL(try CertificateRevocationList(derEncoded: try Self.crl(pki, revoking: [pki.dscSerial], daysAgo: 10, nextInDays: 20)))
        var newer = try Self.crl(pki, revoking: [], daysAgo: 1, nextInDays: 29)
        newer[newer.count - 3] ^= 0x01
        store.addCRL(try CertificateRevocationList(derEncoded: newer))
        let report = PassiveAuthentication.verify(files: try FixtureDocument().files(pki: pki), trustStore: store)
        #expect(report.reason == .dscRevoked)
    }

    @Test func missingPathIsAnError() {
        let report = TrustStore.load(paths: ["/nonexistent/mrtdd-trust"]).report
        #expect(report.rejected.map(\.reason) == ["no such file or directory"])
        #expect(report.errors.contains("/nonexistent/mrtdd-trust: no such file or directory"))
        #expect(report.errors.contains("no CSCA loaded"))
    }
}

extension TrustStore {
    /// Adds `list` to a copy and returns the verdict.
    func addingMasterList(_ list: [UInt8], at date: Date = Date()) -> TrustStoreReport.MasterList {
        var copy = self
        return copy.addMasterList(list, path: "ml", at: date)
    }
}
