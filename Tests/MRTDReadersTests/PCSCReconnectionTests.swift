import Foundation
import MRTDCore
import MRTDProtocol
import MRTDTesting
import Testing

@testable import MRTDReaders

/// The connection a reconnecting read holds over PC/SC: the first is made up front, each later one
/// waits for the card to be presented again (as `mrtdctl read --direct` does).
private actor Reconnector {
    private var current: (any CardConnection)?
    private var handedOut = false
    private let backend: PCSCBackend
    private let reader: String
    private(set) var connects = 0

    init(first: any CardConnection, backend: PCSCBackend, reader: String) {
        current = first
        self.backend = backend
        self.reader = reader
    }

    func next() async throws -> any CardConnection {
        if !handedOut, let current {
            handedOut = true
            return current
        }
        await current?.close()
        current = nil
        _ = try await backend.waitForCard(reader: reader, timeout: .seconds(10))
        let connection = try await backend.connect(reader: reader)
        current = connection
        connects += 1
        return connection
    }

    func close() async {
        await current?.close()
        current = nil
    }
}

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
            let reconnector = Reconnector(first: try await backend.connect(reader: Self.reader), backend: backend, reader: Self.reader)
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
            #expect(await reconnector.connects == 1)
            print("FIGURES pcsc+vpcd removal mid-DG2, presented again after 200 ms: \(read.result.transport.apdus) APDUs, "
                + "\(elapsed), recoveries \(read.result.transport.recoveries.map(\.kind))")
            await again.remove()
            await events.stop()
        }
    }
}
