internal import CLibCrypto
public import MRTDCore

/// An (EC)DH key pair on a ``KeyAgreementGroup``: the terminal's ephemeral key in Chip
/// Authentication, or (in tests and the virtual chip) a chip's static key. The private key is
/// wiped from memory when the last copy of the pair goes.
public struct KeyAgreementKeyPair: Sendable {
    /// The public half, with its group.
    public let publicKey: KeyAgreementPublicKey
    private let secret: PrivateScalar

    /// ECDH or DH.
    public var algorithm: KeyAgreementAlgorithm { publicKey.algorithm }
    /// The public key in wire encoding (uncompressed point, or DH unsigned integer without leading zeros).
    public var encodedPublicKey: [UInt8] { publicKey.encodedPublicKey }

    /// A fresh key pair on the group of `domain` (Doc 9303-11 §6.2.1: the terminal's ephemeral key
    /// uses the chip's static parameters).
    ///
    /// The private key comes from `random` through ``KeyAgreementGroup/generatePrivateKey(using:)``,
    /// so worked examples replay: EC draws the byte length of the order `n` and DH the byte length
    /// of `q` (of `p` when `q` is unknown), big-endian, with the bits above that length cleared,
    /// redrawn while out of range.
    public static func generate(on domain: KeyAgreementPublicKey, random: any RandomSource) throws -> KeyAgreementKeyPair {
        var privateKey = try domain.group.generatePrivateKey(using: random)
        defer { secureWipe(&privateKey) }
        return try KeyAgreementKeyPair(privateKey: privateKey, on: domain)
    }

    /// A fresh key pair from the system's generator on the group of `domain`.
    public static func generate(on domain: KeyAgreementPublicKey) throws -> KeyAgreementKeyPair {
        try generate(on: domain, random: SystemRandom())
    }

    /// A fresh key pair on standardized domain parameters (Doc 9303-11 §9.5.1), for chip keys in tests.
    public static func generate(standardizedDomainParameterID id: Int) throws -> KeyAgreementKeyPair {
        let group = try KeyAgreementGroups.standardized(id)
        var privateKey = try group.generatePrivateKey(using: SystemRandom())
        defer { secureWipe(&privateKey) }
        return try KeyAgreementKeyPair(privateKey: privateKey, group: group, explicit: false)
    }

    /// The key pair with private key `privateKey` (big-endian) on the group of `domain`; the public
    /// key is computed (`d·G`, or `g^x mod p`).
    ///
    /// - Throws: `CryptoError.invalidInput` when the private key is out of range.
    public init(privateKey: [UInt8], on domain: KeyAgreementPublicKey) throws {
        try self.init(privateKey: privateKey, group: domain.group, explicit: domain.hasExplicitParameters)
    }

    private init(privateKey: [UInt8], group: any KeyAgreementGroup, explicit: Bool) throws {
        let publicValue = try group.publicKey(privateKey: privateKey, generator: group.generator)
        publicKey = KeyAgreementPublicKey(group: group, explicit: explicit, encoded: publicValue)
        secret = PrivateScalar(privateKey)
    }

    /// The SubjectPublicKeyInfo of the public key (DER), with the curve named or, when
    /// `explicitParameters`, spelled out (as many chips' DG14 keys are). DH keys are always explicit.
    public func subjectPublicKeyInfo(explicitParameters: Bool = false) throws(CryptoError) -> [UInt8] {
        try publicKey.subjectPublicKeyInfo(explicitParameters: explicitParameters)
    }

    /// The shared secret with `peer` (Doc 9303-11 §9.6, BSI TR-03111 §4.3.1): the x-coordinate of
    /// the shared point for ECDH, `y^x mod p` for DH, both at full length (leading zeros kept).
    /// The group rejects a peer value that is not a group element; check
    /// ``KeyAgreementPublicKey/problem()`` first for the subgroup checks.
    public func sharedSecret(with peer: KeyAgreementPublicKey) throws -> [UInt8] {
        guard peer.algorithm == algorithm, peer.group.fieldByteCount == publicKey.group.fieldByteCount else {
            throw CryptoError.invalidInput("peer key of another algorithm or group")
        }
        return try publicKey.group.sharedSecret(privateKey: secret.bytes, peerPublicKey: peer.encodedPublicKey)
    }
}

/// A private key's bytes, wiped when the last reference goes.
private final class PrivateScalar: @unchecked Sendable {
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    deinit {
        secureWipe(&bytes)
    }
}
