import FoundationEssentials
import MRTDChipCrypto
public import MRTDCore
public import MRTDCrypto
import MRTDProtocol
public import SwiftASN1
import Synchronization

/// One Chip Authentication key of a virtual chip, as DG14 publishes it.
public struct ChipAuthenticationKeySpec: Sendable, Hashable, CustomStringConvertible {
    /// How the SubjectPublicKeyInfo names the domain parameters.
    public enum KeyEncoding: String, Sendable, Hashable {
        /// Named curve OID (EC); X9.42 `dhpublicnumber` with p, g, q (DH).
        case named
        /// Explicit curve parameters (as most passports' DG14 keys are); DH as `named`.
        case explicit
        /// BSI `standardizedDomainParameters` with the parameter ID (as in EF.CardSecurity).
        case standardizedID
    }

    /// Doc 9303-11 §9.5.1 parameter ID: 0-2 DH (RFC 5114), 8-18 ECDH.
    public var domainParameterID: Int
    /// The CA protocol's cipher (3DES: MSE:Set KAT; AES: MSE:Set AT + GENERAL AUTHENTICATE).
    public var cipher: SymmetricCipher
    /// The key ID in ChipAuthenticationInfo and ChipAuthenticationPublicKeyInfo.
    public var keyID: Int?
    /// How the SubjectPublicKeyInfo names the domain parameters.
    public var keyEncoding: KeyEncoding
    /// ChipAuthenticationInfo.version (2: nonce and token in the GENERAL AUTHENTICATE answer).
    public var version: Int

    /// One key; explicit parameters by default, as most passports publish them.
    public init(domainParameterID: Int, cipher: SymmetricCipher, keyID: Int? = nil, keyEncoding: KeyEncoding = .explicit,
                version: Int = 1) {
        self.domainParameterID = domainParameterID
        self.cipher = cipher
        self.keyID = keyID
        self.keyEncoding = keyEncoding
        self.version = version
    }

    /// DH for IDs 0-2, ECDH otherwise.
    public var keyAgreement: KeyAgreementAlgorithm { domainParameterID <= 2 ? .dh : .ecdh }

    public var description: String {
        "\(keyAgreement.rawValue) #\(domainParameterID) \(cipher.rawValue)\(keyID.map { " key \($0)" } ?? "") \(keyEncoding.rawValue) v\(version)"
    }
}

/// The Active Authentication key of a virtual chip (DG15).
public enum ActiveAuthenticationKeySpec: Sendable, Hashable, CustomStringConvertible {
    /// RSA with ISO/IEC 9796-2 scheme 1 and the given hash (trailer `BC` for SHA-1, `xx CC` otherwise).
    case rsa(bits: Int, digest: DigestAlgorithm)
    /// ECDSA on a standardized curve (IDs 8-18), signatures plain `r||s` or DER; DG14 carries an
    /// ActiveAuthenticationInfo naming the hash unless `withInfo` is false.
    case ecdsa(curveID: Int, digest: DigestAlgorithm, plain: Bool, withInfo: Bool)

    public var description: String {
        switch self {
        case .rsa(let bits, let digest): "RSA-\(bits) \(digest.rawValue)"
        case .ecdsa(let curve, let digest, let plain, let info):
            "ECDSA #\(curve) \(digest.rawValue) \(plain ? "plain" : "DER")\(info ? "" : " no AA info")"
        }
    }
}

/// Damage to DG14 for the negative tests (RELIABILITY CA-01).
public struct DG14Faults: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// ChipAuthenticationInfo names a key ID that no ChipAuthenticationPublicKeyInfo has.
    public static let keyIDMismatch = DG14Faults(rawValue: 1)
    /// The public value is not a valid group element (an EC point off the curve, a DH value outside the subgroup).
    public static let corruptedPublicKey = DG14Faults(rawValue: 2)
    /// The domain parameters are damaged (EC: the order; DH: `p`).
    public static let invalidDomainParameters = DG14Faults(rawValue: 4)
    /// The ActiveAuthenticationInfo names a signature algorithm that is none (`1.2.3.4.5`).
    public static let unknownActiveAuthenticationAlgorithm = DG14Faults(rawValue: 8)
}

/// DG14, DG15 and the matching chip keys for the virtual chip; keys are generated in-process once
/// per process and specification.
public struct AuthenticationFixture: Sendable {
    /// DG14 (tag `6E`), when CA keys or an ECDSA AA key need it.
    public var dg14: [UInt8]?
    /// DG15 (tag `6F`), when there is an AA key.
    public var dg15: [UInt8]?
    /// The chip side.
    public var chip: VirtualChipAuthentication

