import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import Synchronization
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// Terminal Authentication across a recovered fault (docs/reliability.md): the new session knows
/// nothing of the TA of the old one, so the read engine runs TA again (after access and Chip
/// Authentication again), signing the new session's `ID_PICC` (after PACE: Comp of the new ephemeral
/// chip key, TR-03110-1 §4.4) and CA key; DG3 and DG4 are then read as before.
@Suite(.serialized) struct TerminalAuthenticationRecoveryTests {
    /// Every command sent, over every connection of a slot.
    final class CommandLog: Sendable {
        let commands = Mutex<[[UInt8]]>([])
        var all: [[UInt8]] { commands.withLock { $0 } }
    }

    struct LoggingLink: APDUTransport {
        let base: any APDUTransport
        let log: CommandLog
        var capabilities: TransportCapabilities { base.capabilities }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            log.commands.withLock { $0.append(command) }
            return try await base.transmit(command)
        }
    }

    static func read(_ setup: TerminalAuthenticationTests.Setup, _ credentials: TerminalCredentials, pace: Bool,
                     faults: [Int: VirtualFault]) async throws -> (DocumentReader.Read, VirtualCardSlot, CommandLog) {
        let configuration = await setup.chip.configuration
        let slot = VirtualCardSlot(configuration: configuration, faults: faults)
        let log = CommandLog()
        var options = ReadOptions(accessKey: .mrz(TerminalAuthenticationTests.key), dataGroups: [14, 3, 4],
                                  access: pace ? .pace : .bac, recovery: .init(reconnectDelay: .zero))
        options.terminal = credentials
        options.terminalDate = TerminalAuthenticationTests.today
        let read = await DocumentReader.read(
            connect: { LoggingLink(base: try await slot.connect(), log: log) }, options: options)
        return (read, slot, log)
    }

    /// TA's EXTERNAL AUTHENTICATE: INS 82 under secure messaging (BAC's own is plain).
    static func terminalSignatures(_ commands: [[UInt8]]) -> [Int] {
        commands.indices.filter { commands[$0].count > 1 && commands[$0][1] == 0x82 && commands[$0][0] & 0x0C == 0x0C }
    }

    @Test(arguments: [false, true])
    func aRemovalMidDG3AfterTAIsRecoveredWithTARepeatedOnTheNewSession(pace: Bool) async throws {
        let set = try EACTestSet.make()
        let setup = try TerminalAuthenticationTests.setup(chipTrusts: set, pace: pace)
        let credentials = set.credentials()
        let (baseline, baseSlot, baseLog) = try await Self.read(setup, credentials, pace: pace, faults: [:])
        #expect(baseline.result.checks.terminalAuthentication?.result == .passed)
        #expect(Self.terminalSignatures(baseLog.all).count == 1)
        let total = baseSlot.exchanges
        // The card leaves the field while DG3 is read (DG4 comes last): find that exchange.
        var found: (DocumentReader.Read, CommandLog, Int)?
        for back in 1...12 {
            let (read, _, log) = try await Self.read(setup, credentials, pace: pace, faults: [total - back: .removal])
            if read.result.transport.recoveries.first?.file == "DG3" {
                found = (read, log, total - back)
                break
            }
        }
        let (read, log, faultIndex) = try #require(found, "no exchange of DG3 found")
        #expect(read.result.error == nil, "\(String(describing: read.result.error))")
        #expect(read.result.transport.recoveries.map(\.kind) == ["cardRemoved"])
        let ta = try #require(read.result.checks.terminalAuthentication)
        #expect(ta.result == .passed, "\(ta)")
        #expect(read.files[.dg(3)] == TerminalAuthenticationTests.dg3)
        #expect(read.files[.dg(4)] == TerminalAuthenticationTests.dg4)
        #expect(read.result.dataGroupsSkipped.isEmpty, "\(read.result.dataGroupsSkipped)")
        // TA twice: once in the first session, once on the new one after the fault, each with the
        // whole chain (DV, IS: two PSO:Verify Certificate).
        let signatures = Self.terminalSignatures(log.all)
        #expect(signatures.count == 2, "\(signatures)")
        #expect(signatures.last.map { $0 > faultIndex } == true)
        #expect(log.all.filter { $0.count > 1 && $0[1] == 0x2A }.count == 4)
        #expect(log.all.count == read.result.transport.apdus)
    }

    @Test func aBadMACDuringDG4AfterTAIsRecoveredWithoutReconnectingAndTARepeated() async throws {
        let set = try EACTestSet.make()
        let setup = try TerminalAuthenticationTests.setup(chipTrusts: set, pace: true)
        let (baseline, baseSlot, _) = try await Self.read(setup, set.credentials(), pace: true, faults: [:])
        #expect(baseline.result.checks.terminalAuthentication?.result == .passed)
        // The last exchange reads DG4: its answer's MAC is broken, the session is re-established
        // in place (PACE, CA, TA again) and DG4 read again.
        let (read, slot, log) = try await Self.read(
            setup, set.credentials(), pace: true, faults: [baseSlot.exchanges - 1: .chip(.corruptMAC)])
        #expect(read.result.error == nil, "\(String(describing: read.result.error))")
        #expect(read.result.transport.recoveries.first?.file == "DG4")
        #expect(slot.connects == 1)
        #expect(read.result.checks.terminalAuthentication?.result == .passed)
        #expect(read.files[.dg(4)] == TerminalAuthenticationTests.dg4)
        #expect(Self.terminalSignatures(log.all).count == 2)
    }
}
