internal import CLibCrypto
import Synchronization

/// A prime curve on the chip side (Doc 9303-11 §4.4, §6.2; BSI TR-03111): OpenSSL's `EC_GROUP` and
/// `EC_POINT` arithmetic called directly.
final class ChipECGroup: ChipGroup, Sendable {
    let isEllipticCurve = true
    let fieldByteCount: Int
    let primeBitCount: Int
    let generator: [UInt8]
    /// The byte length of the order n (of a private key, and of CAM's CA_IC).
    let orderByteCount: Int

    /// The curve's OpenSSL objects. `@unchecked Sendable`: an EC_GROUP and BIGNUMs are not
    /// thread-safe; they live only inside `state` and are used only under its lock (`withLockAndContext`).
    fileprivate struct State: @unchecked Sendable {
        let groupHandle: ChipECGroupHandle
        let p: ChipBigNumber
        let a: ChipBigNumber
        let b: ChipBigNumber
        let order: ChipBigNumber
        let cofactor: ChipBigNumber
        let fieldByteCount: Int
    }

    private let state: Mutex<State>

    /// A named curve (OpenSSL NID).
    convenience init(nid: Int32) throws(ChipCryptoError) {
        guard let group = EC_GROUP_new_by_curve_name(nid) else { throw .unsupported("curve NID \(nid)") }
        try self.init(owning: group)
    }

    /// A curve named by its dotted OID.
    convenience init(curveOID: String) throws(ChipCryptoError) {
        let nid = OBJ_txt2nid(curveOID)
        guard nid != NID_undef else { throw .unsupported("curve \(curveOID)") }
        try self.init(nid: nid)
    }

    /// Explicit parameters: y² = x³ + ax + b over GF(p), base point, order, cofactor.
    convenience init(p: [UInt8], a: [UInt8], b: [UInt8], generator: [UInt8], order: [UInt8], cofactor: [UInt8]) throws(ChipCryptoError) {
        let context = try ChipBigNumberContext()
        defer { withExtendedLifetime(context) {} }
        let (pn, an, bn) = (try context.number(p), try context.number(a), try context.number(b))
        guard let group = EC_GROUP_new_curve_GFp(pn.pointer, an.pointer, bn.pointer, context.pointer) else {
            throw .invalidInput("explicit curve parameters")
        }
        guard let base = EC_POINT_new(group) else {
            EC_GROUP_free(group)
            throw .openSSL("EC_POINT_new")
        }
        defer { EC_POINT_free(base) }
        let n = try context.number(order)
        let h = try context.number(cofactor.isEmpty ? [1] : cofactor)
        guard EC_POINT_oct2point(group, base, generator, generator.count, context.pointer) == 1,
              EC_GROUP_set_generator(group, base, n.pointer, h.pointer) == 1
        else {
            EC_GROUP_free(group)
            ERR_clear_error()
            throw .invalidInput("explicit curve generator")
        }
        try self.init(owning: group)
    }

    private init(owning group: OpaquePointer) throws(ChipCryptoError) {
        let handle = ChipECGroupHandle(owning: group)
        let context = try ChipBigNumberContext()
        let (p, a, b) = (try ChipBigNumber(), try ChipBigNumber(), try ChipBigNumber())
        let (order, cofactor) = (try ChipBigNumber(), try ChipBigNumber())
        try ChipOpenSSL.check(EC_GROUP_get_curve(group, p.pointer, a.pointer, b.pointer, context.pointer), "EC_GROUP_get_curve")
        try ChipOpenSSL.check(EC_GROUP_get_order(group, order.pointer, context.pointer), "EC_GROUP_get_order")
        try ChipOpenSSL.check(EC_GROUP_get_cofactor(group, cofactor.pointer, context.pointer), "EC_GROUP_get_cofactor")
        primeBitCount = p.bitCount
        fieldByteCount = p.byteCount
        orderByteCount = order.byteCount
        let curve = State(groupHandle: handle, p: p, a: a, b: b, order: order, cofactor: cofactor, fieldByteCount: fieldByteCount)
        guard let base = EC_GROUP_get0_generator(group) else { throw .invalidInput("curve without a generator") }
        generator = try curve.encode(base, context)
        state = Mutex(curve)
    }

