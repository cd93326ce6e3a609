import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders
import MRTDVerification
import MRTDSimulation

/// EAC Terminal Authentication through real pcscd + vpcd: the TEST-ONLY terminal of certs/test-eac
/// (key in a PKCS #8 file, loaded from disk as `--terminal` does, or imported into SoftHSM2) reads
/// DG3/DG4 of a virtual passport that trusts its CVCA; a chip trusting another CVCA refuses, with the
/// specific reason.
extension PCSCHardwareLoopTests {
    static let terminalDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("certs/test-eac").path

    static func eacChip(trusting set: EACTestSet) throws -> (VirtualChip, SpecimenDocument) {
        let fixture = try AuthenticationFixture.make(chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)])
        let specimen = try SpecimenDocument.make(
            extraDataGroups: fixture.extraDataGroups.merging(EACTestSet.biometricDataGroups) { a, _ in a })
        var configuration = VirtualChipConfiguration(files: specimen.files, accessKey: Support.key)
        configuration.authentication = fixture.chip
        set.equip(&configuration, chipDate: .init(year: 2026, month: 1, day: 1))
        return (VirtualChip(configuration: configuration), specimen)
    }

    @Test func terminalAuthenticationThroughPcscdReleasesDG3AndDG4OnlyToTheTrustedTerminal() async throws {
        let fileCredentials = try TerminalCredentials.load(directory: Self.terminalDirectory)
        let trusted = try EACTestSet.fixture()
        let stranger = try EACTestSet.make(country: "XX")
        var runs = [(fileCredentials, trusted, true), (fileCredentials, stranger, false)]
        do {
            let uri = try SoftHSMToken.token().uri(importing: trusted.isKey, as: "fixture-is-key")
            let hsm = TerminalCredentials(
                certificates: fileCredentials.certificates,
                terminals: [.init(certificate: trusted.inspectionSystem, key: try PKCS11TerminalKey(uri: uri))])
            runs.append((hsm, trusted, true))
        } catch let why as SoftHSMToken.Unavailable {
            Support.unavailable("\(why)")
        }
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            for (credentials, set, passes) in runs {
                let (chip, specimen) = try Self.eacChip(trusting: set)
                let card = VPCDCard(chip: chip, port: daemon.vpcdPort)
                try await Self.insert(card, events: events)
                let connection = try await backend.connect(reader: Self.reader)
                var options = ReadOptions(accessKey: .mrz(Support.key), dataGroups: [3, 4, 14])
                options.terminal = credentials
                let read = await DocumentReader.read(transport: connection, options: options)
                await connection.close()
                await card.remove()
                let ta = try #require(read.result.checks.terminalAuthentication)
                #expect(read.result.error == nil)
                if passes {
                    #expect(ta.result == .passed, "\(ta)")
                    #expect(ta.chain == ["UTCVCA00001", "UTDVTEST00001", "UTISTEST00001"])
                    #expect(read.files[.dg(3)] == specimen.files[.dg(3)])
                    #expect(read.files[.dg(4)] == specimen.files[.dg(4)])
                    #expect(read.result.dataGroupsSkipped.isEmpty)
                    #expect(ta.keySource == credentials.terminals[0].key.source)
                } else {
                    #expect(ta.result == .failed)
                    #expect(ta.reason == TerminalAuthenticationFailure.trustPointUnknown.code)
                    #expect(read.files[.dg(3)] == nil && read.files[.dg(4)] == nil)
                    #expect(read.result.dataGroupsSkipped.map(\.reason) == ["securityStatusNotSatisfied", "securityStatusNotSatisfied"])
                }
            }
            await events.stop()
        }
    }
}