    /// Builds the files and keys.
    public static func make(
        chipAuthentication: [ChipAuthenticationKeySpec] = [], activeAuthentication: ActiveAuthenticationKeySpec? = nil,
        dg14Faults: DG14Faults = [], chipFaults: VirtualChipAuthentication.Faults = []
    ) throws -> AuthenticationFixture {
        var infos: [[UInt8]] = []
        var chipKeys: [VirtualChipAuthentication.ChipAuthenticationKey] = []
        for (slot, spec) in chipAuthentication.enumerated() {
            let (pair, privateKey) = try AuthenticationFixtureKeys.shared.chipAuthenticationKey(id: spec.domainParameterID, slot: slot)
            let caProtocol = ChipAuthenticationProtocol(keyAgreement: spec.keyAgreement, cipher: spec.cipher)
            chipKeys.append(.init(
                keyID: spec.keyID, caProtocol: caProtocol, version: spec.version, keyPair: pair,
                domainParameterID: spec.domainParameterID, privateKey: privateKey))
            var spki = try subjectPublicKeyInfo(pair, spec)
            if dg14Faults.contains(.corruptedPublicKey) { spki = try corruptPublicKey(spki) }
            if dg14Faults.contains(.invalidDomainParameters) { spki = try corruptDomainParameters(spki, spec) }
            let pkOID = spec.keyAgreement == .dh ? SecurityProtocolOID.pkDH : SecurityProtocolOID.pkECDH
            var keyInfo = [try oid(pkOID), spki]
            if let keyID = spec.keyID { keyInfo.append(try integer(keyID)) }
            infos.append(TLV.encode(tag: 0x30, children: keyInfo))
            let infoKeyID = dg14Faults.contains(.keyIDMismatch) ? (spec.keyID ?? 0) + 100 : spec.keyID
            infos.append(ChipAuthenticationInfo(protocol: caProtocol, version: spec.version, keyID: infoKeyID).rawBytes)
        }
        var dg15: [UInt8]?
        var aaKey: PrivateKey?
        var digest = DigestAlgorithm.sha1
        var plain = true
        switch activeAuthentication {
        case .rsa(let bits, let hash)?:
            aaKey = try AuthenticationFixtureKeys.shared.rsaKey(bits: bits)
            digest = hash
        case .ecdsa(let curve, let hash, let plainSignatures, let withInfo)?:
            aaKey = try AuthenticationFixtureKeys.shared.ecKey(curveID: curve)
            digest = hash
            plain = plainSignatures
            if withInfo {
                let algorithm: ASN1ObjectIdentifier = dg14Faults.contains(.unknownActiveAuthenticationAlgorithm)
                    ? [1, 2, 3, 4, 5] : Self.ecdsaPlainOID(hash)
                infos.append(ActiveAuthenticationInfo(signatureAlgorithm: algorithm).rawBytes)
            }
        case nil:
            break
        }
        if let aaKey { dg15 = TLV.encode(tag: 0x6F, value: try aaKey.subjectPublicKeyInfo()) }
        let dg14 = infos.isEmpty ? nil
            : TLV.encode(tag: 0x6E, value: TLV.encode(tag: 0x31, value: infos.sorted { $0.lexicographicallyPrecedes($1) }.flatMap { $0 }))
        return AuthenticationFixture(
            dg14: dg14, dg15: dg15,
            chip: VirtualChipAuthentication(
                chipAuthenticationKeys: chipKeys, activeAuthenticationKey: aaKey, activeAuthenticationDigest: digest,
                ecdsaPlainSignatures: plain, faults: chipFaults))
    }

    /// DG14 and DG15 keyed by number, for `SpecimenDocument.make(extraDataGroups:)`.
    public var extraDataGroups: [Int: [UInt8]] {
        var extra: [Int: [UInt8]] = [:]
        if let dg14 { extra[14] = dg14 }
        if let dg15 { extra[15] = dg15 }
        return extra
    }

    /// The specimen passport with these DG14/DG15 (listed in EF.COM and hashed into the SOD).
    public func specimen(signer: DocumentSigner) throws -> SpecimenDocument {
        try SpecimenDocument.make(extraDataGroups: extraDataGroups, signer: signer)
    }

    /// BSI TR-03111 `ecdsa-plain-SHA*`.
    public static func ecdsaPlainOID(_ digest: DigestAlgorithm) -> ASN1ObjectIdentifier {
        let arc: UInt
        switch digest {
        case .sha1: arc = 1
        case .sha224: arc = 2
        case .sha256: arc = 3
        case .sha384: arc = 4
        case .sha512: arc = 5
        }
        return ecdsaPlainSignatures.appending(arc)
    }

    // MARK: Encoding

