import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import SwiftASN1
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// Deviation lists (Doc 9303-12 §10): loading with signature and signer chain, matching a
/// document, and what a match does to the verdict.
@Suite("Deviation lists")
struct DeviationListTests {
    static let dgHashWrong: ASN1ObjectIdentifier = "2.23.136.1.1.7.2.2"
    static let dgMalformed: ASN1ObjectIdentifier = "2.23.136.1.1.7.2.1"
    static let dsSignature: ASN1ObjectIdentifier = "2.23.136.1.1.7.1.1"
    static let aaKeyCompromised: ASN1ObjectIdentifier = "2.23.136.1.1.7.1.4"
    static let chip: ASN1ObjectIdentifier = "2.23.136.1.1.7.4"

    /// A deviation for documents signed by `pki`'s DSC.
    static func forDSC(_ pki: FixturePKI, _ descriptions: [(text: String?, oid: ASN1ObjectIdentifier, parameter: Int?)]) -> TestDeviationList.Deviation {
        var deviation = TestDeviationList.Deviation(descriptions: descriptions)
        deviation.dscIssuerAndSerial = (pki.cscaName, pki.dscSerial)
        return deviation
    }

    static func store(_ pki: FixturePKI, lists: [[UInt8]]) throws -> TrustStore {
        var store = try trustStore(pki)
        for (index, list) in lists.enumerated() { store.addDeviationList(list, path: "list\(index).dvl") }
        return store
    }

    /// A document whose DG2 content no longer matches the SOD's hash.
    static func tamperedDG2Files(_ pki: FixturePKI) throws -> [LDSFile: [UInt8]] {
        var files = try inspectionDocument().files(pki: pki)
        var dg2 = files[.dg(2)]!
        dg2[dg2.count - 3] ^= 0x01
        files[.dg(2)] = dg2
        return files
    }

    @Test("a good list verifies and is parsed: types, parameters, document fields")
    func goodList() throws {
        var deviation = Self.forDSC(Shared.pki, [("DG2 hash wrong", Self.dgHashWrong, 2), (nil, Self.chip, nil)])
        deviation.documentType = "P"
        deviation.documentNumbers = ["C01X00T47"]
        var list = TestDeviationList(deviations: [deviation])
        list.digestAlgorithm = DERBuilder.algorithm(DigestAlgorithm.sha256.oid)
        let store = try Self.store(Shared.pki, lists: [try Shared.pki.deviationList(list)])
        #expect(store.deviationLists.count == 1)
        #expect(store.report.deviationLists?.first?.signature == "verified")
        #expect(store.report.deviationLists?.first?.deviations == 1)
        let parsed = try #require(store.deviationLists.first?.deviations.first)
        #expect(parsed.documents.documentType == "P")
        #expect(parsed.documents.documentNumbers == ["C01X00T47"])
        #expect(parsed.descriptions.map(\.type).contains(.dgHashWrong))
        #expect(parsed.descriptions.first { $0.type == .dgHashWrong }?.parameter == 2)
        #expect(parsed.descriptions.first { $0.type == .dgHashWrong }?.text == "DG2 hash wrong")
    }

