/// The chip's side of Terminal Authentication (BSI TR-03110-1 §4.4, TR-03110-3 §A.6.4, §B.11): it
/// checks each CV certificate's signature with its issuer's key and the terminal's signature over
/// `ID_PICC || r_PICC || Comp(PK_PCD)`. ECDSA (plain `r || s`) is verified with the chip's own curve
/// arithmetic, RSA (PKCS #1 v1.5 and PSS) with the chip's own encoding checks over `BN_mod_exp`.
public enum ChipTerminalAuthentication {
    /// A verification key as a CV certificate carries it (TR-03110-3 §D.3).
    public enum Key: Sendable, Hashable {
        /// RSA: modulus n and public exponent e.
        case rsa(modulus: [UInt8], exponent: [UInt8])
        /// ECDSA: the curve (the CVCA's parameters) and the public point Y.
        case ec(domain: ChipDomainParameters, point: [UInt8])
    }

    /// The signature scheme of a TA algorithm OID (`id-TA-*`, 0.4.0.127.0.7.2.2.2.x.y).
    enum Scheme: Equatable {
        case pkcs1(ChipDigest)
        case pss(ChipDigest)
        case ecdsa(ChipDigest)

        init?(oid: String) {
            let prefix = "0.4.0.127.0.7.2.2.2."
            guard oid.hasPrefix(prefix) else { return nil }
            switch oid.dropFirst(prefix.count) {
            case "1.1": self = .pkcs1(.sha1)
            case "1.2": self = .pkcs1(.sha256)
            case "1.3": self = .pss(.sha1)
            case "1.4": self = .pss(.sha256)
            case "1.5": self = .pkcs1(.sha512)
            case "1.6": self = .pss(.sha512)
            case "2.1": self = .ecdsa(.sha1)
            case "2.2": self = .ecdsa(.sha224)
            case "2.3": self = .ecdsa(.sha256)
            case "2.4": self = .ecdsa(.sha384)
            case "2.5": self = .ecdsa(.sha512)
            default: return nil
            }
        }
    }

    /// Whether `signature` over `message` verifies with `key` under the TA algorithm `algorithmOID`;
    /// false for anything malformed or unknown.
    public static func verify(algorithmOID: String, key: Key, message: [UInt8], signature: [UInt8]) -> Bool {
        guard let scheme = Scheme(oid: algorithmOID) else { return false }
        do {
            switch (scheme, key) {
            case (.ecdsa(let digest), .ec(let domain, let point)):
                guard let curve = try ChipGroups.make(domain) as? ChipECGroup else { return false }
                return try curve.verifyECDSA(hash: digest.hash(message), plainSignature: signature, publicKey: point)
            case (.pkcs1(let digest), .rsa(let modulus, let exponent)):
                return try ChipRSAVerification.pkcs1(
                    hash: digest.hash(message), digest: digest, signature: signature, modulus: modulus, exponent: exponent)
            case (.pss(let digest), .rsa(let modulus, let exponent)):
                return try ChipRSAVerification.pss(
                    hash: digest.hash(message), digest: digest, signature: signature, modulus: modulus, exponent: exponent)
            default:
                return false
            }
        } catch {
            return false
        }
    }

    /// `Comp(PK)` (TR-03110-3 §A.2.2.3): the x-coordinate of an EC point, SHA-1 of a DH value
    /// (without leading zeros).
    public static func compressed(_ publicKey: [UInt8], ellipticCurve: Bool) throws(ChipCryptoError) -> [UInt8] {
        if ellipticCurve {
            guard publicKey.first == 0x04, publicKey.count % 2 == 1 else { throw .invalidInput("not an uncompressed point") }
            return Array(publicKey[1...(publicKey.count / 2)])
        }
        return try ChipKeyDerivation.sha1(Array(publicKey.drop { $0 == 0 }))
    }

    /// The message the terminal signs (TR-03110-1 §4.4.1): `ID_PICC || r_PICC || Comp(PK_PCD)`,
    /// `PK_PCD` being the terminal's ephemeral Chip Authentication key.
    public static func signatureInput(
        chipIdentifier: [UInt8], challenge: [UInt8], terminalKey: [UInt8], ellipticCurve: Bool
    ) throws(ChipCryptoError) -> [UInt8] {
        chipIdentifier + challenge + (try compressed(terminalKey, ellipticCurve: ellipticCurve))
    }
}
