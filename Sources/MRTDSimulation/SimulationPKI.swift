import FoundationEssentials
public import MRTDCore
public import MRTDCrypto
public import MRTDVerification
import Synchronization
import SwiftASN1

/// The document signer behind a specimen's EF.SOD and EF.CardSecurity, with the CSCA that issued it.
public struct DocumentSigner: Sendable {
    /// The CSCA that issued ``certificate``: what passive authentication must trust.
    public var csca: Certificate
    /// The document signer certificate, embedded in the SignedData.
    public var certificate: Certificate
    /// The document signer's private key.
    public var privateKey: PrivateKey

    public init(csca: Certificate, certificate: Certificate, privateKey: PrivateKey) {
        self.csca = csca
        self.certificate = certificate
        self.privateKey = privateKey
    }

    /// EF.SOD (tag 77) over the data groups among `files` (each hash over the whole file, tag and
    /// length included; Doc 9303-10 §4.6.2; other files are left out): an LDSSecurityObject v0 of
    /// their `digest` hashes in a SignedData signed by this signer, its certificate embedded.
    public func signSOD(over files: [LDSFile: [UInt8]], digest: DigestAlgorithm = .sha256) throws -> [UInt8] {
        var hashes: [Int: [UInt8]] = [:]
        for (file, bytes) in files { if let number = file.dataGroupNumber { hashes[number] = digest.hash(bytes) } }
        let securityObject = LDSSecurityObject(version: 0, hashAlgorithmOID: digest.oid, dataGroupHashes: hashes)
        let cms = try CMSSigner.sign(
            content: securityObject.derEncoded(), eContentTypeOID: LDSSecurityObject.oid.description,
            certificateDER: certificate.derBytes, privateKey: privateKey, digest: digest)
        return TLV.encode(tag: 0x77, value: cms)
    }
}

/// The PKI of `mrtdd --simulate` and `mrtdctl read --simulate`: a CSCA and document signer, and an
/// EAC set (CVCA, DV, IS), generated afresh (OpenSSL through MRTDCrypto) the first time a process
/// needs them. The keys never leave the process: nothing the product ships holds a simulation private
/// key. The session CSCA certificate is published for this user's `--trust-test` (``SimulationTrust``), so
/// that a dump or a transcript of a simulated read verifies in another process.
///
/// The fixed TEST-ONLY keys of `certs/test` and `certs/test-eac` are for the tests only (MRTDTesting).
public enum SimulationPKI {
    /// How trust stores and reports name the session CSCA.
    public static let trustSource = "simulation (ephemeral, TEST ONLY)"

    /// This process's document signer (made on first use).
    public static func signer() throws -> DocumentSigner { try Session.shared.signer() }

    /// This process's EAC terminal PKI (made on first use): `UTCVCA00002`, `UTDVTEST00002`,
    /// `UTISTEST00002` (beside `certs/test-eac`'s `…00001`), fresh brainpoolP256r1 keys.
    public static func eac() throws -> EACTestSet { try Session.shared.eac() }

    /// Gives a simulated passport EAC: it trusts this process's CVCA (whose terminal the daemon uses
    /// when no `terminal-directory` is set) and the CVCA of `certs/test-eac` (for `--terminal
    /// certs/test-eac`); EF.CVCA lists both.
    public static func equipEAC(_ configuration: inout VirtualChipConfiguration, chipDate: CVDate) throws {
        try eac().equip(&configuration, chipDate: chipDate)
        configuration.eac?.trustPoints.append(try SimulationTrust.eacCVCA())
        configuration.files[.cvca] = configuration.eac?.efCVCA
    }

    /// A trust store holding only the session CSCA, marked as test material.
    public static func trustStore() throws -> TrustStore {
        var store = TrustStore()
        _ = store.addAnchor(try signer().csca, source: trustSource, isTestMaterial: true)
        return store
    }

    /// A fresh CSCA (self-signed) and a DSC it issued: ECDSA P-256 with SHA-256 like `certs/test`,
    /// `C=<country>, O=mrtdd TEST ONLY, CN=mrtdd Simulation CSCA|DSC`, valid from a year ago for ten years.
    public static func makeSigner(country: String = "UT") throws -> DocumentSigner {
        let generation = PrivateKey.Generation.ec(curve: "prime256v1", explicitParameters: false)
        let cscaKey = try PrivateKey.generate(generation)
        let dscKey = try PrivateKey.generate(generation)
        let scheme = SignatureScheme.ecdsa(.sha256)
        let cscaName = DERBuilder.name(country: country, organization: "mrtdd TEST ONLY", commonName: "mrtdd Simulation CSCA")
        let dscName = DERBuilder.name(country: country, organization: "mrtdd TEST ONLY", commonName: "mrtdd Simulation DSC")
        let notBefore = Date(timeIntervalSinceNow: -365 * 86400), notAfter = Date(timeIntervalSinceNow: 9 * 365 * 86400)
        var cscaTemplate = CertificateBuilder(
            issuer: cscaName, subject: cscaName, subjectPublicKeyInfo: try cscaKey.subjectPublicKeyInfo(), scheme: scheme,
            isCA: true, notBefore: notBefore, notAfter: notAfter)
        cscaTemplate.serialNumber = try serialNumber()
        cscaTemplate.authorityKeyIdentifier = cscaTemplate.subjectKeyIdentifier
        var dscTemplate = CertificateBuilder(
            issuer: cscaName, subject: dscName, subjectPublicKeyInfo: try dscKey.subjectPublicKeyInfo(), scheme: scheme,
            isCA: false, notBefore: notBefore, notAfter: notAfter)
        dscTemplate.serialNumber = try serialNumber()
        dscTemplate.authorityKeyIdentifier = cscaTemplate.subjectKeyIdentifier
        return DocumentSigner(
            csca: try Certificate(derEncoded: cscaTemplate.issue(signedBy: cscaKey)),
            certificate: try Certificate(derEncoded: dscTemplate.issue(signedBy: cscaKey)),
            privateKey: dscKey)
    }

    /// A random positive serial number (RFC 5280 §4.1.2.2: at most 20 octets, not negative).
    private static func serialNumber() throws -> [UInt8] {
        var bytes = try SystemRandom().randomBytes(8)
        bytes[0] = (bytes[0] & 0x7F) | 0x01
        return bytes
    }

    private final class Session: Sendable {
        static let shared = Session()
        private struct Cache {
            var signer: DocumentSigner?
            var eac: EACTestSet?
        }
        private let cache = Mutex(Cache())

        func signer() throws -> DocumentSigner {
            try cache.withLock { cache in
                if let signer = cache.signer { return signer }
                let made = try SimulationPKI.makeSigner()
                SimulationPKI.publish(made.csca)
                cache.signer = made
                return made
            }
        }

        func eac() throws -> EACTestSet {
            try cache.withLock { cache in
                if let eac = cache.eac { return eac }
                let made = try EACTestSet.make(sequence: "00002")
                cache.eac = made
                return made
            }
        }
    }
}
