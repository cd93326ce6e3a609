import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

import MRTDReaders
import MRTDSimulation

extension PCSCHardwareLoopTests {
    /// A handful of BSI TR-03105-5.1 cases (issue 27) through real pcscd and vpcd instead of in
    /// process: the default configuration sets read as the conformance suite reads them (the plan's
    /// MRZ, its DE signer's trust store, EAC with the run's terminal). Each must end as in process.
    @Test func conformanceCasesThroughPcscdEndAsInProcess() async throws {
        let key = try ConformanceProfile.mrzKey()
        let cases: [(String, VirtualChipConfiguration, [Int])] = [
            ("ISO7816_A_02 CFG.DFLT.BAC", try ConformanceProfile.bac.document().chip(), [1, 2]),
            ("ISO7816_G_01 CFG.DFLT.PACE", try ConformanceProfile.pace.document().chip(), [1, 2]),
            ("ISO7816_D_02 CFG.DFLT.EAC", try ConformanceProfile.eac.document().chip(), [1, 2, 3, 4, 14]),
            ("ISO7816_E_31 CFG.DFLT.EACPACE", try ConformanceProfile.eacPACE.document().chip(), [1, 2, 3, 4, 14]),
        ]
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            for (name, chip, groups) in cases {
                var options = ReadOptions(accessKey: .mrz(key), dataGroups: groups, trustStore: try ConformanceProfile.trustStore())
                if groups.contains(3) { options.terminal = try SimulationPKI.eac().credentials() }
                let reference = await DocumentReader.read(transport: VirtualChip(configuration: chip), options: options)
                let (read, _) = try await PCSCFieldQuirkTests.readThroughPCSC(
                    VirtualChip(configuration: chip), options: options, daemon: daemon, backend: backend, events: events)
                #expect(reference.result.status == .valid, "\(name): in process")
                #expect(read.result.status == .valid, "\(name): \(read.result.error?.message ?? "")")
                #expect(read.files == reference.files, "\(name)")
                #expect(read.result.checks.chipAuthentication.result == reference.result.checks.chipAuthentication.result, "\(name)")
                #expect(read.result.checks.terminalAuthentication?.result == reference.result.checks.terminalAuthentication?.result,
                        "\(name)")
            }
        }
    }
}
