import FoundationEssentials
import MRTDCore
import MRTDCrypto
public import MRTDVerification
import Glibc
import MRTDPlatform

/// What `--trust-test` trusts: the fixed TEST-ONLY CSCA of `certs/test` (a certificate; its keys are
/// only in the tests) and the CSCAs of the simulation sessions of this user (``SimulationPKI``), so that
/// a dump or transcript of `--simulate` verifies in another process. Never for real documents.
public enum SimulationTrust {
    /// `certs/test/csca.pem`: `C=UT, O=mrtdd TEST ONLY, CN=mrtdd Test CSCA`, ECDSA P-256.
    public static var cscaCertificatePEM: String { SpecimenAssets.cscaCertificatePEM }

    /// The TEST-ONLY CSCA of `certs/test`.
    public static func csca() throws -> Certificate {
        let certificates = try Certificate.parsePEM(cscaCertificatePEM)
        guard certificates.count == 1, let certificate = certificates.first else {
            throw SpecimenDocumentError.badEmbeddedAsset("csca.pem")
        }
        return certificate
    }

    /// The CVCA certificate of `certs/test-eac` (`UTCVCA00001`; its keys are only in the tests).
    public static func eacCVCA() throws -> CVCertificate {
        try CVCertificate(rawBytes: [UInt8](Data(base64Encoded: EACTestTrustAssets.cvcaCertificateBase64) ?? Data()))
    }

    /// Adds the TEST-ONLY CSCA of `certs/test` and every published simulation CSCA to `store`, as test material.
    public static func addAnchors(to store: inout TrustStore) throws {
        _ = store.addAnchor(try csca(), source: "certs/test/csca.pem (built in, TEST ONLY)",
                            isTestMaterial: true)
        for (path, der) in SimulationPKI.publishedCSCAs() {
            guard let certificate = try? Certificate(derEncoded: der) else { continue }
            _ = store.addAnchor(certificate, source: "\(path) (\(SimulationPKI.trustSource))", isTestMaterial: true)
        }
    }
}

extension SimulationPKI {
    /// Where simulation sessions leave their CSCA certificate (DER, never a key) for `--trust-test`:
    /// `$MRTD_SIMULATION_TRUST`, else `$XDG_RUNTIME_DIR/mrtdd-simulation`, else `/tmp/mrtdd-simulation-UID`.
    public static var publishedCSCADirectory: String {
        let environment = ProcessInfo.processInfo.environment
        if let directory = environment["MRTD_SIMULATION_TRUST"], !directory.isEmpty { return directory }
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/mrtdd-simulation" }
        return "/tmp/mrtdd-simulation-\(getuid())"
    }

    /// Best effort: a session that cannot publish still trusts its own CSCA in-process.
    static func publish(_ csca: Certificate) {
        let directory = publishedCSCADirectory
        let manager = FileManager.default
        try? manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        guard usable(directory) else { return }
        let name = Array(DigestAlgorithm.sha256.hash(csca.derBytes).prefix(16)).hex + ".der"
        try? Data(csca.derBytes).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name), options: .atomic)
        // Keep the newest sessions only: the directory does not grow with every run.
        for (path, _) in publishedFiles(directory).dropFirst(keptSessions) { try? manager.removeItem(atPath: path) }
    }

    /// How many session CSCAs `--trust-test` keeps and trusts.
    static let keptSessions = 256

    /// The `.der` files of `directory`, newest first.
    private static func publishedFiles(_ directory: String) -> [(String, Date)] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".der") }.map { directory + "/" + $0 }.map { path in
            (path, (try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date) ?? .distantPast)
        }.sorted { $0.1 > $1.1 }
    }

    /// The published CSCAs (path, DER), newest first, at most ``keptSessions``; none from a directory
    /// that is not this user's alone, and no file another user can have written.
    public static func publishedCSCAs() -> [(path: String, der: [UInt8])] {
        let directory = publishedCSCADirectory
        guard usable(directory) else { return [] }
        return publishedFiles(directory).prefix(keptSessions).compactMap { path, _ in
            (try? FileProvenance.read(path, limit: 64 << 10)).map { (path, $0) }
        }
    }

    /// Whether `directory` is this user's alone: a directory (not a link to one), owned by this
    /// user, mode 0700 (no group or other bits). Anything else could hold a CSCA another user put
    /// there for `--trust-test` to trust: refused, and said on stderr, since a
    /// refused directory means that nothing is published or trusted. A directory that does not
    /// exist (nothing published yet) is refused silently.
    static func usable(_ directory: String) -> Bool {
        var info = stat()
        guard lstat(directory, &info) == 0 else { return false }
        let problem: String? =
            info.st_mode & S_IFMT != S_IFDIR ? "not a directory (a link?)"
            : info.st_uid != getuid() ? "owned by uid \(info.st_uid), not this user"
            : info.st_mode & 0o077 != 0 ? "open to others (mode \(String(info.st_mode & 0o7777, radix: 8)), not 0700)"
            : nil
        guard let problem else { return true }
        StandardError.write("warning: simulation trust directory \(directory) refused: \(problem); simulation CSCAs are neither published nor trusted from it (MRTD_SIMULATION_TRUST)\n")
        return false
    }
}
