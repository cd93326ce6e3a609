import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import SwiftASN1
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// EAC Terminal Authentication against the virtual chip (BSI TR-03110-1 §4.4): the chain, the
/// signature over `ID_PICC || r_PICC || Comp(PK_PCD)`, DG3 / DG4 released only after it, and the
/// negative cases, each with its specific reason and none `passed`.
@Suite struct TerminalAuthenticationTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey
    /// Stand-ins for ISO/IEC 19794-4 / -6 records inside DG3 / DG4 (only the bytes matter here).
    static let dg3 = TLV.encode(tag: 0x63, value: TLV.encode(tag: 0x7F61, value: TLV.encode(tag: 0x02, value: [1])))
    static let dg4 = TLV.encode(tag: 0x76, value: TLV.encode(tag: 0x7F61, value: TLV.encode(tag: 0x02, value: [1])))
    static let today = CVDate(year: 2026, month: 6, day: 1)

    struct Setup: Sendable {
        var specimen: SpecimenDocument
        var chip: VirtualChip
    }

    static func setup(chipTrusts set: EACTestSet, chipDate: CVDate = .init(year: 2026, month: 1, day: 1),
                      pace: Bool = false) throws -> Setup {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)])
        var extra = fixture.extraDataGroups
        extra[3] = dg3
        extra[4] = dg4
        let specimen = try SpecimenDocument.make(extraDataGroups: extra)
        var config: VirtualChipConfiguration
        if pace {
            let info = PACEInfo(protocol: PACEProtocol(mapping: .gm, keyAgreement: .ecdh, cipher: .aes128)!, parameterID: 13)
            config = try VirtualChipConfiguration.paceChip(document: specimen, accessKey: key, infos: [info])
        } else {
            config = VirtualChipConfiguration(files: specimen.files, accessKey: key)
        }
        config.authentication = fixture.chip
        let eac = set.virtualEAC(date: chipDate)
        config.files[.cvca] = eac.efCVCA
        config.eac = eac
        return Setup(specimen: specimen, chip: VirtualChip(configuration: config))
    }

    static func read(_ setup: Setup, _ credentials: TerminalCredentials?, groups: [Int] = [3, 4],
                     access: AccessPolicy = .bac, date: CVDate = today) async -> DocumentReader.Read {
        var options = ReadOptions(accessKey: .mrz(key), dataGroups: [14] + groups, access: access)
        options.terminal = credentials
        options.terminalDate = date
        return await DocumentReader.read(transport: setup.chip, options: options)
    }

    // MARK: Passing

    @Test(arguments: [false, true])
    func terminalAuthenticationReleasesDG3AndDG4(pace: Bool) async throws {
        let set = try EACTestSet.make()
        let setup = try Self.setup(chipTrusts: set, pace: pace)
        let read = await Self.read(setup, set.credentials(), access: pace ? .pace : .bac)
        let ta = try #require(read.result.checks.terminalAuthentication)
        #expect(ta.result == .passed, "\(ta)")
        #expect(ta.chain == ["UTCVCA00001", "UTDVTEST00001", "UTISTEST00001"])
        #expect(ta.grantedDataGroups == [3, 4])
        #expect(ta.keySource == "file")
        #expect(ta.algorithm == "ECDSA-plain-SHA256")
        #expect(read.files[.dg(3)] == Self.dg3)
        #expect(read.files[.dg(4)] == Self.dg4)
        #expect(read.result.dataGroupsSkipped.isEmpty, "\(read.result.dataGroupsSkipped)")
        #expect(await setup.chip.terminalAuthenticationGranted == [3, 4])
    }

    @Test(arguments: [("prime256v1", EACTestSet.ecdsaSHA256), ("secp384r1", "0.4.0.127.0.7.2.2.2.2.4"),
                      ("brainpoolP384r1", "0.4.0.127.0.7.2.2.2.2.5")] as [(String, ASN1ObjectIdentifier)])
    func terminalAuthenticationWithOtherCurves(curve: String, algorithm: ASN1ObjectIdentifier) async throws {
        let set = try EACTestSet.make(curve: curve, algorithmOID: algorithm)
        let read = await Self.read(try Self.setup(chipTrusts: set), set.credentials())
        #expect(read.result.checks.terminalAuthentication?.result == .passed)
        #expect(read.files[.dg(3)] == Self.dg3)
    }

    @Test(arguments: ["0.4.0.127.0.7.2.2.2.1.2", "0.4.0.127.0.7.2.2.2.1.4", "0.4.0.127.0.7.2.2.2.1.6"] as [ASN1ObjectIdentifier])
    func terminalAuthenticationWithRSAKeys(algorithm: ASN1ObjectIdentifier) async throws {
        let set = try EACTestSet.make(algorithmOID: algorithm, rsaBits: 2048)
        let read = await Self.read(try Self.setup(chipTrusts: set), set.credentials())
        let ta = try #require(read.result.checks.terminalAuthentication)
        #expect(ta.result == .passed, "\(ta)")
        #expect(ta.algorithm?.hasPrefix("RSA") == true)
        #expect(read.files[.dg(4)] == Self.dg4)
    }

    @Test func withoutTerminalCredentialsEACGroupsStaySkipped() async throws {
        let set = try EACTestSet.make()
        let read = await Self.read(try Self.setup(chipTrusts: set), nil)
        #expect(read.result.checks.terminalAuthentication == nil)
        #expect(read.result.dataGroupsSkipped.map(\.file) == ["DG3", "DG4"])
        #expect(read.result.dataGroupsSkipped.allSatisfy { $0.reason == "securityStatusNotSatisfied" })
    }

    @Test func credentialsWithoutAnEACGroupAskedForChangeNothing() async throws {
        let set = try EACTestSet.make()
        let setup = try Self.setup(chipTrusts: set)
        let read = await Self.read(setup, set.credentials(), groups: [1, 2, 15])
        #expect(read.result.checks.terminalAuthentication == nil)
        #expect(read.result.dataGroupsSkipped.isEmpty)
        #expect(await setup.chip.terminalAuthenticationGranted.isEmpty)
    }

    @Test func theChipEnforcesTheRightsOfTheChain() async throws {
        let set = try EACTestSet.make()
        // DG4 only: TA passes, and the chip still refuses DG3.
        let irisOnly = try set.inspectionSystem(rights: 0x02)
        let read = await Self.read(try Self.setup(chipTrusts: set), set.credentials(terminal: irisOnly))
        let ta = try #require(read.result.checks.terminalAuthentication)
        #expect(ta.result == .passed)
        #expect(ta.grantedDataGroups == [4])
        #expect(read.files[.dg(4)] == Self.dg4)
        #expect(read.files[.dg(3)] == nil)
        #expect(read.result.dataGroupsSkipped == [.init(file: "DG3", reason: "securityStatusNotSatisfied")])
    }

    // MARK: Negative cases

    static func expectFailure(_ read: DocumentReader.Read, _ reason: TerminalAuthenticationFailure,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        let ta = read.result.checks.terminalAuthentication
        #expect(ta?.result == .failed, "\(String(describing: ta))", sourceLocation: sourceLocation)
        #expect(ta?.reason == reason.code, "\(String(describing: ta))", sourceLocation: sourceLocation)
        #expect(read.files[.dg(3)] == nil, sourceLocation: sourceLocation)
        #expect(read.result.dataGroupsSkipped.contains(.init(file: "DG3", reason: "securityStatusNotSatisfied")),
                sourceLocation: sourceLocation)
        // The read itself goes on: DG1 and DG2 are there.
        #expect(read.files[.dg(1)] != nil && read.result.error == nil, sourceLocation: sourceLocation)
    }

    @Test func wrongTrustPoint() async throws {
        let chipSet = try EACTestSet.make(country: "XA")
        let ours = try EACTestSet.make()
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: chipSet), ours.credentials()), .trustPointUnknown)
    }

    @Test func dvOfAnotherCVCA() async throws {
        let set = try EACTestSet.make()
        let other = try EACTestSet.make(country: "XB")
        // The directory knows the chip's CVCA, but the IS certificate hangs under another CVCA's DV.
        let credentials = TerminalCredentials(
            certificates: [set.cvca, other.cvca, other.dv, other.inspectionSystem],
            terminals: [.init(certificate: other.inspectionSystem, key: FileTerminalKey(key: other.isKey))])
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), credentials), .dvNotUnderTrustPoint)
    }

    @Test func aDVClaimingTheTrustPointButSignedByAnotherCVCA() async throws {
        let set = try EACTestSet.make()
        let other = try EACTestSet.make()  // same names, other keys
        let credentials = TerminalCredentials(
            certificates: [set.cvca, other.dv, other.inspectionSystem],
            terminals: [.init(certificate: other.inspectionSystem, key: FileTerminalKey(key: other.isKey))])
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), credentials), .certificateSignatureInvalid)
        // Without the CVCA certificate the reader cannot check; the chip refuses it.
        let blind = TerminalCredentials(
            certificates: [other.dv, other.inspectionSystem],
            terminals: [.init(certificate: other.inspectionSystem, key: FileTerminalKey(key: other.isKey))])
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), blind), .certificateRejected)
    }

    @Test func expiredInspectionSystemCertificate() async throws {
        let set = try EACTestSet.make()
        let expired = try set.inspectionSystem(expiration: .init(year: 2025, month: 12, day: 31))
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(terminal: expired)),
                           .certificateExpired)
    }

    @Test func notYetValidInspectionSystemCertificate() async throws {
        let set = try EACTestSet.make()
        let early = try set.inspectionSystem(effective: .init(year: 2027, month: 1, day: 1))
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(terminal: early)),
                           .certificateNotYetValid)
    }

    @Test func expiredAtTheChipsDateOnly() async throws {
        // Valid at the reader's date, expired at the chip's current date: the chip refuses it.
        let set = try EACTestSet.make()
        let cert = try set.inspectionSystem(expiration: .init(year: 2026, month: 12, day: 31))
        let setup = try Self.setup(chipTrusts: set, chipDate: .init(year: 2027, month: 3, day: 1))
        Self.expectFailure(await Self.read(setup, set.credentials(terminal: cert)), .certificateRejected)
    }

    @Test func notYetValidAtTheChipsDateOnly() async throws {
        let set = try EACTestSet.make()
        let cert = try set.inspectionSystem(effective: .init(year: 2026, month: 5, day: 1))
        let setup = try Self.setup(chipTrusts: set, chipDate: .init(year: 2026, month: 1, day: 1))
        Self.expectFailure(await Self.read(setup, set.credentials(terminal: cert)), .certificateRejected)
    }

    @Test func badCertificateSignature() async throws {
        let set = try EACTestSet.make()
        let forged = try set.inspectionSystem(corruptSignature: true)
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(terminal: forged)),
                           .certificateSignatureInvalid)
    }

    @Test func badTerminalSignature() async throws {
        // The IS certificate is genuine, the key signing the challenge is not its key.
        let set = try EACTestSet.make()
        let impostor = try PrivateKey.generate(.ec(curve: "brainpoolP256r1", explicitParameters: true))
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(key: impostor)),
                           .signatureRejected)
    }

    @Test func rightsThatExcludeDG3() async throws {
        let set = try EACTestSet.make()
        let irisOnly = try set.inspectionSystem(rights: 0x02)
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(terminal: irisOnly), groups: [3]),
                           .rightsExcludeDataGroups)
        // The DV's rights count too: an IS granting DG3 under a DV that grants only DG4.
        var dv = CVCertificateBuilder(
            authorityReference: set.cvca.holderReference, holderReference: set.dv.holderReference,
            algorithmOID: set.algorithmOID, holderKey: set.dvKey, includeDomainParameters: false,
            accessRights: EACTestSet.dvDomesticRole | 0x02, effectiveDate: set.dv.effectiveDate, expirationDate: set.dv.expirationDate)
        dv.corruptSignature = false
        let narrowDV = try dv.build(issuerKey: set.cvcaKey, issuerAlgorithmOID: set.algorithmOID)
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(dv: narrowDV), groups: [3]),
                           .rightsExcludeDataGroups)
    }

    @Test func aCertificateWhoseRoleIsNotAnInspectionSystem() async throws {
        let set = try EACTestSet.make()
        let dvRole = try set.inspectionSystem(rights: EACTestSet.dvDomesticRole | 0x03)
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(terminal: dvRole)), .roleInvalid)
        // An authentication terminal (id-AT, eID) certificate is not for eMRTD data groups.
        let at = try set.inspectionSystem(terminalTypeOID: "0.4.0.127.0.7.3.1.2.2")
        Self.expectFailure(await Self.read(try Self.setup(chipTrusts: set), set.credentials(terminal: at)), .roleInvalid)
    }

    // MARK: Credentials directory

    @Test func aTerminalDirectoryWithDERAndPEMKeys() async throws {
        let set = try EACTestSet.make()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try set.write(to: dir.path)
        let loaded = try TerminalCredentials.load(directory: dir.path)
        #expect(loaded.certificates.count == 3)
        #expect(loaded.terminals.map(\.certificate) == [set.inspectionSystem])
        let read = await Self.read(try Self.setup(chipTrusts: set), loaded)
        #expect(read.result.checks.terminalAuthentication?.result == .passed)
        // PEM works as well as DER.
        let der = try Data(contentsOf: dir.appendingPathComponent("is.pkcs8"))
        let pem = "-----BEGIN PRIVATE KEY-----\n" + der.base64EncodedString(options: .lineLength64Characters) + "\n-----END PRIVATE KEY-----\n"
        try pem.write(to: dir.appendingPathComponent("is.pkcs8"), atomically: true, encoding: .utf8)
        #expect(try TerminalCredentials.load(directory: dir.path).terminals.count == 1)
    }

    @Test func aDirectoryWithoutAUsableKeyIsAClearError() throws {
        let set = try EACTestSet.make()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ta-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try set.write(to: dir.path)
        try Data("not a key".utf8).write(to: dir.appendingPathComponent("is.pkcs8"))
        try Data([0x7F, 0x21, 0x05, 0x00]).write(to: dir.appendingPathComponent("junk.cvcert"))
        #expect {
            try TerminalCredentials.load(directory: dir.path)
        } throws: { error in
            guard case TerminalCredentialsError.noTerminal(_, let warnings) = error else { return false }
            return warnings.contains { $0.hasPrefix("junk.cvcert") } && warnings.contains { $0.hasPrefix("is:") }
        }
        #expect(throws: TerminalCredentialsError.unreadable("/nonexistent-terminal-dir")) {
            try TerminalCredentials.load(directory: "/nonexistent-terminal-dir")
        }
    }
}
