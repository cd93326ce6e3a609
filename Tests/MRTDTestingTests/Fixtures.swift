import Foundation
import MRTDTesting
import MRTDCore

/// Files of the package and the shared samples, found from this file's path.
enum Fixtures {
    /// The package root (the directory holding Package.swift).
    static let packageRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // MRTDTestingTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()

    static func bytes(_ relativePath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: packageRoot.appendingPathComponent(relativePath)))
    }

    static func text(_ relativePath: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(relativePath), encoding: .utf8)
    }

    /// Real EF.SOD files from gmrtd's test data, in `../shared` beside the repository.
    static let samplesDirectory = packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/samples/gmrtd/sod")

    /// Whether the tests that need `../shared` run: when it is missing they say so and, unless
    /// `MRTD_ALLOW_SKIPS=1`, go on and fail loudly at the caller's `#require` (Prerequisite).
    static var sharedSamplesPresent: Bool {
        if FileManager.default.fileExists(atPath: samplesDirectory.path) { return true }
        return !Prerequisite.skip("../shared missing (sample SODs)")
    }

    /// The DER of a PEM object (the first one in `pem`).
    static func derFromPEM(_ pem: String) -> [UInt8]? {
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return Data(base64Encoded: body).map { [UInt8]($0) }
    }
}

/// The parts of an EF.SOD the tests look at, reached with the plain TLV parser
/// (EF.SOD = 77 { ContentInfo { contentType, [0] { SignedData } } }, RFC 5652 §5.1).
struct SODParts {
    /// The LDSSecurityObject DER (encapContentInfo.eContent).
    let eContent: [UInt8]
    /// encapContentInfo.eContentType, raw OID content bytes.
    let eContentTypeOID: [UInt8]
    /// The certificates in SignedData.certificates, DER.
    let certificates: [[UInt8]]

    init(sod: [UInt8]) throws {
        let outer = try TLV.parse(sod, expecting: 0x77)
        let contentInfo = try outer.require(0x30)
        let signedData = try contentInfo.require(0xA0).require(0x30)
        let children = try signedData.children()
        // SignedData ::= SEQUENCE { version, digestAlgorithms SET, encapContentInfo SEQUENCE,
        //                           certificates [0] IMPLICIT OPTIONAL, crls [1] OPTIONAL, signerInfos SET }
        guard let encap = children.first(where: { $0.tag == 0x30 }) else {
            throw TLVError.missingTag(0x30, inside: 0x30)
        }
        self.eContentTypeOID = try encap.require(0x06).bytes
        self.eContent = try encap.require(0xA0).require(0x04).bytes
        self.certificates = try children.first(where: { $0.tag == 0xA0 })?.children().map(\.encoded) ?? []
    }
}

/// The `openssl` command line, used only to cross-check CMS signatures while MRTDCrypto has no verifier.
enum OpenSSLCLI {
    static let path = "/usr/bin/openssl"
    static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: path) }

    struct Result {
        let status: Int32
        let content: [UInt8]
        let stderr: String
    }

    /// `openssl cms -verify -inform DER -CAfile <caFile> -purpose any` on a DER ContentInfo.
    static func verifyCMS(_ cms: [UInt8], caFile: String) throws -> Result {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mrtdd-cms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent("sod.cms")
        let output = directory.appendingPathComponent("content.bin")
        try Data(cms).write(to: input)

        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [
            "cms", "-verify", "-inform", "DER", "-in", input.path, "-binary",
            "-CAfile", Fixtures.packageRoot.appendingPathComponent(caFile).path,
            "-purpose", "any", "-out", output.path,
        ]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let content = (try? Data(contentsOf: output)).map { [UInt8]($0) } ?? []
        return Result(status: process.terminationStatus, content: content, stderr: stderr)
    }
}
