import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import SwiftASN1
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// Loading trust material: the certs/ layout, PEM and DER, CRLs, LDIF, master lists with their
/// signatures checked, link certificates, and the TEST-ONLY directory.
@Suite struct TrustStoreTests {
    static func temporaryDirectory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-trust-\(UUID().uuidString)")
        for sub in ["csca", "masterlists", "crls"] {
            try FileManager.default.createDirectory(at: url.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        return url
    }

    /// A certificate keeps none of the buffer it was parsed from (in a trust store: a whole master
    /// list file). Writing to the buffer after the parse must not copy it first, which it would if
    /// anything the certificate holds (an algorithm's OID, a slice) still shared its storage.
    @Test func aParsedCertificateKeepsNoReferenceToItsBuffer() throws {
        // The certificate inside a larger buffer, as in a master list: SEQUENCE { certificate, padding }.
        var serializer = DER.Serializer()
        try serializer.appendConstructedNode(identifier: .sequence) { coder in
            coder.serializeRawBytes(try TestPKI.csca().derBytes)
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(repeating: 0, count: 4096)))
        }
        var buffer = serializer.serializedBytes.map { $0 }  // storage the serializer does not share
        // Parsed in a scope of its own: the parse's nodes (slices of the buffer) are gone after it.
        let certificate = try { (bytes: [UInt8]) throws -> Certificate in
            guard case .constructed(let children) = try BER.parse(bytes).content, let node = children.first(where: { _ in true }) else {
                throw ASN1Error.invalidASN1Object(reason: "no certificate node")
            }
            return try Certificate(berEncoded: node)
        }(buffer)
        let before = buffer.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        buffer[0] ^= 0xFF
        let after = buffer.withUnsafeBufferPointer { UInt(bitPattern: $0.baseAddress) }
        #expect(before == after, "the certificate still shares the buffer it was parsed from")
        #expect(certificate.signatureAlgorithm == certificate.innerSignatureAlgorithm)
    }

    static func pem(_ der: [UInt8], label: String = "CERTIFICATE") -> String {
        "-----BEGIN \(label)-----\n" + Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
            + "\n-----END \(label)-----\n"
    }

    static func write(_ bytes: [UInt8], _ url: URL) throws { try Data(bytes).write(to: url) }

    @Test func loadsTheCertsLayoutWithEveryKindOfFile() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let a = Shared.pki, b = Shared.otherPKI
        let c = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Listed CSCA", keySet: 2)
        let d = try FixturePKI.make(.ecP256, country: "UW", cscaCommonName: "LDIF CSCA", keySet: 3)
        try (Self.pem(a.csca) + Self.pem(b.csca)).write(to: root.appendingPathComponent("csca/two.pem"), atomically: true, encoding: .utf8)
        try "not trust material".write(to: root.appendingPathComponent("csca/README.md"), atomically: true, encoding: .utf8)
        try Self.write([], root.appendingPathComponent("crls/.gitkeep"))
        try Self.write(try a.crl(revoking: [a.dscSerial]), root.appendingPathComponent("crls/a.crl"))
        try Self.write(try c.masterList(containing: [c.csca]), root.appendingPathComponent("masterlists/c.ml"))
        let base64 = Data(d.csca).base64EncodedString()
        var folded = ""
        var rest = Substring(base64)
        folded += "userCertificate;binary:: " + rest.prefix(50)
        rest = rest.dropFirst(50)
        while !rest.isEmpty {
            folded += "\n " + rest.prefix(75)
            rest = rest.dropFirst(75)
        }
        let ldif = "# ICAO PKD style\ndn: cn=x,o=csca,c=UW,dc=data\nobjectClass: pkdCertificate\n\(folded)\n\n"
        try ldif.write(to: root.appendingPathComponent("icaopkd.ldif"), atomically: true, encoding: .utf8)
        try Self.write([0x01, 0x02, 0x03], root.appendingPathComponent("csca/junk.der"))

        let store = TrustStore.load(paths: [root.path])
        let report = store.report
        #expect(report.cscaCount == 4)
        #expect(report.crlCount == 1)
        #expect(report.masterLists.count == 1)
        #expect(report.masterLists.first?.signature == "verified")
        #expect(report.masterLists.first?.added == 1)
        #expect(report.rejected.map { ($0.path as NSString).lastPathComponent } == ["junk.der"])
        #expect(Set(report.countries.map(\.country)) == ["UT", "UU", "UV", "UW"])

        // The loaded CRL revokes a's DSC; c's and d's documents verify.
        #expect(PassiveAuthentication.verify(files: try FixtureDocument().files(pki: a), trustStore: store).reason == .dscRevoked)
        #expect(PassiveAuthentication.verify(files: try FixtureDocument().files(pki: c), trustStore: store).result == .passed)
        #expect(PassiveAuthentication.verify(files: try FixtureDocument().files(pki: d), trustStore: store).result == .passed)
    }

    @Test func tamperedMasterListIsRejectedWhole() throws {
        let c = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Listed CSCA", keySet: 2)
        var store = TrustStore()
        let verdict = store.addMasterList(try c.masterList(containing: [c.csca, Shared.pki.csca]) { $0.signature = .corrupted }, path: "ml")
        #expect(verdict.signature == PassiveAuthenticationReason.sodSignatureInvalid.rawValue)
        #expect(store.anchors.isEmpty)
    }

    @Test func masterListWhoseSignerChainsToNoCSCAIsRejected() throws {
        let c = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Listed CSCA", keySet: 2)
        var store = TrustStore()
        let verdict = store.addMasterList(try c.masterList(containing: [Shared.pki.csca]), path: "ml")
        #expect(verdict.signature == PassiveAuthenticationReason.cscaNotFound.rawValue)
        #expect(store.anchors.isEmpty)
    }

    @Test func masterListWithWrongContentTypeIsRejected() throws {
        let c = try FixturePKI.make(.ecP256, country: "UV", cscaCommonName: "Listed CSCA", keySet: 2)
        var store = TrustStore()
        let verdict = store.addMasterList(try c.masterList(containing: [c.csca]) {
            $0.eContentType = LDSSecurityObject.oid
            $0.contentTypeAttribute = LDSSecurityObject.oid
        }, path: "ml")
        #expect(verdict.signature == PassiveAuthenticationReason.sodContentTypeInvalid.rawValue)
    }

    @Test func testDirectoryIsFlaggedAndItsDSCIsNotAnAnchor() throws {
        let certsTest = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("certs/test").path
        let store = TrustStore.load(paths: [certsTest])
        #expect(store.report.containsTestMaterial)
        #expect(store.anchors.count == 1)
        #expect(store.documentSigners.count == 1)
        #expect(store.report.rejected.isEmpty)  // keys, README and images are skipped, not rejected
        let specimen = try SpecimenDocument.make()
        let report = PassiveAuthentication.verify(files: specimen.files, trustStore: store)
        #expect(report.result == .passed)
        #expect(report.warnings.contains("testTrustAnchor"))
    }

    @Test func specimenFailsAgainstARealTrustStore() throws {
        guard let root = sharedSamplesRoot() else { return }
        let store = TrustStore.load(paths: [root.appendingPathComponent("gmrtd/csca").path])
        let report = PassiveAuthentication.verify(files: try SpecimenDocument.make().files, trustStore: store)
        #expect(report.reason == .cscaNotFound)
    }

    @Test func linkCertificateIsFollowedToTheOldCSCA() throws {
        let old = Shared.pki
        let new = try FixturePKI.make(.ecP256, country: "UT", cscaCommonName: "Fixture CSCA 2", keySet: 4)
        // Link: subject and key of the new CSCA, issued and signed by the old one (Doc 9303-12 §5.5.2).
        var link = new.cscaTemplate
        link.issuer = old.cscaName
        link.authorityKeyIdentifier = old.cscaTemplate.subjectKeyIdentifier
        link.serialNumber = [0x42]
        let linkDER = try link.issue(signedBy: old.cscaKey)
        var store = TrustStore()
        store.addAnchor(try Certificate(derEncoded: old.csca), source: "old")
        store.addAnchor(try Certificate(derEncoded: linkDER), source: "link")
        let report = PassiveAuthentication.verify(files: try FixtureDocument().files(pki: new), trustStore: store)
        #expect(report.result == .passed)
        #expect(report.warnings.contains("cscaIsLinkCertificate"))
        #expect(!report.warnings.contains("linkCertificateIssuerNotFound"))
    }

    @Test func nonCertificatePEMIsRejectedWithAReason() throws {
        let root = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: root) }
        let file = root.appendingPathComponent("csca/empty.pem")
        try "-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n".write(to: file, atomically: true, encoding: .utf8)
        let store = TrustStore.load(paths: [file.path, root.appendingPathComponent("missing.pem").path])
        #expect(store.anchors.isEmpty)
        #expect(store.report.rejected.count == 2)
    }
}