    private static func subjectPublicKeyInfo(_ pair: KeyAgreementKeyPair, _ spec: ChipAuthenticationKeySpec) throws -> [UInt8] {
        switch spec.keyEncoding {
        case .named: return try pair.subjectPublicKeyInfo(explicitParameters: false)
        case .explicit: return try pair.subjectPublicKeyInfo(explicitParameters: true)
        case .standardizedID:
            let algorithm = TLV.encode(tag: 0x30, children: [
                try oid(SecurityProtocolOID.standardizedDomainParameters), try integer(spec.domainParameterID)])
            let value = spec.keyAgreement == .dh
                ? TLV.encode(tag: 0x02, value: (pair.encodedPublicKey.first ?? 0) & 0x80 != 0 ? [0] + pair.encodedPublicKey : pair.encodedPublicKey)
                : pair.encodedPublicKey
            return TLV.encode(tag: 0x30, children: [algorithm, TLV.encode(tag: 0x03, value: [0] + value)])
        }
    }

    /// Flips the last bit of the public value.
    private static func corruptPublicKey(_ spki: [UInt8]) throws -> [UInt8] {
        var bytes = spki
        bytes[bytes.count - 1] ^= 0x01
        return bytes
    }

    /// Damages the EC order (explicit parameters) or the DH prime `p`.
    private static func corruptDomainParameters(_ spki: [UInt8], _ spec: ChipAuthenticationKeySpec) throws -> [UInt8] {
        let outer = try TLV.parse(spki, expecting: 0x30).children()
        let algorithm = try outer[0].children()
        guard algorithm.count == 2, algorithm[1].tag == 0x30 else {
            throw SpecimenDocumentError.badEmbeddedAsset("domain parameters are not explicit")
        }
        var parameters = try algorithm[1].children().map(\.encoded)
        // EC: SpecifiedECDomain { version, fieldID, curve, base, order, cofactor }; DH: { p, g, q }.
        let index = spec.keyAgreement == .ecdh ? 4 : 0
        parameters[index][parameters[index].count - 1] ^= 0x02
        let newAlgorithm = TLV.encode(tag: 0x30, children: [algorithm[0].encoded, TLV.encode(tag: 0x30, children: parameters)])
        return TLV.encode(tag: 0x30, children: [newAlgorithm, outer[1].encoded])
    }

    /// `ecdsa-plain-signatures` (BSI TR-03111 §5.2.1).
    private static let ecdsaPlainSignatures: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 1, 1, 4, 1]

    private static func oid(_ oid: ASN1ObjectIdentifier) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(oid)
        return serializer.serializedBytes
    }

    private static func integer(_ value: Int) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(value)
        return serializer.serializedBytes
    }
}

/// Keys generated once per process (RSA generation is the slow part).
final class AuthenticationFixtureKeys: Sendable {
    static let shared = AuthenticationFixtureKeys()

    private struct Keys {
        var chipAuthentication: [String: (pair: KeyAgreementKeyPair, privateKey: [UInt8])] = [:]
        var activeAuthentication: [String: PrivateKey] = [:]
    }

    private let keys = Mutex(Keys())

    /// A CA key: the private key drawn by the chip's own group (`MRTDChipCrypto`), and the product's
    /// pair of the same key for DG14's SubjectPublicKeyInfo.
    func chipAuthenticationKey(id: Int, slot: Int) throws -> (pair: KeyAgreementKeyPair, privateKey: [UInt8]) {
        try keys.withLock { keys in
            let name = "\(id)/\(slot)"
            if let cached = keys.chipAuthentication[name] { return cached }
            let privateKey = try ChipGroups.make(.standardized(id)).generatePrivateKey(random: ChipRandom.bytes)
            let domain = try KeyAgreementKeyPair.generate(standardizedDomainParameterID: id).publicKey
            let key = (pair: try KeyAgreementKeyPair(privateKey: privateKey, on: domain), privateKey: privateKey)
            keys.chipAuthentication[name] = key
            return key
        }
    }

    func rsaKey(bits: Int) throws -> PrivateKey {
        try keys.withLock { keys in
            if let cached = keys.activeAuthentication["rsa\(bits)"] { return cached }
            let key = try PrivateKey.generateRSA(bits: bits)
            keys.activeAuthentication["rsa\(bits)"] = key
            return key
        }
    }

    func ecKey(curveID: Int) throws -> PrivateKey {
        try keys.withLock { keys in
            if let cached = keys.activeAuthentication["ec\(curveID)"] { return cached }
            let key = try PrivateKey.generateEC(standardizedDomainParameterID: curveID)
            keys.activeAuthentication["ec\(curveID)"] = key
            return key
        }
    }
}
