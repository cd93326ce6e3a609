import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders
import MRTDSimulation

extension PCSCHardwareLoopTests {
    /// The card pulled mid-DG2 through pcscd and vpcd, presented again 200 ms later: the read
    /// reconnects, re-authenticates and resumes DG2 at the verified offset (docs/reliability.md).
    @Test func aCardPulledMidDG2AndPresentedAgainIsReadWhole() async throws {
        try await Support.withDaemon { daemon, backend in
            let events = await EventRecorder.start(backend.events())
            let first = VPCDCard(chip: Support.chip(extendedLength: false), port: daemon.vpcdPort)
            try await Self.insert(first, removeAfter: 40, events: events)
            let again = VPCDCard(chip: Support.chip(extendedLength: false), port: daemon.vpcdPort)
            let presenter = Task {
                await first.waitUntilRemoved()
                try await Task.sleep(for: .milliseconds(200))
                try await again.insert()
            }
            let reconnector = ReconnectingCardSource(first: try await backend.connect(reader: Self.reader), backend: backend, reader: Self.reader)
            let clock = ContinuousClock()
            let start = clock.now
            let read = try await Support.within(.seconds(30), "reconnecting read") {
                await DocumentReader.read(
                    connect: { try await reconnector.next() },
                    options: ReadOptions(accessKey: .mrz(Support.key), dataGroups: [1, 2]))
            }
            let elapsed = clock.now - start
            await reconnector.close()
            try await presenter.value
            #expect(read.result.error == nil, "\(read.result.error?.message ?? "")")
            #expect(read.files[.dg(2)] == Support.specimen.files[.dg(2)])
            #expect(read.files[.dg(1)] == Support.specimen.files[.dg(1)])
            let recovery = read.result.transport.recoveries.first
            // pcscd reports a card pulled mid-command as removed or, at times, as SCARD_F_COMM_ERROR.
            #expect(["cardRemoved", "readerServiceFailure"].contains(recovery?.kind ?? ""), "\(read.result.transport.recoveries)")
            #expect(recovery?.exchange == 40 && recovery?.file == "DG2" && (recovery?.offset ?? 0) > 0)
            #expect(await reconnector.reconnections == 1)
            print("FIGURES pcsc+vpcd removal mid-DG2, presented again after 200 ms: \(read.result.transport.apdus) APDUs, "
                + "\(elapsed), recoveries \(read.result.transport.recoveries.map(\.kind))")
            await again.remove()
            await events.stop()
        }
    }
}
