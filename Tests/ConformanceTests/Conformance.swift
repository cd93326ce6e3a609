import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import MRTDVerification
import SwiftASN1
import Synchronization

/// The harness of the BSI TR-03105 Part 5.1 suite (issue 27). The virtual chip is the plan's lower
/// tester: a case takes a ``ConformanceProfile`` (CFG.DFLT.*), modifies the chip it builds, reads it
/// through the read engine the daemon uses (``DocumentReader``) the way an operator would (the MRZ or
/// CAN of the document, the data groups asked for, the trust store, the terminal), and asserts the
/// plan's expected result on the result model and, where the plan names what the inspection system
/// must send, on the recorded APDUs.
///
/// Naming: one `@Test` per case, its function named by the case ID (`ISO7816_E_08()`), in a suite
/// per unit (`struct ISO7816_E`). `scripts/conformance` reads the verdicts from the run and writes
/// docs/conformance/tr-03105-5.1.md; readings of moved cases and `n/a` reasons are in
/// Tests/ConformanceTests/notes/<UNIT>.tsv.
enum Conformance {
    /// The plan's MRZ key (every profile's holder: ``ConformanceProfile/mrz``).
    static let mrzKey = try! ConformanceProfile.mrzKey()

    /// A read and what crossed the link.
    struct Outcome: Sendable {
        var read: DocumentReader.Read
        var exchanges: [ScriptedTransport.Exchange]

        /// Counted by the test's ``StatusLedger``: its overall status must be asserted.
        init(read: DocumentReader.Read, exchanges: [ScriptedTransport.Exchange]) {
            self.read = read
            self.exchanges = exchanges
            StatusLedger.current?.read()
        }

        var result: ReadResult { read.result }
        /// The command APDUs the inspection system sent, in order (plain or SM-wrapped, as sent).
        var commands: [[UInt8]] { exchanges.map(\.command) }
        /// The commands whose INS is `ins` (class byte ignored, so SM-wrapped commands count too).
        func commands(ins: UInt8) -> [[UInt8]] { commands.filter { $0.count > 1 && $0[1] == ins } }
    }

    /// The trust store of the operator: the sets' TEST-ONLY CSCA (country DE, made once per run).
    static func trustStore() throws -> TrustStore { try ConformanceProfile.trustStore() }

    /// Options as an operator reads: the MRZ key, DG1, DG2 and DG14/DG15 where present (`dataGroups`
    /// adds others), PACE when the chip offers it else BAC (`.auto`), the simulation trust store, and
    /// with `terminal` the run's TEST-ONLY EAC terminal (whose CVCA every EAC profile's chip trusts).
    static func options(
        dataGroups: [Int] = [1, 2, 14, 15], access: AccessPolicy = .auto, key: AccessKey? = nil, trust: Bool = true,
        terminal: Bool = false
    ) throws -> ReadOptions {
        var options = ReadOptions(accessKey: key ?? .mrz(mrzKey), dataGroups: dataGroups, access: access,
                                  trustStore: trust ? try trustStore() : nil)
        if terminal { options.terminal = try SimulationPKI.eac().credentials() }
        return options
    }

    /// Reads `chip` with `options` and records every exchange.
    static func read(_ chip: VirtualChipConfiguration, _ options: ReadOptions) async -> Outcome {
        let recorder = RecordingTransport(VirtualChip(configuration: chip))
        let read = await DocumentReader.read(transport: recorder, options: options)
        return Outcome(read: read, exchanges: recorder.exchanges)
    }

    /// Reads `chip`, the first exchange that `when` picks answered with `fault` instead (the chip's
    /// own misbehaviour: `VirtualChip.process(_:injecting:)`), every other exchange as usual.
    static func read(
        _ chip: VirtualChipConfiguration, _ options: ReadOptions, fault: VirtualChipFault,
        when: @escaping @Sendable (_ index: Int, _ command: [UInt8]) -> Bool
    ) async -> Outcome {
        let recorder = RecordingTransport(FaultOnce(chip: VirtualChip(configuration: chip), fault: fault, when: when))
        let read = await DocumentReader.read(transport: recorder, options: options)
        return Outcome(read: read, exchanges: recorder.exchanges)
    }

    /// Re-signs EF.SOD over the data groups now in `chip.files` (after a case changed one), with
    /// the sets' document signer and SHA-256, so that only the case's own defect shows.
    static func resign(_ chip: inout VirtualChipConfiguration, digest: DigestAlgorithm = .sha256) throws {
        chip.files[.sod] = try ConformanceProfile.signer().signSOD(over: chip.files, digest: digest)
    }

    /// Reads the unmodified chip of `profile`.
    static func read(_ profile: ConformanceProfile, _ options: ReadOptions) async throws -> Outcome {
        await read(try profile.document().chip(), options)
    }
}

/// A virtual chip whose answer to one exchange is a fault (`VirtualChipFault`).
final class FaultOnce: APDUTransport {
    private let chip: VirtualChip
    private let fault: VirtualChipFault
    private let when: @Sendable (Int, [UInt8]) -> Bool
    private let state = Mutex<(index: Int, fired: Bool)>((0, false))

    init(chip: VirtualChip, fault: VirtualChipFault, when: @escaping @Sendable (Int, [UInt8]) -> Bool) {
        self.chip = chip
        self.fault = fault
        self.when = when
    }

    var capabilities: TransportCapabilities { chip.capabilities }

    func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        let inject: Bool = state.withLock { state in
            defer { state.index += 1 }
            guard !state.fired, when(state.index, command) else { return false }
            state.fired = true
            return true
        }
        return await chip.process(command, injecting: inject ? fault : nil)
    }
}
