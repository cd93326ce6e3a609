import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// CVCA key rollover (BSI TR-03110-3 §2.5): a terminal directory holding CVCA link certificates, the
/// chain chosen from the CAR that EF.CVCA names, and the chip's trust-point update.
@Suite struct TerminalAuthenticationLinkTests {
    static let today = CVDate(year: 2026, month: 6, day: 1)

    @Test func theChainStartsAtTheCARThatEFCVCANamesThroughTheLinkCertificate() throws {
        let old = try EACTestSet.make(sequence: "00001"), new = try EACTestSet.make(sequence: "00002")
        let link = try new.linkCertificate(from: old)
        // The new CVCA's self-signed certificate comes first, as a sorted directory may list it: the
        // walk up must still take the link certificate (same holder, issued by the old CVCA).
        let credentials = TerminalCredentials(
            certificates: [old.cvca, new.cvca, link, new.dv, new.inspectionSystem],
            terminals: [.init(certificate: new.inspectionSystem, key: FileTerminalKey(key: new.isKey))])
        let fromOld = try credentials.chain(trustPoints: ["UTCVCA00001"], dataGroups: [3, 4], date: Self.today).get()
        #expect(fromOld.trustPoint == "UTCVCA00001")
        #expect(fromOld.certificates.map(\.holderReference) == ["UTCVCA00002", "UTDVTEST00002", "UTISTEST00002"])
        #expect(fromOld.certificates.first == link)
        // A chip that already trusts the new CVCA gets no link certificate.
        let fromNew = try credentials.chain(trustPoints: ["UTCVCA00002"], dataGroups: [3, 4], date: Self.today).get()
        #expect(fromNew.certificates.map(\.holderReference) == ["UTDVTEST00002", "UTISTEST00002"])
        let both = try credentials.chain(trustPoints: ["UTCVCA00001", "UTCVCA00002"], dataGroups: [3, 4], date: Self.today).get()
        #expect(both.trustPoint == "UTCVCA00002")
        // A link certificate signed by another key than the old CVCA's is caught before the chip sees it.
        let forged = try new.linkCertificate(from: try EACTestSet.make(sequence: "00001"))
        let bad = TerminalCredentials(
            certificates: [old.cvca, forged, new.dv, new.inspectionSystem],
            terminals: [.init(certificate: new.inspectionSystem, key: FileTerminalKey(key: new.isKey))])
        guard case .failure(.terminalAuthentication(let failure, _)) = bad.chain(
            trustPoints: ["UTCVCA00001"], dataGroups: [3, 4], date: Self.today) else {
            Issue.record("a forged link certificate was accepted")
            return
        }
        #expect(failure == .certificateSignatureInvalid)
    }

    @Test func aTerminalDirectoryWithALinkCertificateReadsAChipOfTheOldCVCAAndUpdatesIt() async throws {
        let old = try EACTestSet.make(sequence: "00001"), new = try EACTestSet.make(sequence: "00002")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ta-link-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try new.write(to: dir.path)
        try Data(try new.linkCertificate(from: old).rawBytes).write(to: dir.appendingPathComponent("link-00001-00002.cvcert"))
        let loaded = try TerminalCredentials.load(directory: dir.path)
        #expect(loaded.certificates.count == 4)

        let setup = try TerminalAuthenticationTests.setup(chipTrusts: old)
        let first = await TerminalAuthenticationTests.read(setup, loaded)
        let ta = try #require(first.result.checks.terminalAuthentication)
        #expect(ta.result == .passed, "\(ta)")
        #expect(ta.chain == ["UTCVCA00001", "UTCVCA00002", "UTDVTEST00002", "UTISTEST00002"])
        #expect(first.files[.dg(3)] == TerminalAuthenticationTests.dg3)
        // The chip took the new key as a trust point and keeps the old one: EF.CVCA names both.
        #expect(await setup.chip.terminalTrustPoints.map(\.holderReference) == ["UTCVCA00001", "UTCVCA00002"])

        // Presented again, the chip trusts the new CVCA by itself: a terminal without the link
        // certificate reads it, from the second CAR of EF.CVCA.
        await setup.chip.reset()
        let second = await TerminalAuthenticationTests.read(setup, new.credentials())
        let again = try #require(second.result.checks.terminalAuthentication)
        #expect(again.result == .passed, "\(again)")
        #expect(again.chain == ["UTCVCA00002", "UTDVTEST00002", "UTISTEST00002"])
        #expect(second.files[.dg(4)] == TerminalAuthenticationTests.dg4)
    }

    @Test func efCVCAWithTwoTrustPointsIsReadWhole() async throws {
        // EF.CVCA is two `42` objects and zero padding, not one TLV object: a reader that takes the
        // first object's length for the file's misses the second trust point.
        let first = try EACTestSet.make(sequence: "00001"), second = try EACTestSet.make(sequence: "00002")
        let setup = try TerminalAuthenticationTests.setup(chipTrusts: first)
        var config = await setup.chip.configuration
        let eac = VirtualEAC(trustPoints: [first.cvca, second.cvca], currentDate: .init(year: 2026, month: 1, day: 1))
        config.eac = eac
        config.files[.cvca] = eac.efCVCA
        let chip = VirtualChip(configuration: config)
        let read = await TerminalAuthenticationTests.read(.init(specimen: setup.specimen, chip: chip), second.credentials())
        let ta = try #require(read.result.checks.terminalAuthentication)
        #expect(ta.result == .passed, "\(ta)")
        #expect(ta.chain?.first == "UTCVCA00002")
    }
}
