public import ArgumentParser
import FoundationEssentials
import MRTDCore
import MRTDSimulation
import MRTDTranscript
public import MRTDVerification
import MRTDCrypto
import MRTDPlatform

/// `--trust PATH` (repeatable), `--trust-test` and `--no-default-trust`, shared by `read`, `verify`
/// and `trust list`.
extension VerificationProfile: ExpressibleByArgument {}

struct TrustOptions: ParsableArguments {
    @Option(name: .customLong("trust"), help: ArgumentHelp(
        "A CSCA trust source: a certs/-style directory (csca/, masterlists/, crls/), a PEM or DER certificate, a CSCA master list, a CRL or an ICAO PKD LDIF file. Repeatable. Adds to the shipped master lists.",
        valueName: "PATH"))
    var paths: [String] = []

    @Flag(name: .customLong("trust-test"), help: "Also trust the TEST-ONLY CSCA of certs/test (built in) and those of this user's --simulate sessions. Never for real documents.")
    var trustTest = false

    @Flag(name: .customLong("no-default-trust"), help: "Do not trust the shipped master lists (DE, NL; certs/masterlists), only --trust.")
    var noDefaultTrust = false

    @Option(name: .customLong("verification-profile"), help: ArgumentHelp(
        "strict (the default): a DSC or SignerInfo that departs from the letter of the specifications (not v3, no countryName or AKI, keyUsage not critical, a SignerInfo version that does not fit its signer identifier, an LDSSecurityObject v1 without LDSVersionInfo) fails passive authentication, as BSI TR-03105-5.1 expects; tolerate-sod-deviations (formerly standard): it verifies with a warning (dscNonConforming, ...) (docs/verification.md).",
        valueName: "strict|tolerate-sod-deviations"))
    var verificationProfile: VerificationProfile = .strict

    /// The shipped master lists, unless turned off (`--no-default-trust`, `MRTD_DEFAULT_TRUST=`) or not found.
    var defaultTrustPath: String? { noDefaultTrust ? nil : DefaultTrust.locate() }

    /// The store, or nil when there is no trust source at all (passive authentication then reports
    /// `notPerformed`). `trustingSimulation` adds this process's simulation CSCA (`--simulate`).
    func store(trustingSimulation: Bool = false) throws -> TrustStore? {
        for path in paths where !FileManager.default.fileExists(atPath: path) {
            throw ValidationError("--trust \(path): no such file or directory")
        }
        let all = (defaultTrustPath.map { [$0] } ?? []) + paths
        guard !all.isEmpty || trustTest || trustingSimulation else { return nil }
        var store = TrustStore.load(paths: all)
        if trustingSimulation {
            let csca = try SimulationPKI.signer().csca
            store.addAnchor(csca, source: SimulationPKI.trustSource, isTestMaterial: true)
        }
        if trustTest { try SimulationTrust.addAnchors(to: &store) }
        store.verificationProfile = verificationProfile
        return store
    }
}

