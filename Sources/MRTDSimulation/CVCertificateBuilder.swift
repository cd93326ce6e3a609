import MRTDCore
public import SwiftASN1
public import MRTDCrypto
public import MRTDProtocol
public import MRTDVerification

/// Builds CV certificates field by field (BSI TR-03110-3 §C.1) for the TEST-ONLY EAC set and the
/// negative tests: any field can be set to what a test needs, the signature can be broken.
public struct CVCertificateBuilder: Sendable {
    public var authorityReference: String
    public var holderReference: String
    /// The TA algorithm of the holder's key (`id-TA-ECDSA-SHA-256`, …).
    public var algorithmOID: ASN1ObjectIdentifier
    /// The holder's key (its public half goes into the certificate).
    public var holderKey: PrivateKey
    /// Whether the key object carries the EC domain parameters (CVCA certificates).
    public var includeDomainParameters: Bool
    public var terminalTypeOID = CVCertificate.inspectionSystemOID
    /// Role bits 7-6 and the access rights (bit 0 DG3, bit 1 DG4).
    public var accessRights: UInt8
    public var effectiveDate: CVDate
    public var expirationDate: CVDate
    /// Flip a bit of the signature.
    public var corruptSignature = false

    public init(authorityReference: String, holderReference: String, algorithmOID: ASN1ObjectIdentifier, holderKey: PrivateKey,
                includeDomainParameters: Bool, accessRights: UInt8, effectiveDate: CVDate, expirationDate: CVDate) {
        self.authorityReference = authorityReference
        self.holderReference = holderReference
        self.algorithmOID = algorithmOID
        self.holderKey = holderKey
        self.includeDomainParameters = includeDomainParameters
        self.accessRights = accessRights
        self.effectiveDate = effectiveDate
        self.expirationDate = expirationDate
    }

    /// Signs the certificate with `issuerKey` under `issuerAlgorithmOID` (the issuer's TA algorithm).
    public func build(issuerKey: PrivateKey, issuerAlgorithmOID: ASN1ObjectIdentifier) throws -> CVCertificate {
        let body = TLV.encode(tag: 0x7F4E, children: [
            TLV.encode(tag: 0x5F29, value: [0x00]),
            TLV.encode(tag: 0x42, value: Array(authorityReference.utf8)),
            try Self.publicKeyObject(holderKey, algorithmOID: algorithmOID, domain: includeDomainParameters),
            TLV.encode(tag: 0x5F20, value: Array(holderReference.utf8)),
            TLV.encode(tag: 0x7F4C, children: [
                TLV.encode(tag: 0x06, value: terminalTypeOID.contentOctets),
                TLV.encode(tag: 0x53, value: [accessRights]),
            ]),
            TLV.encode(tag: 0x5F25, value: effectiveDate.digits),
            TLV.encode(tag: 0x5F24, value: expirationDate.digits),
        ])
        guard let scheme = TerminalAuthenticationAlgorithm(oid: issuerAlgorithmOID)?.scheme else {
            throw CVCertificateError.unsupportedAlgorithm(issuerAlgorithmOID.description)
        }
        var signature = try issuerKey.signature(message: body, scheme: scheme)
        if corruptSignature { signature[signature.count / 2] ^= 0x01 }
        return try CVCertificate(rawBytes: TLV.encode(tag: 0x7F21, children: [body, TLV.encode(tag: 0x5F37, value: signature)]))
    }

