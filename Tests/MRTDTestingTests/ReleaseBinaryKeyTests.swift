import Foundation
import MRTDTesting
import Testing

/// The product binaries carry no TEST-ONLY private key (issue 17): the release `mrtdd` and `mrtdctl`
/// (`scripts/package` builds them in `.build-release`; `MRTD_RELEASE_BIN` names another directory)
/// must not contain the PEM body of the TEST-ONLY document signer's key, nor of the EAC keys of
/// certs/test-eac, nor their marker strings. The debug binaries are checked too when built.
/// Without a release build the release half is skipped, loudly; scripts/test runs the suite again after
/// scripts/package with MRTD_REQUIRE_RELEASE_BIN=1, when a missing release binary fails.
@Suite struct ReleaseBinaryKeyTests {
    /// Base64 lines of the private keys: any one of them in a binary means the key is in it.
    static let keyFiles = [
        "certs/test/dsc.key.pem", "certs/test/csca.key.pem",
        "certs/test-eac/cvca.key.pem", "certs/test-eac/dv.key.pem", "certs/test-eac/is.key.pem",
    ]

    static var keyLines: [(name: String, line: String)] {
        let keys = keyFiles.map { ($0, (try? Fixtures.text($0)) ?? "") }
        // The first two lines hold the private scalar; the last ones hold the public point, which the
        // (public) certificates carry too.
        return keys.flatMap { name, pem in
            pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") }.prefix(2).map { (name, $0) }
        }
    }

    /// The start of each key's DER (PKCS #8 header and the whole private scalar): the key embedded
    /// as bytes rather than as PEM text.
    static var keyDERPrefixes: [(name: String, bytes: Data)] {
        keyFiles.compactMap { name in
            guard let pem = try? Fixtures.text(name) else { return nil }
            let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
            guard let der = Data(base64Encoded: body) else { return nil }
            return (name, der.prefix(80))
        }
    }

    /// Strings that only the embedded TEST-ONLY key material carries.
    static let markers = ["certs/test/dsc.key.pem", "dscPrivateKeyPEM", "cvcaPrivateKeyPEM", "isPrivateKeyPEM", "TestPKIAssets", "EACTestAssets"]

    static func directories() -> [(kind: String, path: String)] {
        let environment = ProcessInfo.processInfo.environment
        let release = environment["MRTD_RELEASE_BIN"]
            ?? Fixtures.packageRoot.appendingPathComponent(".build-release/release").path
        let debug = Fixtures.packageRoot.appendingPathComponent(".build/debug").path
        return [("release", release), ("debug", debug)]
    }

    static func find(_ needle: String, in haystack: Data) -> Bool {
        haystack.range(of: Data(needle.utf8)) != nil
    }

    @Test func theKeyLinesAreTheRealOnes() throws {
        // The check below is only as good as its needles: they must be the keys' own lines.
        #expect(Self.keyLines.count == 10)
        #expect(Self.keyDERPrefixes.count == 5)
        // The embedded DSC key (TestPKI, what `--simulate` signed with before) is the file's key.
        #expect(Self.keyLines.filter { $0.name == "certs/test/dsc.key.pem" }.allSatisfy { TestPKI.dscPrivateKeyPEM.contains($0.line) })
    }

    /// scripts/test sets it for the run after scripts/package: every binary must be there.
    static var releaseRequired: Bool { ProcessInfo.processInfo.environment["MRTD_REQUIRE_RELEASE_BIN"] != nil }

    @Test(arguments: ["mrtdd", "mrtdctl"])
    func productBinaryHoldsNoTestOnlyPrivateKey(binary: String) throws {
        var checked = 0
        for (kind, directory) in Self.directories() {
            let path = directory + "/" + binary
            guard FileManager.default.isExecutableFile(atPath: path) else {
                if kind == "release" {
                    // scripts/test runs this suite again after scripts/package with MRTD_REQUIRE_RELEASE_BIN=1:
                    // in CI the release half always runs, after the release build exists.
                    if Self.releaseRequired {
                        Issue.record("no release \(binary) at \(path): run scripts/package first (MRTD_REQUIRE_RELEASE_BIN is set)")
                    }
                    print("SKIPPED: no release \(binary) at \(path) (scripts/package builds it; scripts/test checks it after the package step); its key check did not run here")
                }
                continue
            }
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            #expect(data.count > 1_000_000, "\(path) is not a real build")
            for (name, line) in Self.keyLines {
                #expect(!Self.find(line, in: data), "\(kind) \(binary) contains the TEST-ONLY private key \(name)")
            }
            for (name, prefix) in Self.keyDERPrefixes {
                #expect(data.range(of: prefix) == nil, "\(kind) \(binary) contains the TEST-ONLY private key \(name) as DER")
            }
            for marker in Self.markers {
                #expect(!Self.find(marker, in: data), "\(kind) \(binary) contains the marker \(marker)")
            }
            checked += 1
        }
        print("ReleaseBinaryKeyTests: \(binary): \(checked) build(s) checked")
        // After scripts/package (scripts/test built the debug binaries first) every build is there:
        // the release check above alone would pass with the debug half silently skipped.
        if Self.releaseRequired { #expect(checked == Self.directories().count, "\(binary): \(checked) build(s) checked") }
    }

    /// The needles would find a key that is there: the test target's own binary embeds them.
    @Test func theSearchFindsAnEmbeddedKey() throws {
        let me = try Data(contentsOf: URL(fileURLWithPath: CommandLine.arguments[0]))
        let embedded = Self.keyLines.filter { Self.find($0.line, in: me) }
        #expect(!embedded.isEmpty, "the test binary holds TestPKI; the search must see it")
    }
}
