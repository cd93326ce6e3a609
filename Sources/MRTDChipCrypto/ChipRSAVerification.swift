internal import CLibCrypto

/// RSA signature checks on the chip side (RFC 8017 §8.1.2, §8.2.2): the public operation
/// `s^e mod n` with `BN_mod_exp`, then the chip's own check of the EMSA-PKCS1-v1_5 or EMSA-PSS
/// encoding (MGF1 with the message hash, salt as long as the hash, as TR-03110-3 §A.6.4 fixes).
enum ChipRSAVerification {
    static func pkcs1(hash: [UInt8], digest: ChipDigest, signature: [UInt8], modulus: [UInt8], exponent: [UInt8]) throws -> Bool {
        let (em, k) = try publicOperation(signature, modulus: modulus, exponent: exponent, length: nil)
        let t = digest.digestInfoPrefix + hash
        guard k >= t.count + 11 else { return false }
        let expected = [0x00, 0x01] + [UInt8](repeating: 0xFF, count: k - t.count - 3) + [0x00] + t
        return em == expected
    }

    static func pss(hash: [UInt8], digest: ChipDigest, signature: [UInt8], modulus: [UInt8], exponent: [UInt8]) throws -> Bool {
        let modulusBits = try ChipBigNumber(modulus).bitCount
        let emBits = modulusBits - 1
        let emLength = (emBits + 7) / 8
        let (em, _) = try publicOperation(signature, modulus: modulus, exponent: exponent, length: emLength)
        let hLength = digest.length
        let sLength = hLength
        guard emLength >= hLength + sLength + 2, em.last == 0xBC else { return false }
        let maskedDB = Array(em[0..<(emLength - hLength - 1)])
        let h = Array(em[(emLength - hLength - 1)..<(emLength - 1)])
        let unusedBits = 8 * emLength - emBits
        let topMask: UInt8 = unusedBits == 0 ? 0 : UInt8(0xFF) << (8 - unusedBits)
        guard maskedDB[0] & topMask == 0 else { return false }
        var db = zip(maskedDB, try mgf1(seed: h, length: maskedDB.count, digest: digest)).map { $0 ^ $1 }
        db[0] &= ~topMask
        let padding = db.count - sLength - 1
        guard db[0..<padding].allSatisfy({ $0 == 0 }), db[padding] == 0x01 else { return false }
        let salt = Array(db[(padding + 1)...])
        return try digest.hash([UInt8](repeating: 0, count: 8) + hash + salt) == h
    }

    /// `s^e mod n` as an octet string of `length` bytes (the modulus length when nil), with that
    /// length; fails when s ≥ n.
    private static func publicOperation(
        _ signature: [UInt8], modulus: [UInt8], exponent: [UInt8], length: Int?
    ) throws -> (em: [UInt8], k: Int) {
        let context = try ChipBigNumberContext()
        defer { withExtendedLifetime(context) {} }
        let n = try context.number(modulus)
        let e = try context.number(exponent)
        let s = try context.number(signature)
        let k = n.byteCount
        guard signature.count <= k, ChipBigNumber.compare(s, n) < 0 else { throw ChipCryptoError.invalidInput("signature not below the modulus") }
        let m = try context.number()
        try ChipOpenSSL.check(BN_mod_exp(m.pointer, s.pointer, e.pointer, n.pointer, context.pointer), "BN_mod_exp")
        return (try m.bytes(length: length ?? k), k)
    }

    /// MGF1 (RFC 8017 §B.2.1).
    private static func mgf1(seed: [UInt8], length: Int, digest: ChipDigest) throws -> [UInt8] {
        var output: [UInt8] = []
        var counter: UInt32 = 0
        while output.count < length {
            let c = [UInt8(counter >> 24), UInt8(counter >> 16 & 0xFF), UInt8(counter >> 8 & 0xFF), UInt8(counter & 0xFF)]
            output += try digest.hash(seed + c)
            counter += 1
        }
        return Array(output.prefix(length))
    }
}
