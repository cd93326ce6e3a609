public import Foundation
import MRTDCore
import MRTDCrypto
import MRTDSimulation
import MRTDVerification
public import SwiftASN1

/// A deviation list (Doc 9303-12 §10.2, `DEFINITIONS IMPLICIT TAGS`) built field by field, for
/// tests of loading, signature checks and matching.
public struct TestDeviationList: Sendable {
    /// One `Deviation`: which documents (absent fields are left out) and its descriptions.
    public struct Deviation: Sendable {
        public var documentType: String?
        /// DER issuer name and serial number of the DSC (`issuerAndSerialNumber [1]`).
        public var dscIssuerAndSerial: (issuer: [UInt8], serial: [UInt8])?
        public var dscSubjectKeyIdentifier: [UInt8]?
        public var dscCertificateDigest: [UInt8]?
        public var issuedFrom: Date?
        public var issuedUntil: Date?
        public var documentNumbers: [String]?
        /// (description text, deviationType OID, INTEGER parameter).
        public var descriptions: [(text: String?, oid: ASN1ObjectIdentifier, parameter: Int?)]

        public init(descriptions: [(text: String?, oid: ASN1ObjectIdentifier, parameter: Int?)]) {
            self.descriptions = descriptions
        }
    }

    public var version = 0
    /// DER AlgorithmIdentifier for `digestAlgorithm`; nil leaves it out.
    public var digestAlgorithm: [UInt8]?
    public var deviations: [Deviation]

    public init(deviations: [Deviation]) {
        self.deviations = deviations
    }

    /// The encoded `DeviationList` (the eContent).
    public func content() -> [UInt8] {
        typealias D = DERBuilder
        let encoded = deviations.map { deviation -> [UInt8] in
            var documents: [UInt8] = []
            if let type = deviation.documentType { documents += D.tlv(0x80, Array(type.utf8)) }
            if let pair = deviation.dscIssuerAndSerial {
                documents += D.tlv(0xA1, pair.issuer + D.integer(unsigned: pair.serial))
            }
            if let ski = deviation.dscSubjectKeyIdentifier { documents += D.tlv(0x82, ski) }
            if let digest = deviation.dscCertificateDigest { documents += D.tlv(0x83, digest) }
            if deviation.issuedFrom != nil || deviation.issuedUntil != nil {
                documents += D.tlv(0xA4, D.generalizedTime(deviation.issuedFrom ?? Date(timeIntervalSince1970: 0))
                                   + D.generalizedTime(deviation.issuedUntil ?? Date(timeIntervalSince1970: 4_102_444_800)))
            }
            if let numbers = deviation.documentNumbers { documents += D.tlv(0xA5, numbers.flatMap { D.printable($0) }) }
            let descriptions = deviation.descriptions.map { item -> [UInt8] in
                var fields = item.text.map(D.printable) ?? []
                fields += D.oid(item.oid)
                if let parameter = item.parameter { fields += D.tlv(0xA0, D.integer(parameter)) }
                return D.tlv(0x30, fields)
            }
            return D.sequence(D.tlv(0x30, documents), D.set(descriptions))
        }
        return D.sequence(D.integer(version) + (digestAlgorithm ?? []), D.set(encoded))
    }
}

extension FixturePKI {
    /// A deviation list (SignedData, eContentType id-icao-DeviationList 2.23.136.1.1.7) with
    /// `list` as content, signed by this PKI's DSC acting as Deviation List Signer (embedded,
    /// identified by issuer and serial number); `modify` changes the SignedData first.
    public func deviationList(_ list: TestDeviationList, _ modify: (inout TestSignedData) -> Void = { _ in }) throws -> [UInt8] {
        var signed = TestSignedData(
            eContentType: ASN1ObjectIdentifier.ICAO.deviationList, eContent: list.content(), certificates: [dsc],
            signerIdentifier: .issuerAndSerialNumber(issuer: cscaName, serial: dscSerial), digest: .sha256, scheme: scheme)
        signed.signingTime = Date()
        modify(&signed)
        return try signed.build(signedBy: dscKey)
    }
}
