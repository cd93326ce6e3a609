import Foundation
import MRTDCore
import MRTDTesting
import Testing
@testable import MRTDDaemon

/// `mrtdctl` as built in this checkout, with no `--trust` at all: it finds the shipped master lists
/// (certs/masterlists, next to Package.swift above the executable) and verifies real documents.
@Suite struct DefaultTrustCommandTests {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try DaemonProcessTests.executable("mrtdctl"))
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["MRTD_DEFAULT_TRUST"] = nil  // the real search, as a user's shell has it
        process.environment = environment
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// `../shared/samples/gmrtd/sod/EF_SOD_<country>.bin`; nil (a loud skip, a failure under CI) when absent.
    static func realSOD(_ country: String) -> String? {
        let path = URL(fileURLWithPath: DefaultTrustPath.repository).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/samples/gmrtd/sod/EF_SOD_\(country).bin").path
        guard FileManager.default.fileExists(atPath: path) else {
            #expect(Prerequisite.skip("../shared/samples missing; mrtdctl verify of the real \(country) SOD not tested"))
            return nil
        }
        return path
    }

    @Test(arguments: ["DE", "FR"])
    func verifyOfARealSODPassesWithNoTrustOption(country: String) throws {
        guard let sod = Self.realSOD(country) else { return }
        let (status, output) = try Self.run(["verify", "--sod", sod, "--json"])
        #expect(status == 0, "\(output)")
        let result = try JSONDecoder().decode(ReadResult.self, from: Data(output.utf8))
        #expect(result.checks.passiveAuthentication.result == .passed, "\(output.prefix(600))")
        #expect(result.checks.passiveAuthentication.csca?.country?.uppercased() == country)
        // --no-default-trust: nothing trusted, nothing verified.
        let (_, untrusted) = try Self.run(["verify", "--sod", sod, "--json", "--no-default-trust"])
        #expect(try JSONDecoder().decode(ReadResult.self, from: Data(untrusted.utf8)).checks.passiveAuthentication.result == .notPerformed)
    }

    @Test func trustListReportsTheShippedListsCoverage() throws {
        let (status, output) = try Self.run(["trust", "list"])
        #expect(status == 0, "\(output)")
        #expect(output.contains("Default trust: \(DefaultTrustPath.repository)"))
        #expect(output.contains("DE_ML_2026-05-28-08-28-45.ml: signature verified"))
        #expect(output.contains("NL_ML_2026-07-22.ml: signature verified"))
        #expect(output.contains("country DE, issued 2026-05-28"))
        #expect(output.contains("CSCAs expiring within 90 days:"))
        let (_, json) = try Self.run(["trust", "list", "--json"])
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let lists = report?["masterLists"] as? [[String: Any]] ?? []
        #expect(lists.count == 2)
        #expect(lists.allSatisfy { $0["signature"] as? String == "verified" && ($0["ageDays"] as? Int ?? -1) >= 0 })
        #expect((report?["cscaCount"] as? Int ?? 0) > 500)
        #expect((report?["countries"] as? [Any])?.count ?? 0 > 100)
    }

    @Test func trustCheckPassesAGoodStoreAndFailsABrokenOne() throws {
        let (good, goodOutput) = try Self.run(["trust", "check", DefaultTrustPath.repository])
        #expect(good == 0, "\(goodOutput)")
        #expect(goodOutput.contains("OK: "))

        let directory = try DaemonProcessTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data(try TrustReloadTests.brokenMasterList()).write(to: directory.appendingPathComponent("broken.ml"))
        try Data(try TrustReloadTests.otherCSCA()).write(to: directory.appendingPathComponent("csca.der"))
        var crl = try FixturePKI.make(.ecP256, country: "UU", cscaCommonName: "Other CSCA", keySet: 1).crl(revoking: [])
        crl[crl.count - 3] ^= 0x01
        try Data(crl).write(to: directory.appendingPathComponent("broken.crl"))
        let (bad, badOutput) = try Self.run(["trust", "check", directory.path])
        #expect(bad == 1, "\(badOutput)")
        #expect(badOutput.contains("FAILED: 2 problem(s)"))
        #expect(badOutput.contains("broken.ml: master list not verified: sodSignatureInvalid"))
        #expect(badOutput.contains("broken.crl: rejected (signature does not verify"))
        let (missing, _) = try Self.run(["trust", "check", directory.appendingPathComponent("nope").path])
        #expect(missing != 0)
    }
}
