import Foundation
import MRTDCore
import MRTDCrypto
import MRTDSimulation
public import SwiftASN1

// The signed-data rows of docs/field-quirks.md as fixtures: SODs as chips in the field sign them
// against the letter of Doc 9303-10 §4.6.2 / RFC 4055, built in-process with a ``FixturePKI``.

extension FixturePKI {
    /// A copy whose DSC states its RSA key as `id-RSASSA-PSS` (RFC 4055 §1.2, RSASSA-PSS-params
    /// SHA-256, MGF1-SHA-256, salt 32) instead of `rsaEncryption`: the same modulus and exponent,
    /// re-issued by the CSCA. The DSC of a Turkish ID card is stated so, while its SOD's SignerInfo
    /// says `sha256WithRSAEncryption` and carries a PKCS #1 v1.5 signature (selfxyz/self#1302).
    /// Only for RSA PKIs (`.rsa`, `.rsaPSS`).
    public func withDSCKeyStatedAsPSS() throws -> FixturePKI {
        typealias D = DERBuilder
        let stated = try SubjectPublicKeyInfo(encoded: dscTemplate.subjectPublicKeyInfo)
        let pss = D.signatureAlgorithm(.rsaPSS(digest: .sha256, mgf1Digest: .sha256, saltLength: 32))
        let spki = D.sequence(pss, D.bitString(stated.subjectPublicKey))
        return try withDSC { $0.subjectPublicKeyInfo = spki }
    }
}

extension TestSignedData {
    /// eContentTypes real SODs carry in place of `id-icao-ldsSecurityObject` (2.23.136.1.1.1).
    public enum FieldContentType: Sendable, CaseIterable {
        /// The same object on ICAO's older `icao(27)` arc: Belgian and French documents
        /// (gmrtd#424, pymrtd#8).
        case legacyICAO
        /// Sdu Identification (NL): some Dutch documents (gmrtd#425).
        case sdu

        /// The content type.
        public var oid: ASN1ObjectIdentifier {
            switch self {
            case .legacyICAO: [1, 3, 27, 1, 1, 1]
            case .sdu: [1, 2, 528, 1, 1006, 1, 20, 1]
            }
        }
    }

    /// The SignedData with `type` as its eContentType and (as those chips write it) as the value of
    /// the contentType signed attribute.
    public mutating func use(_ type: FieldContentType) {
        eContentType = type.oid
        contentTypeAttribute = type.oid
    }

    /// A PKCS #1 v1.5 signature (`sha256WithRSAEncryption` in the SignerInfo), whatever the PKI's
    /// own scheme: the Turkish ID's SOD (selfxyz/self#1302).
    public mutating func signPKCS1v15() {
        scheme = .rsaPKCS1v15(digest)
    }
}