    /// `7F49` for `key`: RSA `81 n, 82 e`; EC `86 Y`, with `81 p .. 85 r, 87 f` when `domain`.
    /// The components come from the key's SubjectPublicKeyInfo (EC with explicit parameters).
    public static func publicKeyObject(_ key: PrivateKey, algorithmOID: ASN1ObjectIdentifier, domain: Bool) throws -> [UInt8] {
        let spki = try key.subjectPublicKeyInfo()
        let outer = try TLV.parse(spki, expecting: 0x30).children()
        let algorithm = try outer[0].children()
        let bitString = Array(outer[1].value.dropFirst())
        var objects = [TLV.encode(tag: 0x06, value: algorithmOID.contentOctets)]
        func unsigned(_ tlv: TLV) -> [UInt8] { Array(tlv.value.drop { $0 == 0 }) }
        if algorithm[0].bytes == ASN1ObjectIdentifier.AlgorithmIdentifier.rsaEncryption.contentOctets {
            let rsa = try TLV.parse(bitString, expecting: 0x30).children()
            objects += [TLV.encode(tag: 0x81, value: unsigned(rsa[0])), TLV.encode(tag: 0x82, value: unsigned(rsa[1]))]
        } else {
            if domain {
                // ECParameters { version, fieldID { prime-field, p }, curve { a, b }, base, order, cofactor }.
                let parameters: [TLV]
                if algorithm[1].tag == 0x30 {
                    parameters = try algorithm[1].children()
                } else {
                    throw CVCertificateError.malformed("EC key with a named curve: generate it with explicit parameters")
                }
                let prime = try parameters[1].children()[1]
                let curve = try parameters[2].children()
                objects += [
                    TLV.encode(tag: 0x81, value: unsigned(prime)), TLV.encode(tag: 0x82, value: curve[0].bytes),
                    TLV.encode(tag: 0x83, value: curve[1].bytes), TLV.encode(tag: 0x84, value: parameters[3].bytes),
                    TLV.encode(tag: 0x85, value: unsigned(parameters[4])),
                ]
                objects.append(TLV.encode(tag: 0x86, value: bitString))
                objects.append(TLV.encode(tag: 0x87, value: parameters.count > 5 ? unsigned(parameters[5]) : [1]))
                return TLV.encode(tag: 0x7F49, value: objects.joined())
            }
            objects.append(TLV.encode(tag: 0x86, value: bitString))
        }
        return TLV.encode(tag: 0x7F49, value: objects.joined())
    }
}

/// A TEST-ONLY EAC PKI: a CVCA, a DV under it and an IS under the DV, with their keys.
/// THESE KEYS ARE PUBLIC (or made fresh per test): nothing they sign may be trusted outside tests.
public struct EACTestSet: Sendable {
    public var cvcaKey: PrivateKey
    public var dvKey: PrivateKey
    public var isKey: PrivateKey
    public var cvca: CVCertificate
    public var dv: CVCertificate
    public var inspectionSystem: CVCertificate
    /// The TA algorithm of every key in the set.
    public var algorithmOID: ASN1ObjectIdentifier

    public init(cvcaKey: PrivateKey, dvKey: PrivateKey, isKey: PrivateKey, cvca: CVCertificate, dv: CVCertificate,
                inspectionSystem: CVCertificate, algorithmOID: ASN1ObjectIdentifier) {
        self.cvcaKey = cvcaKey
        self.dvKey = dvKey
        self.isKey = isKey
        self.cvca = cvca
        self.dv = dv
        self.inspectionSystem = inspectionSystem
        self.algorithmOID = algorithmOID
    }

