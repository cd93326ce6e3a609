import ArgumentParser
import Foundation
import MRTDCore
import MRTDTesting
import MRTDVerification

/// `--trust PATH` (repeatable) and `--trust-test`, shared by `read`, `verify` and `trust list`.
struct TrustOptions: ParsableArguments {
    @Option(name: .customLong("trust"), help: ArgumentHelp(
        "A CSCA trust source: a certs/-style directory (csca/, masterlists/, crls/), a PEM or DER certificate, a CSCA master list, a CRL or an ICAO PKD LDIF file. Repeatable.",
        valueName: "PATH"))
    var paths: [String] = []

    @Flag(name: .customLong("trust-test"), help: "Also trust the TEST-ONLY CSCA of certs/test (built in). Never for real documents.")
    var trustTest = false

    /// The store, or nil when no trust source was given (passive authentication then reports
    /// `notPerformed`). `trustingTestCSCA` adds the built-in TEST-ONLY CSCA.
    func store(trustingTestCSCA: Bool = false) throws -> TrustStore? {
        guard !paths.isEmpty || trustTest || trustingTestCSCA else { return nil }
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("--trust \(path): no such file or directory")
        }
        var store = TrustStore.load(paths: paths)
        if trustTest || trustingTestCSCA {
            let csca = try Certificate(derEncoded: TestPKI.csca().derBytes)
            store.addAnchor(csca, source: "certs/test/csca.pem (built in, TEST ONLY)", isTestMaterial: true)
        }
        return store
    }
}

struct Trust: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect trust material (CSCAs, master lists, CRLs).",
        subcommands: [List.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what the trust sources load: countries, counts, expiry, master list signatures, rejections.")

        @OptionGroup var trust: TrustOptions

        @Flag(help: "Print the load report as JSON.")
        var json = false

        func validate() throws {
            if trust.paths.isEmpty && !trust.trustTest { throw ValidationError("give at least one --trust PATH") }
        }

        func run() throws {
            guard let store = try trust.store() else { return }
            var report = store.report
            if trust.trustTest {
                report.cscaCount = store.anchors.count
                report.containsTestMaterial = true
            }
            if json {
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                print(String(decoding: try encoder.encode(report), as: UTF8.self))
                return
            }
            print("CSCAs: \(report.cscaCount)   document signers: \(report.documentSignerCount)   CRLs: \(report.crlCount)   "
                + "loaded in \(String(format: "%.1f", report.loadMilliseconds)) ms")
            if report.containsTestMaterial { print("WARNING: TEST-ONLY trust material loaded; documents verified with it prove nothing") }
            for list in report.masterLists {
                let verdict = list.signature == "verified" ? "signature verified" : "REJECTED (\(list.signature): \(list.detail ?? ""))"
                print("Master list \(list.path): \(verdict); \(list.certificates) certificates, \(list.added) new")
                if let signer = list.signer { print("  signer \(signer)\(list.signerCSCA.map { " <- \($0)" } ?? "")") }
            }
            printDeviationLists(report)
            for source in report.sources where source.kind != "masterList" {
                print("\(source.kind) \(source.path): \(source.certificates) certificates, \(source.crls) CRLs")
            }
            print("Countries:")
            for country in report.countries {
                print("  \(country.country)  \(country.cscas) CSCA\(country.cscas == 1 ? "" : "s"), \(country.expired) expired, latest expiry \(country.latestExpiry.prefix(10))")
            }
            for rejection in report.rejected { print("Rejected \(rejection.path): \(rejection.reason)") }
        }
    }
}
