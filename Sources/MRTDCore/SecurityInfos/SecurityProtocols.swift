public import SwiftASN1

/// The symmetric cipher suite a PACE or Chip Authentication protocol OID selects
/// (BSI TR-03110-3 §A.1.1): key derivation, secure messaging and authentication tokens.
///
/// The raw values match `MRTDCrypto.SMCipher`.
public enum SymmetricCipher: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
    /// 3DES-CBC encryption and ISO 9797-1 MAC algorithm 3 (`…-3DES-CBC-CBC`).
    case tripleDES = "3DES"
    /// AES-128 CBC and CMAC (`…-AES-CBC-CMAC-128`).
    case aes128 = "AES-128"
    /// AES-192 CBC and CMAC (`…-AES-CBC-CMAC-192`).
    case aes192 = "AES-192"
    /// AES-256 CBC and CMAC (`…-AES-CBC-CMAC-256`).
    case aes256 = "AES-256"

    /// The last OID arc of the cipher suite: 1 (3DES), 2 (AES-128), 3 (AES-192), 4 (AES-256).
    public var oidArc: Int {
        switch self {
        case .tripleDES: 1
        case .aes128: 2
        case .aes192: 3
        case .aes256: 4
        }
    }

    init?(oidArc: Int) {
        guard let cipher = Self.allCases.first(where: { $0.oidArc == oidArc }) else { return nil }
        self = cipher
    }

    /// Strength order: 3DES < AES-128 < AES-192 < AES-256.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.oidArc < rhs.oidArc }

    /// The OID suffix name, as in `id-PACE-ECDH-GM-AES-CBC-CMAC-128`.
    var oidName: String {
        switch self {
        case .tripleDES: "3DES-CBC-CBC"
        case .aes128: "AES-CBC-CMAC-128"
        case .aes192: "AES-CBC-CMAC-192"
        case .aes256: "AES-CBC-CMAC-256"
        }
    }
}

/// Diffie-Hellman over a prime field or elliptic curve Diffie-Hellman.
public enum KeyAgreementAlgorithm: String, Sendable, Hashable, Codable, CaseIterable {
    case dh = "DH"
    case ecdh = "ECDH"
}

/// The PACE mapping (Doc 9303-11 §4.4.3.3): Generic, Integrated or Chip Authentication Mapping.
public enum PACEMapping: String, Sendable, Hashable, Codable, CaseIterable {
    /// Generic Mapping (§4.4.3.3.1).
    case gm = "GM"
    /// Integrated Mapping (§4.4.3.3.2).
    case im = "IM"
    /// Chip Authentication Mapping (§4.4.3.3.3), ECDH only.
    case cam = "CAM"
}

/// Object identifiers of the security protocols (Doc 9303-11 §9.2, BSI TR-03110-3 §A.1.1).
public enum SecurityProtocolOID {
    /// `bsi-de` = 0.4.0.127.0.7.
    public static let bsiDE: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7]
    /// `id-PK` (Chip Authentication public keys).
    public static let pk: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 1]
    /// `id-PK-DH`.
    public static let pkDH: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 1, 1]
    /// `id-PK-ECDH`.
    public static let pkECDH: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 1, 2]
    /// `id-TA` (Terminal Authentication).
    public static let ta: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 2]
    /// `id-CA` (Chip Authentication).
    public static let ca: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 3]
    /// `id-CA-DH` (ChipAuthenticationDomainParameterInfo).
    public static let caDH: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 3, 1]
    /// `id-CA-ECDH` (ChipAuthenticationDomainParameterInfo).
    public static let caECDH: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 3, 2]
    /// `id-PACE`.
    public static let pace: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 2, 2, 4]
    /// `id-AA` (ActiveAuthenticationInfo, Doc 9303-11 §9.2.7).
    public static let aa: ASN1ObjectIdentifier = [2, 23, 136, 1, 1, 5]
    /// `standardizedDomainParameters` (BSI TR-03110-3 §A.2.1.1): the AlgorithmIdentifier whose
    /// parameter is a standardized domain parameter ID.
    public static let standardizedDomainParameters: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 1, 2]
    /// `id-SecurityObject`: the eContentType of EF.CardSecurity (TR-03110-3 §A.1.2.5).
    public static let securityObject: ASN1ObjectIdentifier = [0, 4, 0, 127, 0, 7, 3, 2, 1]
    /// `id-ecPublicKey` (ANSI X9.62).
    public static let ecPublicKey: ASN1ObjectIdentifier = [1, 2, 840, 10045, 2, 1]
    /// `dhpublicnumber` (ANSI X9.42).
    public static let dhPublicNumber: ASN1ObjectIdentifier = [1, 2, 840, 10046, 2, 1]
    /// `dhKeyAgreement` (PKCS #3).
    public static let dhKeyAgreement: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 3, 1]
    /// `prime-field` (ANSI X9.62).
    public static let primeField: ASN1ObjectIdentifier = [1, 2, 840, 10045, 1, 1]
}

