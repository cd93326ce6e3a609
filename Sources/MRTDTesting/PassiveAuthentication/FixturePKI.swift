public import Foundation
import MRTDCore
public import MRTDCrypto
import SwiftASN1
public import MRTDSimulation

/// A throw-away CSCA and document signer generated in-process (OpenSSL through MRTDCrypto), for
/// passive authentication tests. Keys are generated once per process and reused.
public struct FixturePKI: Sendable {
    /// Key types real CSCAs and DSCs use.
    public enum KeyType: Sendable, Hashable {
        /// ECDSA P-256, named curve.
        case ecP256
        /// ECDSA brainpoolP256r1 with explicit domain parameters (Doc 9303-12 §7.1.2).
        case brainpoolExplicit
        /// RSA 2048, PKCS #1 v1.5 signatures.
        case rsa
        /// RSA 2048, RSASSA-PSS signatures (SHA-256, MGF1-SHA-256, salt 32).
        case rsaPSS
    }

    public let cscaKey: PrivateKey
    public let cscaName: [UInt8]
    /// DER of the self-signed CSCA.
    public let csca: [UInt8]
    public let cscaTemplate: CertificateBuilder
    public let dscKey: PrivateKey
    public let dscName: [UInt8]
    /// DER of the DSC issued by the CSCA.
    public let dsc: [UInt8]
    public let dscTemplate: CertificateBuilder
    public let dscSerial: [UInt8]
    /// The scheme both certificates and the SOD use.
    public let scheme: SignatureScheme

    /// Validity used unless a test changes it: from a year ago for ten years.
    public static let defaultNotBefore = Date(timeIntervalSinceNow: -365 * 86400)
    public static let defaultNotAfter = Date(timeIntervalSinceNow: 9 * 365 * 86400)

    /// A CSCA and a DSC of `keyType`; `country` goes into both names. PKIs with another
    /// `keySet` have other keys (keys are cached per key type and set).
    public static func make(_ keyType: KeyType = .ecP256, country: String = "UT", cscaCommonName: String = "Fixture CSCA",
                            dscSerial: [UInt8] = [0x10, 0x01], keySet: Int = 0) throws -> FixturePKI {
        let cscaKey = try FixtureKeys.key(keyType, slot: 2 * keySet)
        let dscKey = try FixtureKeys.key(keyType, slot: 2 * keySet + 1)
        let scheme = scheme(for: keyType)
        let cscaName = DERBuilder.name(country: country, organization: "mrtdd TEST fixtures", commonName: cscaCommonName)
        let dscName = DERBuilder.name(country: country, organization: "mrtdd TEST fixtures", commonName: "Fixture DSC")
        var cscaTemplate = CertificateBuilder(
            issuer: cscaName, subject: cscaName, subjectPublicKeyInfo: try cscaKey.subjectPublicKeyInfo(), scheme: scheme,
            isCA: true, notBefore: defaultNotBefore.addingTimeInterval(-86400), notAfter: defaultNotAfter.addingTimeInterval(86400 * 365))
        cscaTemplate.authorityKeyIdentifier = cscaTemplate.subjectKeyIdentifier
        var dscTemplate = CertificateBuilder(
            issuer: cscaName, subject: dscName, subjectPublicKeyInfo: try dscKey.subjectPublicKeyInfo(), scheme: scheme,
            isCA: false, notBefore: defaultNotBefore, notAfter: defaultNotAfter)
        dscTemplate.serialNumber = dscSerial
        dscTemplate.authorityKeyIdentifier = cscaTemplate.subjectKeyIdentifier
        return FixturePKI(
            cscaKey: cscaKey, cscaName: cscaName, csca: try cscaTemplate.issue(signedBy: cscaKey), cscaTemplate: cscaTemplate,
            dscKey: dscKey, dscName: dscName, dsc: try dscTemplate.issue(signedBy: cscaKey), dscTemplate: dscTemplate,
            dscSerial: dscSerial, scheme: scheme)
    }

    /// A copy whose DSC is re-issued after `modify` changes its template (signed by the CSCA key
    /// unless `signer` says otherwise).
    public func withDSC(signedBy signer: PrivateKey? = nil, _ modify: (inout CertificateBuilder) -> Void) throws -> FixturePKI {
        var template = dscTemplate
        modify(&template)
        return FixturePKI(
            cscaKey: cscaKey, cscaName: cscaName, csca: csca, cscaTemplate: cscaTemplate, dscKey: dscKey, dscName: dscName,
            dsc: try template.issue(signedBy: signer ?? cscaKey), dscTemplate: template, dscSerial: template.serialNumber,
            scheme: scheme)
    }

    /// A copy whose CSCA is re-issued (self-signed) after `modify` changes its template.
    public func withCSCA(_ modify: (inout CertificateBuilder) -> Void) throws -> FixturePKI {
        var template = cscaTemplate
        modify(&template)
        return FixturePKI(
            cscaKey: cscaKey, cscaName: cscaName, csca: try template.issue(signedBy: cscaKey), cscaTemplate: template,
            dscKey: dscKey, dscName: dscName, dsc: dsc, dscTemplate: dscTemplate, dscSerial: dscSerial, scheme: scheme)
    }

    /// A CRL of this CSCA revoking `serials`.
    public func crl(revoking serials: [[UInt8]]) throws -> [UInt8] {
        try CRLBuilder(issuer: cscaName, revokedSerials: serials, thisUpdate: Date(timeIntervalSinceNow: -86400),
                    nextUpdate: Date(timeIntervalSinceNow: 30 * 86400), scheme: scheme).issue(signedBy: cscaKey)
    }

    static func scheme(for keyType: KeyType) -> SignatureScheme {
        switch keyType {
        case .ecP256, .brainpoolExplicit: .ecdsa(.sha256)
        case .rsa: .rsaPKCS1v15(.sha256)
        case .rsaPSS: .rsaPSS(digest: .sha256, mgf1Digest: .sha256, saltLength: 32)
        }
    }
}

/// Keys generated once per process (RSA generation is slow), in the test PKIs' one cache.
enum FixtureKeys {
    static func key(_ type: FixturePKI.KeyType, slot: Int) throws -> PrivateKey {
        let generation: PrivateKey.Generation
        switch type {
        case .ecP256: generation = .ec(curve: "prime256v1", explicitParameters: false)
        case .brainpoolExplicit: generation = .ec(curve: "brainpoolP256r1", explicitParameters: true)
        case .rsa, .rsaPSS: generation = .rsa(bits: 2048)
        }
        return try SimulationPKI.cachedKey(generation, role: "fixture slot \(slot)")
    }
}

extension FixturePKI {
    /// A CSCA master list (Doc 9303-12 §9: SignedData, eContentType id-icao-cscaMasterList,
    /// `CscaMasterList ::= SEQUENCE { version, certList SET OF Certificate }`) holding
    /// `certificates`, signed by this PKI's DSC acting as master list signer.
    public func masterList(containing certificates: [[UInt8]], _ modify: (inout TestSignedData) -> Void = { _ in }) throws -> [UInt8] {
        typealias D = DERBuilder
        let content = D.sequence(D.integer(0), D.set(certificates))
        var signed = TestSignedData(
            eContentType: [2, 23, 136, 1, 1, 2] /* id-icao-cscaMasterList */, eContent: content, certificates: [dsc],
            signerIdentifier: .issuerAndSerialNumber(issuer: cscaName, serial: dscSerial), digest: .sha256, scheme: scheme)
        modify(&signed)
        return try signed.build(signedBy: dscKey)
    }
}
