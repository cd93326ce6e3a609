import Foundation
import MRTDCore
import MRTDTesting
import Testing
@testable import MRTDVerification

/// `mrtdctl verify` and `mrtdctl trust list` as an operator runs them, on a dump and a trust
/// directory (CSCA + deviation list) generated in-process.
@Suite("mrtdctl: inspection checks and deviation lists")
struct MrtdctlInspectionTests {
    /// The `mrtdctl` built beside this test bundle.
    static var mrtdctl: String? {
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        return [bundle, bundle.deletingLastPathComponent()].map { $0.appendingPathComponent("mrtdctl").path }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try #require(mrtdctl, "mrtdctl is not built beside the tests (swift build --build-tests)"))
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// trust/ (the CSCA and a deviation list tolerating a DG2 hash defect of the DSC) and dump/
    /// (a document whose DG2 does not match its hash).
    static func fixtures() throws -> (root: URL, trust: String, dump: String) {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdctl-dvl-\(UUID().uuidString)")
        let trust = root.appendingPathComponent("trust")
        let dump = root.appendingPathComponent("dump")
        try FileManager.default.createDirectory(at: trust.appendingPathComponent("deviationlists"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: dump, withIntermediateDirectories: true)
        try Data(Shared.pki.csca).write(to: trust.appendingPathComponent("csca.der"))
        let list = try Shared.pki.deviationList(TestDeviationList(deviations: [
            DeviationListTests.forDSC(Shared.pki, [("DG2 hash known wrong", DeviationListTests.dgHashWrong, 2)]),
        ]))
        try Data(list).write(to: trust.appendingPathComponent("deviationlists/UT.dvl"))
        for (file, bytes) in try DeviationListTests.tamperedDG2Files(Shared.pki) {
            try Data(bytes).write(to: dump.appendingPathComponent("\(file.name).bin"))
        }
        return (root, trust.path, dump.path)
    }

    @Test("verify --json: the deviation is tolerated (unverified, exit 0) and the key check passes")
    func verifyTolerated() throws {
        let (root, trust, dump) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        let (status, output) = try Self.run(["verify", dump, "--trust", trust, "--mrz-key", "C01X00T47,740812,341231", "--json"])
        #expect(status == 0)
        let result = try JSONDecoder().decode(ReadResult.self, from: Data(output.utf8))
        #expect(result.status == .unverified)
        #expect(result.checks.passiveAuthentication.reason == "dataGroupHashMismatch")
        #expect(result.checks.deviations?.first?.effect == "tolerated")
        #expect(result.checks.deviations?.first?.source.hasSuffix("deviationlists/UT.dvl") == true)
        #expect(result.checks.accessKeyMatch?.result == .passed)
        #expect(result.checks.issuingCountry?.result == .passed)
    }

    @Test("verify with another MRZ key: accessKeyMatch fails, status invalid, exit 4; the summary names the checks")
    func verifyMismatch() throws {
        let (root, trust, dump) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        let (status, output) = try Self.run(["verify", dump, "--trust", trust, "--mrz-key", "C01X00T48,740812,341231"])
        #expect(status == 4)
        let lines = output.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ") }
        #expect(lines.contains { $0.hasPrefix("MRZ key failed [mrzMismatch]") })
        #expect(lines.contains { $0.hasPrefix("Deviation LDS-DGHashWrong (DG2) tolerated") })
        #expect(!output.contains("C01X00T48"), "the access key given never appears in the output")
        #expect(lines.contains { $0.hasPrefix("Status invalid") })
    }

    @Test("verify --mrz-key with a malformed key is a usage error")
    func badKey() throws {
        let (root, trust, dump) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        #expect(try Self.run(["verify", dump, "--trust", trust, "--mrz-key", "nonsense"]).status == 64)
    }

    @Test("trust list reports the deviation list and its verified signature")
    func trustList() throws {
        let (root, trust, _) = try Self.fixtures()
        defer { try? FileManager.default.removeItem(at: root) }
        let (status, output) = try Self.run(["trust", "list", "--trust", trust])
        #expect(status == 0)
        #expect(output.contains("Deviation list \(trust)/deviationlists/UT.dvl: signature verified; 1 deviation"))
        let json = try Self.run(["trust", "list", "--trust", trust, "--json"]).output
        let report = try JSONDecoder().decode(TrustStoreReport.self, from: Data(json.utf8))
        #expect(report.deviationLists?.first?.signature == "verified")
    }
}