struct Trust: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Inspect trust material (CSCAs, master lists, CRLs).",
        subcommands: [List.self, Check.self, Update.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show what the trust sources load: countries, counts, list age, expiry, CRLs, master list signatures, rejections.",
            discussion: "Without --trust: the shipped master lists (the default trust), as the daemon and `verify` use them.")

        @OptionGroup var trust: TrustOptions

        @Flag(help: "Print the load report as JSON.")
        var json = false

        func validate() throws {
            if trust.paths.isEmpty && !trust.trustTest && trust.defaultTrustPath == nil {
                throw ValidationError("no default trust found (see certs/README.md) and no --trust PATH given")
            }
        }

        func run() throws {
            guard let store = try trust.store() else { return }
            var report = store.report
            if trust.trustTest {
                report.cscaCount = store.anchors.count
                report.containsTestMaterial = true
            }
            if let path = trust.defaultTrustPath, !json { print("Default trust: \(path)") }
            try TrustReportPrinter.print(report, json: json)
        }
    }

    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a trust store directory (or file) before installing it.",
            discussion: """
                Loads PATH alone (not the default trust) as the daemon would and fails (exit 1) when \
                anything in it is unusable: a master list whose signature or signer chain does not verify, \
                a file that is not trust material, a CRL no CSCA of the store signed, no CSCA at all. A \
                reload (SIGHUP) refuses such a store and keeps the running one. Warnings (lists older \
                than 180 days, CSCAs expiring within 90 days, CRLs past nextUpdate) do not fail the check.
                """)

        @Argument(help: "The trust store directory or file to check.")
        var path: String

        @Flag(help: "Print the load report as JSON.")
        var json = false

        func run() throws {
            guard FileManager.default.fileExists(atPath: path) else { throw ValidationError("\(path): no such file or directory") }
            let report = TrustStore.load(paths: [path]).report
            try TrustReportPrinter.print(report, json: json)
            if !json {
                print(report.errors.isEmpty ? "OK: \(path) is a usable trust store" : "FAILED: \(report.errors.count) problem(s):")
                for error in report.errors { print("  \(error)") }
            }
            if !report.errors.isEmpty { throw ExitCode(1) }
        }
    }
}

/// Prints a ``TrustStoreReport`` for people, or as JSON.
enum TrustReportPrinter {
    static func print(_ report: TrustStoreReport, json: Bool) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            Swift.print(String(decoding: try encoder.encode(report), as: UTF8.self))
            return
        }
        Swift.print("CSCAs: \(report.cscaCount)   document signers: \(report.documentSignerCount)   CRLs: \(report.crlCount)   "
            + "countries: \(report.countries.count)   loaded in \(report.loadMilliseconds.fixed(decimals: 1)) ms")
        if report.containsTestMaterial { Swift.print("WARNING: TEST-ONLY trust material loaded; documents verified with it prove nothing") }
        for list in report.masterLists {
            let verdict = list.signature == "verified" ? "signature verified" : "REJECTED (\(list.signature): \(list.detail ?? ""))"
            Swift.print("Master list \(list.path): \(verdict); \(list.certificates) certificates, \(list.added) new")
            if let signer = list.signer { Swift.print("  signer \(signer)\(list.signerCSCA.map { " <- \($0)" } ?? "")") }
            if let issued = list.issued, let age = list.ageDays {
                Swift.print("  country \(list.country ?? "??"), issued \(issued.prefix(10)) (\(list.issuedFrom ?? "")), \(age) days old")
            }
        }
        printDeviationLists(report)
        for source in report.sources where source.kind != "masterList" {
            Swift.print("\(source.kind) \(source.path): \(source.certificates) certificates, \(source.crls) CRLs")
        }
        for crl in report.crls {
            Swift.print("CRL \(crl.path): \(crl.status)\(crl.detail.map { " (\($0))" } ?? ""); issuer \(crl.issuer); "
                + "thisUpdate \(crl.thisUpdate.prefix(10)), nextUpdate \(crl.nextUpdate?.prefix(10) ?? "none"), \(crl.revoked) revoked")
        }
        Swift.print("Countries:")
        for country in report.countries {
            Swift.print("  \(country.country)  \(country.cscas) CSCA\(country.cscas == 1 ? "" : "s"), \(country.expired) expired, latest expiry \(country.latestExpiry.prefix(10))")
        }
        Swift.print("CSCAs expiring within \(TrustStoreReport.expiryHorizonDays) days: \(report.expiringCSCAs.count)")
        for csca in report.expiringCSCAs { Swift.print("  \(csca.notAfter.prefix(10))  \(csca.subject)") }
        if report.crlsPastNextUpdate > 0 { Swift.print("CRLs past nextUpdate: \(report.crlsPastNextUpdate)") }
        for warning in report.warnings where !warning.hasPrefix("cscaExpiringSoon") { Swift.print("WARNING: \(warning)") }
        for rejection in report.rejected { Swift.print("Rejected \(rejection.path): \(rejection.reason)") }
    }
}