    @Test("a list with a corrupted signature is rejected whole")
    func badSignature() throws {
        let bytes = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.chip, nil)])])) {
            $0.signature = .corrupted
        }
        let store = try Self.store(Shared.pki, lists: [bytes])
        #expect(store.deviationLists.isEmpty)
        #expect(store.report.deviationLists?.first?.signature == "sodSignatureInvalid")
        #expect(store.report.rejected.contains { $0.path == "list0.dvl" })
    }

    @Test("a list whose signer is certified by a CSCA the store does not trust is rejected, even with that CSCA embedded")
    func wrongSigner() throws {
        let foreign = Shared.otherPKI
        let bytes = try foreign.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.dgHashWrong, 2)])])) {
            $0.certificates = [foreign.dsc, foreign.csca]
        }
        let store = try Self.store(Shared.pki, lists: [bytes])
        #expect(store.deviationLists.isEmpty)
        #expect(store.report.deviationLists?.first?.signature == "cscaNotFound")
        // And the document it names is not excused.
        let result = inspect(try Self.tamperedDG2Files(Shared.pki), store: store)
        #expect(result.status == .invalid)
        #expect(result.checks.deviations == nil)
    }

    @Test("a list with a master list's content type is not a deviation list")
    func wrongContentType() throws {
        let bytes = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.chip, nil)])])) {
            $0.eContentType = "2.23.136.1.1.2"
            $0.contentTypeAttribute = "2.23.136.1.1.2"
        }
        let outcome = try trustStore(Shared.pki).verifyDeviationList(bytes, source: "x")
        #expect(outcome.list == nil)
        #expect(outcome.verdict == "sodContentTypeInvalid")
    }

    @Test("TrustStore.load finds a deviation list by content in the trust directory, after the CSCAs")
    func loadFromDirectory() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("dvl-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory.appendingPathComponent("deviationlists"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let list = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.dgHashWrong, 2)])]))
        // "aaa" sorts before "csca": the list is still verified after the CSCA is loaded.
        try Data(list).write(to: directory.appendingPathComponent("deviationlists/aaa.dvl"))
        try Data(list).write(to: directory.appendingPathComponent("other-name.bin"))
        try Data(Shared.pki.csca).write(to: directory.appendingPathComponent("csca.der"))
        let store = TrustStore.load(paths: [directory.path])
        #expect(store.anchors.count == 1)
        #expect(store.deviationLists.count == 2)
        #expect(store.report.masterLists.isEmpty, "a deviation list is not tried as a master list")
        #expect(store.report.deviationLists?.allSatisfy { $0.signature == "verified" } == true)
    }

    @Test("a matching DG hash deviation tolerates the mismatch: unverified (never valid), named warning")
    func toleratedHashMismatch() throws {
        let list = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [("known DG2 defect", Self.dgHashWrong, 2)])]))
        let result = inspect(try Self.tamperedDG2Files(Shared.pki), store: try Self.store(Shared.pki, lists: [list]))
        #expect(result.checks.passiveAuthentication.reason == "dataGroupHashMismatch")
        let match = try #require(result.checks.deviations?.first)
        #expect(match.type == "LDS-DGHashWrong")
        #expect(match.oid == Self.dgHashWrong.description)
        #expect(match.affects == "DG2")
        #expect(match.effect == "tolerated")
        #expect(match.check == "passiveAuthentication")
        #expect(match.description == "known DG2 defect")
        #expect(result.status == .unverified)
        #expect(result.warnings.contains { $0.hasPrefix("deviation LDS-DGHashWrong (DG2): tolerated") })
    }

    @Test("a deviation for another data group, another DSC or another country does not excuse the mismatch")
    func notMatching() throws {
        let files = try Self.tamperedDG2Files(Shared.pki)
        // DG1, not DG2: matches the document, but does not cover the failure.
        let otherGroup = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.dgHashWrong, 1)])]))
        let first = inspect(files, store: try Self.store(Shared.pki, lists: [otherGroup]))
        #expect(first.checks.deviations?.first?.effect == "notTolerated")
        #expect(first.status == .invalid)

        // Another DSC serial: does not match at all.
        var otherDSC = TestDeviationList.Deviation(descriptions: [(nil, Self.dgHashWrong, 2)])
        otherDSC.dscIssuerAndSerial = (Shared.pki.cscaName, [0x7E, 0x01])
        let second = inspect(files, store: try Self.store(Shared.pki, lists: [try Shared.pki.deviationList(TestDeviationList(deviations: [otherDSC]))]))
        #expect(second.checks.deviations == nil)
        #expect(second.status == .invalid)

        // Another document number, another document type.
        var otherNumber = TestDeviationList.Deviation(descriptions: [(nil, Self.dgHashWrong, 2)])
        otherNumber.documentNumbers = ["X0000000"]
        var otherType = TestDeviationList.Deviation(descriptions: [(nil, Self.dgHashWrong, 2)])
        otherType.documentType = "ID"
        let third = inspect(files, store: try Self.store(Shared.pki, lists: [try Shared.pki.deviationList(TestDeviationList(deviations: [otherNumber, otherType]))]))
        #expect(third.checks.deviations == nil)
        #expect(third.status == .invalid)

        // Another State's (trusted) list naming this document: a State declares only its own documents.
        var store = try trustStore(Shared.pki)
        store.addAnchor(try Certificate(derEncoded: Shared.otherPKI.csca), source: "other")
        var foreignDeviation = TestDeviationList.Deviation(descriptions: [(nil, Self.dgHashWrong, 2)])
        foreignDeviation.documentType = "P"
        store.addDeviationList(try Shared.otherPKI.deviationList(TestDeviationList(deviations: [foreignDeviation])), path: "foreign.dvl")
        #expect(store.deviationLists.count == 1)
        let fourth = inspect(files, store: store)
        #expect(fourth.checks.deviations == nil)
        #expect(fourth.status == .invalid)
    }

    @Test("issuance period: matched by the SOD's signingTime, not without one")
    func issuancePeriod() throws {
        var period = TestDeviationList.Deviation(descriptions: [(nil, Self.dgHashWrong, 2)])
        period.issuedFrom = Date(timeIntervalSinceNow: -86400)
        period.issuedUntil = Date(timeIntervalSinceNow: 86400)
        let store = try Self.store(Shared.pki, lists: [try Shared.pki.deviationList(TestDeviationList(deviations: [period]))])
        let document = try inspectionDocument()
        let dg2 = document.dataGroups[2]!
        func tampered(_ signingTime: Date?) throws -> [LDSFile: [UInt8]] {
            var files = try document.files(pki: Shared.pki) { $0.signingTime = signingTime }
            var bytes = dg2
            bytes[bytes.count - 3] ^= 0x01
            files[.dg(2)] = bytes
            return files
        }
        #expect(inspect(try tampered(Date()), store: store).checks.deviations?.first?.effect == "tolerated")
        #expect(inspect(try tampered(Date(timeIntervalSinceNow: -10 * 86400)), store: store).checks.deviations == nil)
        #expect(inspect(try tampered(nil), store: store).checks.deviations == nil)
    }

    @Test("a malformed-DG2 deviation tolerates the structure failure; a DS signature deviation is never tolerated")
    func structureAndSignature() throws {
        var document = try inspectionDocument()
        document.dataGroups[2] = TLV.encode(tag: 0x75, value: [UInt8](repeating: 0x42, count: 64))
        let malformed = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.dgMalformed, 2)])]))
        let result = inspect(try document.files(pki: Shared.pki), store: try Self.store(Shared.pki, lists: [malformed]))
        // Tolerated: the check is undetermined (TR-03135-1: a listed defect), its reason kept and the
        // deviation named; the document is unverified, never valid.
        #expect(result.checks.dataGroupStructure?.result == .undetermined)
        #expect(result.checks.dataGroupStructure?.reason == "dg2Malformed")
        #expect(result.checks.dataGroupStructure?.detail?.contains("tolerated by deviation LDS-DGMalformed") == true)
        #expect(result.checks.deviations?.first?.effect == "tolerated")
        #expect(result.checks.deviations?.first?.check == "dataGroupStructure")
        #expect(result.status == .unverified)

        // The DSC's own signature is broken (signed by another key): listed, not tolerated.
        let brokenDSC = try Shared.pki.withDSC(signedBy: Shared.otherPKI.cscaKey) { _ in }
        let files = try inspectionDocument().files(pki: brokenDSC)
        let listed = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.dsSignature, nil)])]))
        let refused = inspect(files, store: try Self.store(Shared.pki, lists: [listed]))
        #expect(refused.checks.passiveAuthentication.reason == "dscSignatureInvalid")
        #expect(refused.checks.deviations?.first?.effect == "notTolerated")
        #expect(refused.status == .invalid)
    }

    @Test("an AA-key-compromised deviation turns a passed Active Authentication into failed")
    func activeAuthenticationCompromised() throws {
        let files = try inspectionDocument().files(pki: Shared.pki)
        let list = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.aaKeyCompromised, nil)])]))
        let result = inspect(files, store: try Self.store(Shared.pki, lists: [list])) {
            $0.checks.activeAuthentication = ReadResult.Check(result: .passed, protocol: "id-AA", keyFile: "DG15")
        }
        #expect(result.checks.activeAuthentication.result == .failed)
        #expect(result.checks.activeAuthentication.reason == "activeAuthenticationKeyCompromised")
        #expect(result.checks.deviations?.first?.effect == "notTolerated")
        // A compromised AA key proves nothing against cloning (TR-03135-1: AA failed): invalid.
        #expect(result.status == .invalid)
    }

    @Test("malformed deviation list content is rejected with a reason, never a crash")
    func malformedContent() throws {
        var list = TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.chip, nil)])])
        list.version = 1
        let outcome = try trustStore(Shared.pki).verifyDeviationList(try Shared.pki.deviationList(list), source: "x")
        #expect(outcome.verdict == "sodMalformed")
        for cut in [1, 7, 40] {
            let bytes = try Shared.pki.deviationList(TestDeviationList(deviations: [Self.forDSC(Shared.pki, [(nil, Self.chip, nil)])]))
            #expect(try trustStore(Shared.pki).verifyDeviationList(Array(bytes.dropLast(cut)), source: "x").list == nil)
        }
    }
    /// The deviations `content` parses to, or `nil` when it is rejected with `ASN1Error` or
    /// `AlgorithmError` (what parseContent throws for bad input); any other error is rethrown.
    static func deviations(_ content: [UInt8]) throws -> [DeviationList.Deviation]? {
        do {
            return try DeviationList.parseContent(content).deviations
        } catch is ASN1Error {
            return nil
        } catch is AlgorithmError {
            return nil
        }
    }

    @Test("every truncation and 2,000 seeded bit flips of a deviation list's content parse or throw, never trap")
    func mutatedContent() throws {
        var deviation = Self.forDSC(Shared.pki, [("text", Self.dgHashWrong, 2), (nil, Self.chip, nil)])
        deviation.documentType = "P"
        deviation.issuedFrom = Date(timeIntervalSince1970: 1_600_000_000)
        deviation.issuedUntil = Date(timeIntervalSince1970: 1_700_000_000)
        deviation.documentNumbers = ["C01X00T47", "C01X00T48"]
        var list = TestDeviationList(deviations: [deviation, Self.forDSC(Shared.pki, [(nil, Self.dgMalformed, 1)])])
        list.digestAlgorithm = DERBuilder.algorithm(DigestAlgorithm.sha256.oid)
        let content = list.content()
        #expect(try DeviationList.parseContent(content).deviations.count == 2)
        var parsed = 0
        for cut in 0..<content.count {
            if try Self.deviations(Array(content.prefix(cut))) != nil { parsed += 1 }
        }
        #expect(parsed == 0, "no strict prefix of the content is a complete DeviationList")
        var generator = SplitMix64(state: 0x0D5C_2026)
        var counts: [Int?: Int] = [:]
        for _ in 0..<2000 {
            var mutated = content
            let index = Int.random(in: 0..<mutated.count, using: &generator)
            mutated[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            counts[try Self.deviations(mutated)?.count, default: 0] += 1
        }
        // A flip inside a value (text, date, document number) leaves both deviations; one in the
        // structure is rejected. No flip can make a list of another number of deviations.
        #expect(counts.keys.sorted { ($0 ?? -1) < ($1 ?? -1) } == [nil, 2], "\(counts)")
        // The signed list: flipped bytes never give a verified list with changed content.
        let signed = try Shared.pki.deviationList(list)
        let store = try trustStore(Shared.pki)
        for _ in 0..<200 {
            var mutated = signed
            let index = Int.random(in: 0..<mutated.count, using: &generator)
            mutated[index] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            if let verified = store.verifyDeviationList(mutated, source: "x").list {
                #expect(verified.deviations.count == 2, "a verified list kept its signed content")
            }
        }
    }
}

