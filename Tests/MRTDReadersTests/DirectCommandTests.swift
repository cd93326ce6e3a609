import Foundation
import MRTDCore
import MRTDTesting
import Testing

/// `mrtdctl read --direct` as a user runs it, against pcscd + vpcd: it waits for the card, reads it
/// and prints the same result model as `read --simulate`.
extension PCSCHardwareLoopTests {
    /// The `mrtdctl` built beside this test bundle.
    static var mrtdctlPath: String? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [bundle, bundle.deletingLastPathComponent()].map { $0.appendingPathComponent("mrtdctl").path }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ path: String, _ arguments: [String]) async throws -> (status: Int32, output: Data) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let (ended, continuation) = AsyncStream<Int32>.makeStream()
        process.terminationHandler = { continuation.yield($0.terminationStatus); continuation.finish() }
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        var status: Int32 = -1
        for await s in ended { status = s }
        return (status, output)
    }

    @Test func mrtdctlReadDirectWaitsForTheCardAndPrintsTheResultModel() async throws {
        guard let mrtdctl = Self.mrtdctlPath else {
            Support.unavailable("mrtdctl is not built beside the tests (swift build --build-tests)")
            return
        }
        try await Support.withDaemon { daemon, _ in
            let card = VPCDCard(chip: Support.chip(), port: daemon.vpcdPort)
            let command = Task {
                try await Self.run(mrtdctl, [
                    "read", "--direct", "--reader", "virtual pcd 00 00", "--wait", "15",
                    "--mrz-key", "L898902C3,740812,120415", "--json",
                    // No trust at all (the shipped master lists do not hold the TEST-ONLY CSCA).
                    "--no-default-trust",
                ])
            }
            try await Task.sleep(for: .milliseconds(500))
            try await card.insert()
            let (status, output) = try await Support.within(.seconds(20), "mrtdctl read --direct") {
                try await command.value
            }
            await card.remove()
            #expect(status == 0)
            let result = try JSONDecoder().decode(ReadResult.self, from: output)
            #expect(result.status == .unverified)
            #expect(result.document?.documentNumber == "L898902C3")
            #expect(result.access?.protocol == "BAC")
            #expect(result.dataGroupsRead.contains("DG2") && result.transport.apdus == card.apdusServed)
        }
    }
}
