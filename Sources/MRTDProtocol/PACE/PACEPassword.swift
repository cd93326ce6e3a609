public import MRTDCore
public import MRTDCrypto

/// A PACE password (Doc 9303-11 §4.4.1, §9.7.3) and its key `K_π`.
public enum PACEPassword: Sendable, Equatable, CustomStringConvertible {
    /// The MRZ key: `f(π) = SHA-1(MRZ_information)`.
    case mrz(MRZKey)
    /// The card access number printed on the document: `f(π)` = its characters (ISO 8859-1).
    case can(String)
    /// A PIN (eID cards; the BSI EAC worked example).
    case pin(String)

    /// The password reference in MSE:Set AT tag `83` (Doc 9303-11 §4.4.4.1): 01 MRZ, 02 CAN, 03 PIN.
    public var reference: UInt8 {
        switch self {
        case .mrz: 0x01
        case .can: 0x02
        case .pin: 0x03
        }
    }

    /// `MRZ`, `CAN` or `PIN`.
    public var typeName: String {
        switch self {
        case .mrz: "MRZ"
        case .can: "CAN"
        case .pin: "PIN"
        }
    }

    /// `K_π = KDF_π(π) = KDF(f(π), 3)` for `cipher` (Doc 9303-11 §9.7.3).
    public func key(for cipher: SMCipher) -> [UInt8] {
        var secret: [UInt8]
        switch self {
        case .mrz(let key): secret = DigestAlgorithm.sha1.hash(Array(key.mrzInformation.utf8))
        case .can(let can), .pin(let can): secret = can.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }
        }
        defer { secureWipe(&secret) }
        return KeyDerivation.derive(sharedSecret: secret, counter: KeyDerivation.paceCounter, cipher: cipher)
    }

    /// Redacted: passwords never reach logs.
    public var description: String { "PACEPassword.\(typeName)(<redacted>)" }
}
