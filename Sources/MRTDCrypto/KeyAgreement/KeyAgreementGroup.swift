import FoundationEssentials
import SwiftASN1
public import MRTDCore

/// A group for (EC)DH key agreement: an elliptic curve over a prime field or a prime-order subgroup
/// of Z_p*. Keys and group elements cross this API as bytes: private keys big-endian, EC public keys
/// as uncompressed points (`04 || x || y`), DH public keys as big-endian unsigned integers without
/// leading zero bytes (Doc 9303-11 §9.4.1; any length up to that of p is accepted). The DH shared
/// secret and the other group elements (generators) keep the length of p.
///
/// An instance owns its OpenSSL objects (group, scratch context) and serialises calls with a lock,
/// so one instance can serve a whole PACE run without allocating them again.
public protocol KeyAgreementGroup: AnyObject, Sendable {
    /// ECDH or DH.
    var keyAgreement: KeyAgreementAlgorithm { get }
    /// `brainpoolP256r1`, `NIST-P-256`, `RFC5114-2048-256`, or `explicit`.
    var name: String { get }
    /// The byte length of the prime p (the length of an x-coordinate or a DH element).
    var fieldByteCount: Int { get }
    /// The bit length of p.
    var primeBitCount: Int { get }
    /// The bit length of the group order: n (ECDH) or q (DH; 0 when q is unknown).
    var orderBitCount: Int { get }
    /// Whether the group is one of the standardized curves or groups (Doc 9303-11 §9.5.1), however
    /// its parameters were given; ``name`` is then its standard name.
    var isStandardized: Bool { get }
    /// The group's standard generator, encoded.
    var generator: [UInt8] { get }

    /// A private key drawn from `random`: bytes of the length of the group order, redrawn until the
    /// value is in [1, order - 1] (so a scripted source hands in a worked example's key unchanged).
    func generatePrivateKey(using random: any RandomSource) throws -> [UInt8]
    /// `generator ^ privateKey` (DH) or `privateKey · generator` (ECDH), encoded.
    func publicKey(privateKey: [UInt8], generator: [UInt8]) throws -> [UInt8]
    /// Checks a peer's public key: on the curve and not the point at infinity (ECDH); in (1, p-1)
    /// and in the subgroup of order q when q is known (DH). BSI TR-03111 §3.2.2; TR-03110-3 §A.2.2.
    ///
    /// - Throws: `CryptoError.invalidInput` naming the failed check.
    func validatePublicKey(_ publicKey: [UInt8]) throws
    /// The shared group element `peer ^ privateKey` / `privateKey · peer`, encoded like a public key.
    func sharedElement(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8]
    /// The shared secret K: the x-coordinate of the shared point (ECDH, field length) or the shared
    /// element (DH) with its leading zeros kept (Doc 9303-11 §9.6; length of p).
    func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8]
    /// Generic Mapping (Doc 9303-11 §4.4.3.3.1): `G^ = s·G + H` or `g^ = g^s · H mod p`.
    func genericMapping(nonce: [UInt8], sharedElement: [UInt8]) throws -> [UInt8]
    /// Integrated Mapping (§4.4.3.3.2): maps `R(s,t)` (reduced mod p here) to a generator.
    func integratedMapping(pseudoRandom: [UInt8]) throws -> [UInt8]
}

/// Builds the group for standardized or explicit domain parameters (Doc 9303-11 §9.5.1,
/// BSI TR-03110-3 §A.2.1).
public enum KeyAgreementGroups {
    /// The group of a standardized domain parameter ID (0-2 DH, 8-18 ECDH).
    ///
    /// - Throws: `CryptoError.unsupported` for reserved or unknown IDs.
    public static func standardized(_ id: Int) throws -> any KeyAgreementGroup {
        if let dh = DHGroup.StandardGroup(rawValue: id) { return try DHGroup(standard: dh) }
        if let curve = ECGroup.StandardCurve(rawValue: id) { return try ECGroup(standard: curve) }
        throw CryptoError.unsupported("standardized domain parameter ID \(id)")
    }

    /// The group of parsed domain parameters.
    public static func make(_ parameters: DomainParameters) throws -> any KeyAgreementGroup {
        switch parameters {
        case .standardized(let id): return try standardized(id)
        case .namedCurve(let oid):
            guard let curve = ECGroup.StandardCurve.allCases.first(where: { $0.oid == oid }) else {
                throw CryptoError.unsupported("named curve \(oid)")
            }
            return try ECGroup(standard: curve)
        case .ec(let explicit): return try ECGroup(explicit: explicit)
        case .dh(let explicit): return try DHGroup(explicit: explicit)
        }
    }

    /// The standardized ID whose group has these parameters, if any (so explicit brainpoolP256r1 is
    /// reported by name).
    public static func name(ofStandardized id: Int) -> String? {
        DHGroup.StandardGroup(rawValue: id)?.name ?? ECGroup.StandardCurve(rawValue: id)?.name
    }
}