    func generatePrivateKey(random: (Int) throws -> [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { s, _ in try ChipBigNumber.randomScalar(below: s.order, random: random) }
    }

    func publicKey(privateKey: [UInt8], generator: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { c, context in
            let base = try c.decode(generator, context)
            defer { EC_POINT_free(base) }
            let k = try context.number(privateKey)
            let result = try c.newPoint()
            defer { EC_POINT_free(result) }
            try ChipOpenSSL.check(EC_POINT_mul(c.group, result, nil, base, k.pointer, context.pointer), "EC_POINT_mul")
            return try c.encode(result, context)
        }
    }

    func validatePublicKey(_ publicKey: [UInt8]) throws {
        try state.withLockAndContext { c, context in
            let point = try c.decode(publicKey, context)
            EC_POINT_free(point)
        }
    }

    func sharedElement(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { c, context in try c.encode(try c.multiply(peerPublicKey, by: privateKey, context), consuming: true, context) }
    }

    func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { c, context in
            let shared = try c.multiply(peerPublicKey, by: privateKey, context)
            defer { EC_POINT_free(shared) }
            let x = try context.number()
            try ChipOpenSSL.check(EC_POINT_get_affine_coordinates(c.group, shared, x.pointer, nil, context.pointer), "EC_POINT_get_affine_coordinates")
            return try x.bytes(length: fieldByteCount)
        }
    }

    func genericMapping(nonce: [UInt8], sharedElement: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { c, context in
            // G^ = s·G + H: EC_POINT_mul computes n·G + m·Q.
            let h = try c.decode(sharedElement, context)
            defer { EC_POINT_free(h) }
            let s = try context.number(nonce)
            let one = try context.number(word: 1)
            let mapped = try c.newPoint()
            try ChipOpenSSL.check(EC_POINT_mul(c.group, mapped, s.pointer, h, one.pointer, context.pointer), "EC_POINT_mul")
            return try c.encode(mapped, consuming: true, context)
        }
    }

    func integratedMapping(pseudoRandom: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { c, context in
            let (x, y) = try ChipPointEncoding.map(pseudoRandom, p: c.p.pointer, a: c.a.pointer, b: c.b.pointer, scope: context)
            let point = try c.newPoint()
            guard EC_POINT_set_affine_coordinates(c.group, point, x.pointer, y.pointer, context.pointer) == 1 else {
                EC_POINT_free(point)
                ERR_clear_error()
                throw ChipCryptoError.invalidInput("Integrated Mapping gave a point off the curve")
            }
            if ChipBigNumber.compare(c.cofactor, try context.number(word: 1)) != 0 {
                // Outside prime-order curves the mapped point is multiplied by the cofactor.
                try ChipOpenSSL.check(EC_POINT_mul(c.group, point, nil, point, c.cofactor.pointer, context.pointer), "EC_POINT_mul")
            }
            return try c.encode(point, consuming: true, context)
        }
    }

    /// `a · b⁻¹ mod n` (PACE-CAM: CA_IC = SK_map,IC · SK_IC⁻¹), at the length of n.
    func multiplyByInverse(_ a: [UInt8], _ b: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { c, context in
            let (an, bn) = (try context.number(a), try context.number(b))
            let inverse = try context.number()
            guard BN_mod_inverse(inverse.pointer, bn.pointer, c.order.pointer, context.pointer) != nil else {
                ERR_clear_error()
                throw ChipCryptoError.invalidInput("key not invertible mod n")
            }
            let product = try context.number()
            try ChipOpenSSL.check(BN_mod_mul(product.pointer, an.pointer, inverse.pointer, c.order.pointer, context.pointer), "BN_mod_mul")
            return try product.bytes(length: c.order.byteCount)
        }
    }