/// One PACE protocol OID: `id-PACE-<DH|ECDH>-<GM|IM|CAM>-<cipher>` (Doc 9303-11 §9.2.1 / TR-03110-3
/// §A.1.1.1). There are 19 valid combinations (CAM is ECDH with AES only).
public struct PACEProtocol: Sendable, Hashable, Codable, CustomStringConvertible {
    public var mapping: PACEMapping
    public var keyAgreement: KeyAgreementAlgorithm
    public var cipher: SymmetricCipher

    /// A protocol; `nil` for combinations that do not exist (CAM with DH or 3DES).
    public init?(mapping: PACEMapping, keyAgreement: KeyAgreementAlgorithm, cipher: SymmetricCipher) {
        if mapping == .cam && (keyAgreement == .dh || cipher == .tripleDES) { return nil }
        self.mapping = mapping
        self.keyAgreement = keyAgreement
        self.cipher = cipher
    }

    /// The protocol named by `oid`, or `nil` if it names none.
    public init?(oid: ASN1ObjectIdentifier) {
        guard let arcs = oid.arcs(under: SecurityProtocolOID.pace), arcs.count == 2,
              let family = Int(exactly: arcs[0]), let suite = Int(exactly: arcs[1]),
              let (mapping, agreement) = Self.family(arc: family),
              let cipher = SymmetricCipher(oidArc: suite) else { return nil }
        self.init(mapping: mapping, keyAgreement: agreement, cipher: cipher)
    }

    /// Every valid PACE protocol.
    public static let all: [PACEProtocol] = PACEMapping.allCases.flatMap { m in
        KeyAgreementAlgorithm.allCases.flatMap { k in
            SymmetricCipher.allCases.compactMap { c in PACEProtocol(mapping: m, keyAgreement: k, cipher: c) }
        }
    }

    /// The protocol OID.
    public var oid: ASN1ObjectIdentifier { familyOID.appending(UInt(cipher.oidArc)) }

    /// The family OID without the cipher arc (`id-PACE-ECDH-GM`), as PACEDomainParameterInfo uses it.
    public var familyOID: ASN1ObjectIdentifier { Self.familyOID(mapping, keyAgreement) }

    /// `id-PACE-<DH|ECDH>-<GM|IM|CAM>`.
    static func familyOID(_ mapping: PACEMapping, _ agreement: KeyAgreementAlgorithm) -> ASN1ObjectIdentifier {
        SecurityProtocolOID.pace.appending(UInt(familyArc(mapping, agreement)))
    }

    /// `id-PACE-ECDH-GM-AES-CBC-CMAC-128` and so on.
    public var name: String { "id-PACE-\(keyAgreement.rawValue)-\(mapping.rawValue)-\(cipher.oidName)" }

    public var description: String { name }

    static func familyArc(_ mapping: PACEMapping, _ agreement: KeyAgreementAlgorithm) -> Int {
        switch (mapping, agreement) {
        case (.gm, .dh): 1
        case (.gm, .ecdh): 2
        case (.im, .dh): 3
        case (.im, .ecdh): 4
        case (.cam, _): 6
        }
    }

    static func family(arc: Int) -> (PACEMapping, KeyAgreementAlgorithm)? {
        switch arc {
        case 1: (.gm, .dh)
        case 2: (.gm, .ecdh)
        case 3: (.im, .dh)
        case 4: (.im, .ecdh)
        case 6: (.cam, .ecdh)
        default: nil
        }
    }
}

/// One Chip Authentication protocol OID: `id-CA-<DH|ECDH>-<cipher>` (Doc 9303-11 §9.2.5,
/// TR-03110-3 §A.1.1.2).
public struct ChipAuthenticationProtocol: Sendable, Hashable, Codable, CustomStringConvertible {
    public var keyAgreement: KeyAgreementAlgorithm
    public var cipher: SymmetricCipher

    public init(keyAgreement: KeyAgreementAlgorithm, cipher: SymmetricCipher) {
        self.keyAgreement = keyAgreement
        self.cipher = cipher
    }

    /// The protocol named by `oid`, or `nil` if it names none.
    public init?(oid: ASN1ObjectIdentifier) {
        guard let arcs = oid.arcs(under: SecurityProtocolOID.ca), arcs.count == 2,
              let family = Int(exactly: arcs[0]), let suite = Int(exactly: arcs[1]),
              let cipher = SymmetricCipher(oidArc: suite) else { return nil }
        switch family {
        case 1: keyAgreement = .dh
        case 2: keyAgreement = .ecdh
        default: return nil
        }
        self.cipher = cipher
    }

    /// The protocol OID.
    public var oid: ASN1ObjectIdentifier {
        SecurityProtocolOID.ca.appending(keyAgreement == .dh ? 1 : 2, UInt(cipher.oidArc))
    }

    /// `id-CA-ECDH-AES-CBC-CMAC-128` and so on.
    public var name: String { "id-CA-\(keyAgreement.rawValue)-\(cipher.oidName)" }

    public var description: String { name }
}
