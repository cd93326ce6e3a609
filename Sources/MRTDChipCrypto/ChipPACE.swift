/// The chip's side of PACE (Doc 9303-11 §4.4, BSI TR-03110-2 §3.2): the encrypted nonce, the
/// Integrated Mapping pseudo-random function, the authentication tokens, and PACE-CAM's encrypted
/// chip authentication data. The group arithmetic is in ``ChipGroup``.
public enum ChipPACE {
    /// The length of the nonce `s` (and of the IM constants): 16 bytes for 3DES and AES-128, 32 for
    /// AES-192 and AES-256 (l = 128 or 256 bits, §4.4.3.3.2).
    public static func nonceLength(_ cipher: ChipCipher) -> Int {
        cipher == .tripleDES || cipher == .aes128 ? 16 : 32
    }

    /// z = E(K_π, s), CBC with IV 0 (§4.4.3.1).
    public static func encryptNonce(_ s: [UInt8], passwordKey: [UInt8], cipher: ChipCipher) throws(ChipCryptoError) -> [UInt8] {
        try cipher.encryptCBC(key: passwordKey, data: s)
    }

    /// `R(s, t)` of Integrated Mapping (§4.4.3.3.2, TR-03110-3 §A.3.4.2): with E the cipher in CBC
    /// mode and IV 0, k₀ = E(t, s), then xᵢ = E(kᵢ, c₁) and kᵢ₊₁ = E(kᵢ, c₀) (each key cut to the
    /// key length) for i < n, n·l ≥ log₂ p + 64; R = x₀ || … || xₙ₋₁.
    public static func pseudoRandom(s: [UInt8], t: [UInt8], cipher: ChipCipher, primeBitCount: Int) throws(ChipCryptoError) -> [UInt8] {
        let l = nonceLength(cipher)
        guard s.count == l, t.count == cipher.keyLength else { throw .invalidInput("IM nonces of \(s.count) and \(t.count) bytes") }
        let (c0, c1) = l == 16 ? (ChipIMConstants.c0_128, ChipIMConstants.c1_128) : (ChipIMConstants.c0_256, ChipIMConstants.c1_256)
        let blocks = (primeBitCount + 64 + 8 * l - 1) / (8 * l)
        var key = Array(try cipher.encryptCBC(key: t, data: s).prefix(cipher.keyLength))
        defer { chipWipe(&key) }
        var output: [UInt8] = []
        for _ in 0..<blocks {
            output += try cipher.encryptCBC(key: key, data: c1)
            var next = Array(try cipher.encryptCBC(key: key, data: c0).prefix(cipher.keyLength))
            swap(&key, &next)
            chipWipe(&next)
        }
        return output
    }

    /// The authentication token over the other side's ephemeral public key (§4.4.3.4, §9.4):
    /// MAC(KSMAC, `7F49 { 06 OID, 86 point | 84 value }`), 8 bytes. Chip Authentication v2 uses the
    /// same token with its own OID.
    public static func authenticationToken(
        kMac: [UInt8], cipher: ChipCipher, protocolOID: String, publicKey: [UInt8], ellipticCurve: Bool
    ) throws(ChipCryptoError) -> [UInt8] {
        let inner = ChipTLV.encode(tag: 0x06, value: try ChipObjectIdentifier.content(protocolOID))
            + ChipTLV.encode(tag: ellipticCurve ? 0x86 : 0x84, value: publicKey)
        let input = ChipTLV.encode(tag: 0x7F49, value: inner)
        return try ChipMAC.mac(cipher, key: kMac, data: cipher == .tripleDES ? ChipPadding.pad(input, blockSize: 8) : input)
    }

    /// PACE-CAM's A_IC = E(KSEnc, CA_IC) (§4.4.3.5.2): AES-CBC with IV = E(KSEnc, FF…FF), CA_IC padded.
    public static func encryptChipAuthenticationData(_ caIC: [UInt8], kEnc: [UInt8], cipher: ChipCipher) throws(ChipCryptoError) -> [UInt8] {
        guard cipher != .tripleDES else { throw .unsupported("PACE-CAM with 3DES") }
        let iv = try cipher.encryptECB(key: kEnc, data: [UInt8](repeating: 0xFF, count: 16))
        return try cipher.encryptCBC(key: kEnc, iv: iv, data: ChipPadding.pad(caIC, blockSize: 16))
    }

    /// CA_IC = SK_map,IC · SK_IC⁻¹ mod n (§4.4.3.5.2) on `group`, an elliptic curve.
    public static func chipAuthenticationData(mappingKey: [UInt8], staticKey: [UInt8], group: any ChipGroup) throws -> [UInt8] {
        guard let curve = group as? ChipECGroup else { throw ChipCryptoError.unsupported("PACE-CAM on a DH group") }
        return try curve.multiplyByInverse(mappingKey, staticKey)
    }
}

/// The constants c₀, c₁ of the Integrated Mapping pseudo-random function (Doc 9303-11 §4.4.3.3.2).
enum ChipIMConstants {
    static let c0_128: [UInt8] = bytes("A668892A7C41E3CA739F40B057D85904")
    static let c1_128: [UInt8] = bytes("A4E136AC725F738B01C1F60217C188AD")
    static let c0_256: [UInt8] = bytes("D463D65234124EF7897054986DCA0A174E28DF758CBAA03F240616414D5A1676")
    static let c1_256: [UInt8] = bytes("54BD7255F0AAF831BEC3423FCF39D69B6CBF066677D0FAAE5AADD99DF8E53517")

    private static func bytes(_ hex: String) -> [UInt8] {
        let digits = Array(hex.utf8)
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16) ?? 0 }
    }
}

/// The DER content octets of a dotted object identifier (ITU-T X.690 §8.19), for the token input.
public enum ChipObjectIdentifier {
    public static func content(_ dotted: String) throws(ChipCryptoError) -> [UInt8] {
        let arcs = dotted.split(separator: ".").map { UInt64($0) }
        guard arcs.count >= 2, let first = arcs[0], let second = arcs[1], first <= 2 else { throw .invalidInput("OID \(dotted)") }
        var output: [UInt8] = []
        for arc in [first * 40 + second] + arcs.dropFirst(2).map({ $0 ?? UInt64.max }) {
            guard arc != UInt64.max else { throw .invalidInput("OID \(dotted)") }
            var groups: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                groups.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            output += groups
        }
        return output
    }
}