    /// `id-TA-ECDSA-SHA-256`.
    public static let ecdsaSHA256: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 2, 2, 3]

    /// Role bits for the access-rights byte.
    public static let cvcaRole: UInt8 = 0xC0, dvDomesticRole: UInt8 = 0x80, dvForeignRole: UInt8 = 0x40, isRole: UInt8 = 0x00

    /// A fresh set on `curve` (`brainpoolP256r1` by default), valid 2020-2045, granting DG3 and DG4.
    /// `sequence` ends each holder reference (`UTCVCA` + sequence).
    public static func make(curve: String = "brainpoolP256r1", country: String = "UT", algorithmOID: ASN1ObjectIdentifier = ecdsaSHA256,
                            rsaBits: Int? = nil, sequence: String = "00001") throws -> EACTestSet {
        func key() throws -> PrivateKey {
            if let rsaBits { return try PrivateKey.generate(.rsa(bits: rsaBits)) }
            return try PrivateKey.generate(.ec(curve: curve, explicitParameters: true))
        }
        return try make(cvcaKey: key(), dvKey: key(), isKey: key(), country: country, algorithmOID: algorithmOID,
                        sequence: sequence)
    }

    /// A set over given keys (the fixture keys of `scripts/make-test-fixtures`).
    public static func make(cvcaKey: PrivateKey, dvKey: PrivateKey, isKey: PrivateKey, country: String = "UT",
                            algorithmOID: ASN1ObjectIdentifier = ecdsaSHA256, sequence: String = "00001") throws -> EACTestSet {
        let from = CVDate(year: 2020, month: 1, day: 1), to = CVDate(year: 2045, month: 1, day: 1)
        let cvcaName = "\(country)CVCA\(sequence)", dvName = "\(country)DVTEST\(sequence)", isName = "\(country)ISTEST\(sequence)"
        let cvca = try CVCertificateBuilder(
            authorityReference: cvcaName, holderReference: cvcaName, algorithmOID: algorithmOID, holderKey: cvcaKey,
            includeDomainParameters: true, accessRights: cvcaRole | 0x03, effectiveDate: from, expirationDate: to
        ).build(issuerKey: cvcaKey, issuerAlgorithmOID: algorithmOID)
        let dv = try CVCertificateBuilder(
            authorityReference: cvcaName, holderReference: dvName, algorithmOID: algorithmOID, holderKey: dvKey,
            includeDomainParameters: false, accessRights: dvDomesticRole | 0x03, effectiveDate: from, expirationDate: to
        ).build(issuerKey: cvcaKey, issuerAlgorithmOID: algorithmOID)
        let inspectionSystem = try CVCertificateBuilder(
            authorityReference: dvName, holderReference: isName, algorithmOID: algorithmOID, holderKey: isKey,
            includeDomainParameters: false, accessRights: isRole | 0x03, effectiveDate: from, expirationDate: to
        ).build(issuerKey: dvKey, issuerAlgorithmOID: algorithmOID)
        return EACTestSet(cvcaKey: cvcaKey, dvKey: dvKey, isKey: isKey, cvca: cvca, dv: dv,
                          inspectionSystem: inspectionSystem, algorithmOID: algorithmOID)
    }

    /// An IS certificate under this set's DV with other fields (rights, dates, holder name, key).
    public func inspectionSystem(
        holder: String? = nil, rights: UInt8 = 0x03, effective: CVDate = .init(year: 2020, month: 1, day: 1),
        expiration: CVDate = .init(year: 2045, month: 1, day: 1), key: PrivateKey? = nil, corruptSignature: Bool = false,
        terminalTypeOID: ASN1ObjectIdentifier = CVCertificate.inspectionSystemOID
    ) throws -> CVCertificate {
        var builder = CVCertificateBuilder(
            authorityReference: dv.holderReference, holderReference: holder ?? inspectionSystem.holderReference,
            algorithmOID: algorithmOID, holderKey: key ?? isKey, includeDomainParameters: false, accessRights: rights,
            effectiveDate: effective, expirationDate: expiration)
        builder.corruptSignature = corruptSignature
        builder.terminalTypeOID = terminalTypeOID
        return try builder.build(issuerKey: dvKey, issuerAlgorithmOID: algorithmOID)
    }

    /// The terminal credentials of this set (CVCA, DV, IS with its key in memory).
    public func credentials(terminal: CVCertificate? = nil, key: PrivateKey? = nil, dv: CVCertificate? = nil) -> TerminalCredentials {
        let isCert = terminal ?? inspectionSystem
        return TerminalCredentials(
            certificates: [cvca, dv ?? self.dv, isCert],
            terminals: [.init(certificate: isCert, key: FileTerminalKey(key: key ?? isKey))])
    }

    /// Writes `NAME.cvcert` files and the IS key as `NAME.pkcs8` (DER) into `directory`.
    public func write(to directory: String) throws {
        func put(_ name: String, _ bytes: [UInt8]) throws {
            try Data(bytes).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
        }
        try put("cvca.cvcert", cvca.rawBytes)
        try put("dv.cvcert", dv.rawBytes)
        try put("is.cvcert", inspectionSystem.rawBytes)
        try put("is.pkcs8", isKey.pkcs8())
    }

    /// The chip side: trusts this set's CVCA, at `date`.
    public func virtualEAC(date: CVDate = .init(year: 2026, month: 1, day: 1)) -> VirtualEAC {
        VirtualEAC(trustPoints: [cvca], currentDate: date)
    }
}

import FoundationEssentials

extension EACTestSet {
    /// Synthetic DG3 / DG4 (biometric information group templates, Doc 9303-10 §4.7.3 / §4.7.4, around
    /// ISO/IEC 19794-4 / -6 records): BSI TR-03105-5.1's fingerprint set 1 (two WSQ) and iris set 1
    /// (two RAW) of ``ConformanceBiometrics``, not real fingerprints or irises, only bytes to release.
    public static let biometricDataGroups: [Int: [UInt8]] = [
        3: ConformanceBiometrics.group(.dg(3), ConformanceBiometrics.fingerprintSet1),
        4: ConformanceBiometrics.group(.dg(4), ConformanceBiometrics.irisSet1),
    ]

    /// Gives `configuration` EAC with this set's CVCA: EF.CVCA, the trust point, the chip's date.
    public func equip(_ configuration: inout VirtualChipConfiguration, chipDate: CVDate) {
        let eac = virtualEAC(date: chipDate)
        configuration.files[.cvca] = eac.efCVCA
        configuration.eac = eac
    }
}
