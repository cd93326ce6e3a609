/// Domain parameters as the chip's own EF.CardAccess or DG14 state them (Doc 9303-11 §9.5.1,
/// BSI TR-03110-3 §A.2.1): a standardized ID, a named curve, or explicit parameters.
public enum ChipDomainParameters: Sendable, Hashable {
    /// 0-2: the RFC 5114 MODP groups; 8-18: the NIST and brainpool curves.
    case standardized(Int)
    /// A curve named by its dotted OID.
    case namedCurve(String)
    /// A prime curve spelled out (all numbers unsigned big-endian; `generator` uncompressed).
    case curve(p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8])
    /// A MODP group spelled out, with the subgroup order when known.
    case modp(p: [UInt8], g: [UInt8], q: [UInt8]?)
}

/// A group for (EC)DH on the chip side of PACE and Chip Authentication. Elements cross this API as
/// bytes: EC points uncompressed (`04 || x || y`), DH values big-endian. The chip's own
/// implementation (OpenSSL's `EC_POINT_*` and `BN_*` called directly), not the product's
/// `KeyAgreementGroup`.
public protocol ChipGroup: AnyObject, Sendable {
    /// ECDH (true) or DH.
    var isEllipticCurve: Bool { get }
    /// The byte length of p.
    var fieldByteCount: Int { get }
    /// The bit length of p (the IM pseudo-random function's output length depends on it).
    var primeBitCount: Int { get }
    /// The standard generator, encoded.
    var generator: [UInt8] { get }
    /// A private key drawn from `random` (bytes of the order's length, redrawn until in range).
    func generatePrivateKey(random: (Int) throws -> [UInt8]) throws -> [UInt8]
    /// `privateKey · generator` or `generator ^ privateKey mod p`: EC points uncompressed, DH values
    /// without leading zeros (Doc 9303-11 §9.4.1).
    func publicKey(privateKey: [UInt8], generator: [UInt8]) throws -> [UInt8]
    /// Throws unless the peer's public key is a valid element of the group (on the curve, not the
    /// point at infinity, in the subgroup; DH: in (1, p-1) and of order q when q is known).
    func validatePublicKey(_ publicKey: [UInt8]) throws
    /// The shared element (a point, or a DH value of p's length) with the peer's key.
    func sharedElement(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8]
    /// The shared secret: the x-coordinate of the shared point, or the shared DH value, of p's
    /// length with leading zeros kept (§9.6).
    func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8]
    /// Generic Mapping (§4.4.3.3.1): `s·G + H`, or `g^s · H mod p`.
    func genericMapping(nonce: [UInt8], sharedElement: [UInt8]) throws -> [UInt8]
    /// Integrated Mapping (§4.4.3.3.2) of the pseudo-random `R(s, t)`.
    func integratedMapping(pseudoRandom: [UInt8]) throws -> [UInt8]
}

/// Makes the chip's groups.
public enum ChipGroups {
    /// The group of these domain parameters.
    public static func make(_ parameters: ChipDomainParameters) throws -> any ChipGroup {
        switch parameters {
        case .standardized(let id):
            if let modp = ChipStandardGroups.modp(id) { return try ChipDHGroup(p: modp.p, g: modp.g, q: modp.q) }
            if let nid = ChipStandardGroups.curveNID(id) { return try ChipECGroup(nid: nid) }
            throw ChipCryptoError.unsupported("standardized domain parameter ID \(id)")
        case .namedCurve(let oid):
            return try ChipECGroup(curveOID: oid)
        case .curve(let p, let a, let b, let generator, let order, let cofactor):
            return try ChipECGroup(p: p, a: a, b: b, generator: generator, order: order, cofactor: cofactor)
        case .modp(let p, let g, let q):
            return try ChipDHGroup(p: p, g: g, q: q)
        }
    }
}
