import Foundation
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

    /// Real EF.SOD files from gmrtd's test data, shared outside the repository.
    static let samplesDirectory = URL(fileURLWithPath: "/work/shared/samples/gmrtd/sod")

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