    /// ECDSA verification (ANSI X9.62, BSI TR-03111 §4.2.1.2) of a plain `r || s` signature over
    /// `hash` with the public point `publicKey`: with w = s⁻¹, u₁ = e·w, u₂ = r·w (mod n), the
    /// x-coordinate of u₁·G + u₂·Q must equal r mod n; e is the hash cut to the bit length of n.
    func verifyECDSA(hash: [UInt8], plainSignature: [UInt8], publicKey: [UInt8]) throws -> Bool {
        try state.withLockAndContext { c, context in
            let size = c.order.byteCount
            guard plainSignature.count == 2 * size else { return false }
            let r = try context.number(Array(plainSignature[0..<size]))
            let s = try context.number(Array(plainSignature[size...]))
            let one = try context.number(word: 1)
            for value in [r, s] {
                guard ChipBigNumber.compare(value, one) >= 0, ChipBigNumber.compare(value, c.order) < 0 else { return false }
            }
            let e = try context.number(hash)
            let excess = hash.count * 8 - c.order.bitCount
            if excess > 0 { try ChipOpenSSL.check(BN_rshift(e.pointer, e.pointer, Int32(excess)), "BN_rshift") }
            let w = try context.number()
            guard BN_mod_inverse(w.pointer, s.pointer, c.order.pointer, context.pointer) != nil else {
                ERR_clear_error()
                return false
            }
            let u1 = try context.number()
            let u2 = try context.number()
            try ChipOpenSSL.check(BN_mod_mul(u1.pointer, e.pointer, w.pointer, c.order.pointer, context.pointer), "BN_mod_mul")
            try ChipOpenSSL.check(BN_mod_mul(u2.pointer, r.pointer, w.pointer, c.order.pointer, context.pointer), "BN_mod_mul")
            let q = try c.decode(publicKey, context)
            defer { EC_POINT_free(q) }
            let sum = try c.newPoint()
            defer { EC_POINT_free(sum) }
            try ChipOpenSSL.check(EC_POINT_mul(c.group, sum, u1.pointer, q, u2.pointer, context.pointer), "EC_POINT_mul")
            guard EC_POINT_is_at_infinity(c.group, sum) == 0 else { return false }
            let x = try context.number()
            try ChipOpenSSL.check(EC_POINT_get_affine_coordinates(c.group, sum, x.pointer, nil, context.pointer), "EC_POINT_get_affine_coordinates")
            let v = try context.number()
            try ChipOpenSSL.check(BN_nnmod(v.pointer, x.pointer, c.order.pointer, context.pointer), "BN_nnmod")
            return ChipBigNumber.compare(v, r) == 0
        }
    }
}

// MARK: Points (under the lock)

extension ChipECGroup.State {
    fileprivate var group: OpaquePointer { groupHandle.pointer }

    fileprivate func newPoint() throws(ChipCryptoError) -> OpaquePointer {
        guard let point = EC_POINT_new(group) else { throw .openSSL("EC_POINT_new") }
        return point
    }

    /// `04 || x || y` to a point, checked: uncompressed, on the curve, not infinity, in the subgroup
    /// of order n when the cofactor is not 1. The caller frees the point.
    fileprivate func decode(_ encoded: [UInt8], _ context: ChipBigNumberContext) throws -> OpaquePointer {
        guard encoded.count == 1 + 2 * fieldByteCount, encoded.first == 0x04 else {
            throw ChipCryptoError.invalidInput("not an uncompressed point of this curve")
        }
        let point = try newPoint()
        guard EC_POINT_oct2point(group, point, encoded, encoded.count, context.pointer) == 1,
              EC_POINT_is_on_curve(group, point, context.pointer) == 1,
              EC_POINT_is_at_infinity(group, point) == 0
        else {
            EC_POINT_free(point)
            ERR_clear_error()
            throw ChipCryptoError.invalidInput("point not on the curve")
        }
        if ChipBigNumber.compare(cofactor, try context.number(word: 1)) != 0 {
            let check = try newPoint()
            defer { EC_POINT_free(check) }
            try ChipOpenSSL.check(EC_POINT_mul(group, check, nil, point, order.pointer, context.pointer), "EC_POINT_mul")
            guard EC_POINT_is_at_infinity(group, check) == 1 else {
                EC_POINT_free(point)
                throw ChipCryptoError.invalidInput("point outside the subgroup of order n")
            }
        }
        return point
    }

    /// `peer · k`, refusing the point at infinity. The caller frees the point.
    fileprivate func multiply(_ peer: [UInt8], by privateKey: [UInt8], _ context: ChipBigNumberContext) throws -> OpaquePointer {
        let point = try decode(peer, context)
        defer { EC_POINT_free(point) }
        let k = try context.number(privateKey)
        let result = try newPoint()
        try ChipOpenSSL.check(EC_POINT_mul(group, result, nil, point, k.pointer, context.pointer), "EC_POINT_mul")
        return result
    }

    /// The point uncompressed; `consuming`: the point is freed.
    func encode(_ point: OpaquePointer, consuming: Bool = false, _ context: ChipBigNumberContext) throws(ChipCryptoError) -> [UInt8] {
        defer { if consuming { EC_POINT_free(point) } }
        guard EC_POINT_is_at_infinity(group, point) == 0 else { throw .invalidInput("the point at infinity") }
        var output = [UInt8](repeating: 0, count: 1 + 2 * fieldByteCount)
        let written = EC_POINT_point2oct(group, point, POINT_CONVERSION_UNCOMPRESSED, &output, output.count, context.pointer)
        guard written == output.count else { throw .openSSL("EC_POINT_point2oct") }
        return output
    }
}

/// Owns an `EC_GROUP` and frees it in `deinit`.
final class ChipECGroupHandle {
    let pointer: OpaquePointer

    init(owning group: OpaquePointer) {
        pointer = group
    }

    deinit {
        EC_GROUP_free(pointer)
    }
}
