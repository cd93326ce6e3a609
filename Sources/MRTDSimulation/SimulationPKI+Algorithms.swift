import FoundationEssentials
public import MRTDCrypto
import Synchronization

extension SimulationPKI {
    /// TEST ONLY: a CSCA and a document signer with the key types and signature schemes a case asks
    /// for (BSI TR-03105 Part 5.1 LDS_H: RSA PKCS #1 v1.5 and RSASSA-PSS, ECDSA with the X9.62 or
    /// the BSI plain OIDs, SHA-1 … SHA-512, mixed chains). Keys are made fresh the first time a
    /// process asks for a (key type, role) and kept for the process; they never leave it.
    public struct Chain: Sendable {
        public let cscaKey: PrivateKey
        public let dscKey: PrivateKey
        public let cscaName: [UInt8]
        public let cscaTemplate: CertificateBuilder
        public let dscTemplate: CertificateBuilder
        /// DER of the self-signed CSCA and of the DSC it issued.
        public let csca: [UInt8]
        public let dsc: [UInt8]

        /// The DSC's serial number (for an issuerAndSerialNumber signer identifier).
        public var dscSerial: [UInt8] { dscTemplate.serialNumber }

        /// A CSCA of `cscaKey` and a DSC of `dscKey`, both certificates signed under
        /// `certificateScheme` (the CSCA's key), `C=<country>, O=mrtdd TEST ONLY`, valid from a year ago
        /// for ten years. `label` keeps the CSCA names of different chains apart.
        public static func make(
            cscaKey cscaGeneration: PrivateKey.Generation, dscKey dscGeneration: PrivateKey.Generation,
            certificateScheme: SignatureScheme, label: String, country: String = "UT"
        ) throws -> Chain {
            let cscaKey = try SimulationPKI.cachedKey(cscaGeneration, role: "CSCA")
            let dscKey = try SimulationPKI.cachedKey(dscGeneration, role: "DSC")
            let cscaName = DERBuilder.name(country: country, organization: "mrtdd TEST ONLY", commonName: "mrtdd Conformance CSCA \(label)")
            let dscName = DERBuilder.name(country: country, organization: "mrtdd TEST ONLY", commonName: "mrtdd Conformance DSC \(label)")
            let notBefore = Date(timeIntervalSinceNow: -365 * 86400), notAfter = Date(timeIntervalSinceNow: 9 * 365 * 86400)
            var cscaTemplate = CertificateBuilder(
                issuer: cscaName, subject: cscaName, subjectPublicKeyInfo: try cscaKey.subjectPublicKeyInfo(),
                scheme: certificateScheme, isCA: true, notBefore: notBefore.addingTimeInterval(-86400),
                notAfter: notAfter.addingTimeInterval(365 * 86400))
            cscaTemplate.serialNumber = [0x0C, 0x5C]
            cscaTemplate.authorityKeyIdentifier = cscaTemplate.subjectKeyIdentifier
            var dscTemplate = CertificateBuilder(
                issuer: cscaName, subject: dscName, subjectPublicKeyInfo: try dscKey.subjectPublicKeyInfo(),
                scheme: certificateScheme, isCA: false, notBefore: notBefore, notAfter: notAfter)
            dscTemplate.serialNumber = [0x05, 0x1D]
            dscTemplate.authorityKeyIdentifier = cscaTemplate.subjectKeyIdentifier
            return Chain(
                cscaKey: cscaKey, dscKey: dscKey, cscaName: cscaName, cscaTemplate: cscaTemplate, dscTemplate: dscTemplate,
                csca: try cscaTemplate.issue(signedBy: cscaKey), dsc: try dscTemplate.issue(signedBy: cscaKey))
        }

        /// A copy whose CSCA is re-issued (self-signed) after `modify` changed its template; the DSC
        /// is left as it is (change its issuer with ``withDSC(_:)``).
        public func withCSCA(_ modify: (inout CertificateBuilder) -> Void) throws -> Chain {
            var template = cscaTemplate
            modify(&template)
            return Chain(
                cscaKey: cscaKey, dscKey: dscKey, cscaName: template.subject, cscaTemplate: template, dscTemplate: dscTemplate,
                csca: try template.issue(signedBy: cscaKey), dsc: dsc)
        }

        /// A copy whose DSC is re-issued by the CSCA after `modify` changed its template.
        public func withDSC(_ modify: (inout CertificateBuilder) -> Void) throws -> Chain {
            var template = dscTemplate
            modify(&template)
            return Chain(
                cscaKey: cscaKey, dscKey: dscKey, cscaName: cscaName, cscaTemplate: cscaTemplate, dscTemplate: template,
                csca: csca, dsc: try template.issue(signedBy: cscaKey))
        }
    }
}

extension SimulationPKI {
    /// TEST ONLY: a key of `generation` for `role`, made on first use and kept for the process
    /// (RSA generation is slow): the one key cache of the test PKIs (``Chain``, MRTDTesting's
    /// fixtures). Different roles get different keys.
    public static func cachedKey(_ generation: PrivateKey.Generation, role: String) throws -> PrivateKey {
        try ProcessKeys.shared.key(generation, role: role)
    }
}

/// The keys of ``SimulationPKI/cachedKey(_:role:)``.
private final class ProcessKeys: Sendable {
    static let shared = ProcessKeys()
    private let keys = Mutex<[String: PrivateKey]>([:])

    func key(_ generation: PrivateKey.Generation, role: String) throws -> PrivateKey {
        let name = "\(generation)#\(role)"
        // Generated under the lock: cases running in parallel wait for one RSA 3072 key instead of
        // each making its own.
        return try keys.withLock { keys in
            if let key = keys[name] { return key }
            let made = try PrivateKey.generate(generation)
            keys[name] = made
            return made
        }
    }
}
