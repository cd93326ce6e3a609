public import SwiftASN1
internal import CLibCrypto
import FoundationEssentials
public import MRTDCore
import Synchronization

/// An elliptic curve over a prime field, for ECDH and the PACE mappings: one of the standardized
/// curves of Doc 9303-11 §9.5.1 or explicit parameters (BSI TR-03110-3 §A.2.1.1).
///
/// Owns its `EC_GROUP` and a `BN_CTX`; calls are serialised by a lock (see ``KeyAgreementGroup``).
public final class ECGroup: KeyAgreementGroup, Sendable {
    /// The standardized elliptic curves and their domain parameter IDs (Doc 9303-11 Table 9.5.1).
    public enum StandardCurve: Int, CaseIterable, Sendable {
        case p192 = 8
        case brainpoolP192r1 = 9
        case p224 = 10
        case brainpoolP224r1 = 11
        case p256 = 12
        case brainpoolP256r1 = 13
        case brainpoolP320r1 = 14
        case p384 = 15
        case brainpoolP384r1 = 16
        case brainpoolP512r1 = 17
        case p521 = 18

        /// `brainpoolP256r1`, `NIST-P-256`, ...
        public var name: String {
            switch self {
            case .p192: "NIST-P-192"
            case .p224: "NIST-P-224"
            case .p256: "NIST-P-256"
            case .p384: "NIST-P-384"
            case .p521: "NIST-P-521"
            case .brainpoolP192r1: "brainpoolP192r1"
            case .brainpoolP224r1: "brainpoolP224r1"
            case .brainpoolP256r1: "brainpoolP256r1"
            case .brainpoolP320r1: "brainpoolP320r1"
            case .brainpoolP384r1: "brainpoolP384r1"
            case .brainpoolP512r1: "brainpoolP512r1"
            }
        }

        /// The curve's OID (RFC 5480, RFC 5639).
        public var oid: ASN1ObjectIdentifier {
            switch self {
            case .p192: [1, 2, 840, 10045, 3, 1, 1]
            case .p224: [1, 3, 132, 0, 33]
            case .p256: [1, 2, 840, 10045, 3, 1, 7]
            case .p384: [1, 3, 132, 0, 34]
            case .p521: [1, 3, 132, 0, 35]
            case .brainpoolP192r1: [1, 3, 36, 3, 3, 2, 8, 1, 1, 3]
            case .brainpoolP224r1: [1, 3, 36, 3, 3, 2, 8, 1, 1, 5]
            case .brainpoolP256r1: [1, 3, 36, 3, 3, 2, 8, 1, 1, 7]
            case .brainpoolP320r1: [1, 3, 36, 3, 3, 2, 8, 1, 1, 9]
            case .brainpoolP384r1: [1, 3, 36, 3, 3, 2, 8, 1, 1, 11]
            case .brainpoolP512r1: [1, 3, 36, 3, 3, 2, 8, 1, 1, 13]
            }
        }

        var nid: Int32 {
            switch self {
            case .p192: NID_X9_62_prime192v1
            case .p224: NID_secp224r1
            case .p256: NID_X9_62_prime256v1
            case .p384: NID_secp384r1
            case .p521: NID_secp521r1
            case .brainpoolP192r1: NID_brainpoolP192r1
            case .brainpoolP224r1: NID_brainpoolP224r1
            case .brainpoolP256r1: NID_brainpoolP256r1
            case .brainpoolP320r1: NID_brainpoolP320r1
            case .brainpoolP384r1: NID_brainpoolP384r1
            case .brainpoolP512r1: NID_brainpoolP512r1
            }
        }
    }

    /// The curve's OpenSSL objects. `@unchecked Sendable`: an EC_GROUP, its BIGNUMs and a BN_CTX are
    /// not thread-safe; they live only inside `state` and are used only under its lock (`withLockInScope`).
    fileprivate struct State: @unchecked Sendable {
        let group: ECGroupHandle
        let context: BigNumberContext
        let p: BigNumber
        let a: BigNumber
        let b: BigNumber
        let order: BigNumber
        let cofactor: BigNumber
        let fieldByteCount: Int
    }

    private let state: Mutex<State>

    public var keyAgreement: KeyAgreementAlgorithm { .ecdh }
    public let name: String
    public let fieldByteCount: Int
    public let primeBitCount: Int
    /// The byte length of the group order n (the length of a private key).
    public let orderByteCount: Int
    public let orderBitCount: Int
    public var isStandardized: Bool { standardCurve != nil }
    public let generator: [UInt8]
    /// The standardized curve, when the group is one.
    public let standardCurve: StandardCurve?

    /// A standardized curve.
    public convenience init(standard curve: StandardCurve) throws {
        guard let group = EC_GROUP_new_by_curve_name(curve.nid) else {
            throw CryptoError.openSSLQueue("EC_GROUP_new_by_curve_name(\(curve.name))")
        }
        try self.init(taking: group, name: curve.name, standard: curve)
    }

    /// A curve from explicit parameters. The group is checked (generator on the curve, order).
    /// When the parameters are those of a standardized curve, the group is that curve.
    public convenience init(explicit parameters: ECDomainParameters) throws {
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        let context = try BigNumberContext()
        let p = try scope.keep(BigNumber(parameters.p))
        let a = try scope.keep(BigNumber(parameters.a))
        let b = try scope.keep(BigNumber(parameters.b))
        guard let group = EC_GROUP_new_curve_GFp(p.pointer, a.pointer, b.pointer, context.pointer) else {
            throw CryptoError.openSSLQueue("EC_GROUP_new_curve_GFp")
        }
        guard let g = EC_POINT_new(group) else {
            EC_GROUP_free(group)
            throw CryptoError.openSSLQueue("EC_POINT_new")
        }
        defer { EC_POINT_free(g) }
        let order = try scope.keep(BigNumber(parameters.order))
        let cofactor = try scope.keep(BigNumber(parameters.cofactor))
        let decoded = parameters.generator.withUnsafeBufferPointer {
            EC_POINT_oct2point(group, g, $0.baseAddress, $0.count, context.pointer)
        }
        guard decoded == 1, EC_GROUP_set_generator(group, g, order.pointer, cofactor.pointer) == 1,
              EC_GROUP_check(group, context.pointer) == 1
        else {
            EC_GROUP_free(group)
            throw CryptoError.invalidInput("explicit curve parameters do not form a valid group")
        }
        // Name it after the standardized curve with the same parameters, if there is one.
        for curve in StandardCurve.allCases {
            guard let named = EC_GROUP_new_by_curve_name(curve.nid) else { continue }
            defer { EC_GROUP_free(named) }
            if EC_GROUP_cmp(named, group, context.pointer) == 0 {
                EC_GROUP_free(group)
                try self.init(standard: curve)
                return
            }
        }
        // EC_GROUP_cmp does not match every curve OpenSSL implements with its own method (P-224,
        // P-256, P-521): compare the parameters with OpenSSL's table of named curves as well.
        let nid = EC_GROUP_check_named_curve(group, 0, context.pointer)
        CryptoError.clearOpenSSLQueue()
        if let curve = StandardCurve.allCases.first(where: { $0.nid == nid }) {
            EC_GROUP_free(group)
            try self.init(standard: curve)
            return
        }
        try self.init(taking: group, name: "explicit", standard: nil)
    }

    private init(taking group: OpaquePointer, name: String, standard: StandardCurve?) throws {
        let handle = ECGroupHandle(taking: group)
        self.name = name
        standardCurve = standard
        let context = try BigNumberContext()
        let (p, a, b) = (try BigNumber(), try BigNumber(), try BigNumber())
        try CryptoError.check(EC_GROUP_get_curve(group, p.pointer, a.pointer, b.pointer, context.pointer), "EC_GROUP_get_curve")
        guard let n = EC_GROUP_get0_order(group), let h = EC_GROUP_get0_cofactor(group) else {
            throw CryptoError.openSSLQueue("EC_GROUP_get0_order")
        }
        let order = try BigNumber(copying: n)
        fieldByteCount = p.byteCount
        primeBitCount = p.bitCount
        orderByteCount = order.byteCount
        orderBitCount = order.bitCount
        guard let g = EC_GROUP_get0_generator(group) else { throw CryptoError.openSSLQueue("EC_GROUP_get0_generator") }
        let curve = State(
            group: handle, context: context, p: p, a: a, b: b, order: order, cofactor: try BigNumber(copying: h),
            fieldByteCount: fieldByteCount)
        generator = try curve.encode(pointer: g)
        state = Mutex(curve)
    }

    // MARK: KeyAgreementGroup

    public func generatePrivateKey(using random: any RandomSource) throws -> [UInt8] {
        try state.withLockInScope { s, _ in try BigNumber.randomBytes(below: s.order, using: random) }
    }

    public func publicKey(privateKey: [UInt8], generator: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, scope in
            let k = try s.scalar(privateKey)
            if generator == self.generator {
                // The group's own generator: OpenSSL's fixed-base path (precomputed tables where the
                // curve has them) is several times faster than a general multiplication.
                let result = try scope.keep(ECPointHandle(group: s.group.pointer))
                try CryptoError.check(EC_POINT_mul(s.group.pointer, result.pointer, k.pointer, nil, nil, s.context.pointer), "EC_POINT_mul")
                return try s.encode(result)
            }
            return try s.encode(try s.multiply(try s.decode(generator), k))
        }
    }

    public func validatePublicKey(_ publicKey: [UInt8]) throws {
        try state.withLockInScope { s, scope in
            let point = try s.decode(publicKey)
            if BigNumber.compare(s.cofactor, try scope.keep(BigNumber(word: 1))) != 0 {
                // Outside prime-order curves, the point must also lie in the subgroup of order n.
                let group = s.group.pointer
                let check = try scope.keep(ECPointHandle(group: group))
                try CryptoError.check(EC_POINT_mul(group, check.pointer, nil, point.pointer, s.order.pointer, s.context.pointer), "EC_POINT_mul")
                guard EC_POINT_is_at_infinity(group, check.pointer) == 1 else {
                    throw CryptoError.invalidInput("public key: point outside the subgroup of order n")
                }
            }
        }
    }

    public func sharedElement(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, _ in
            let shared = try s.multiply(try s.decode(peerPublicKey), try s.scalar(privateKey))
            return try s.encode(shared)
        }
    }

    public func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        var element = try sharedElement(privateKey: privateKey, peerPublicKey: peerPublicKey)
        defer { secureWipe(&element) }
        return Array(element[1...fieldByteCount])
    }

    public func genericMapping(nonce: [UInt8], sharedElement: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { curve, scope in
            let group = curve.group.pointer
            let h = try curve.decode(sharedElement)
            let s = try scope.keep(BigNumber(nonce))
            let mapped = try scope.keep(ECPointHandle(group: group))
            // G^ = s·G + 1·H in one call (Doc 9303-11 §4.4.3.3.1).
            let one = try scope.keep(BigNumber(word: 1))
            try CryptoError.check(
                EC_POINT_mul(group, mapped.pointer, s.pointer, h.pointer, one.pointer, curve.context.pointer), "EC_POINT_mul")
            guard EC_POINT_is_at_infinity(group, mapped.pointer) == 0 else {
                throw CryptoError.invalidInput("mapped generator is the point at infinity")
            }
            return try curve.encode(mapped)
        }
    }

    /// The point encoding of Doc 9303-11 Appendix B (simplified SWU, Brier et al.) for
    /// p ≡ 3 (mod 4), applied to `R_p = pseudoRandom mod p`, then multiplied by the cofactor.
    public func integratedMapping(pseudoRandom: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { curve, scope in
            let (p, a, b, cofactor, group) = (curve.p, curve.a, curve.b, curve.cofactor, curve.group.pointer)
            guard BN_is_bit_set(p.pointer, 0) == 1, BN_is_bit_set(p.pointer, 1) == 1 else {
                throw CryptoError.unsupported("Integrated Mapping on a curve with p ≢ 3 (mod 4) (\(name))")
            }
            let ctx = curve.context.pointer
            let m = p.pointer
            func new() throws -> BigNumber { try scope.keep(BigNumber()) }
            let t = try new()
            try CryptoError.check(BN_nnmod(t.pointer, try scope.keep(BigNumber(pseudoRandom)).pointer, m, ctx), "BN_nnmod")
            let zero = try new()
            let one = try scope.keep(BigNumber(word: 1))
            // 1. α = -t² mod p
            let t2 = try new()
            try CryptoError.check(BN_mod_sqr(t2.pointer, t.pointer, m, ctx), "BN_mod_sqr")
            let alpha = try new()
            try CryptoError.check(BN_mod_sub(alpha.pointer, zero.pointer, t2.pointer, m, ctx), "BN_mod_sub")
            // 2. X2 = -b · a⁻¹ · (1 + (α + α²)⁻¹) mod p
            let alpha2 = try new()
            try CryptoError.check(BN_mod_sqr(alpha2.pointer, alpha.pointer, m, ctx), "BN_mod_sqr")
            let sum = try new()
            try CryptoError.check(BN_mod_add(sum.pointer, alpha.pointer, alpha2.pointer, m, ctx), "BN_mod_add")
            let inverse = try new()
            guard BN_mod_inverse(inverse.pointer, sum.pointer, m, ctx) != nil else {
                throw CryptoError.invalidInput("Integrated Mapping: α + α² not invertible")
            }
            let onePlus = try new()
            try CryptoError.check(BN_mod_add(onePlus.pointer, one.pointer, inverse.pointer, m, ctx), "BN_mod_add")
            let aInverse = try new()
            guard BN_mod_inverse(aInverse.pointer, a.pointer, m, ctx) != nil else {
                throw CryptoError.unsupported("Integrated Mapping on a curve with a = 0")
            }
            let x2 = try new()
            try CryptoError.check(BN_mod_mul(x2.pointer, b.pointer, aInverse.pointer, m, ctx), "BN_mod_mul")
            try CryptoError.check(BN_mod_mul(x2.pointer, x2.pointer, onePlus.pointer, m, ctx), "BN_mod_mul")
            try CryptoError.check(BN_mod_sub(x2.pointer, zero.pointer, x2.pointer, m, ctx), "BN_mod_sub")
            // 3. X3 = α · X2 mod p
            let x3 = try new()
            try CryptoError.check(BN_mod_mul(x3.pointer, alpha.pointer, x2.pointer, m, ctx), "BN_mod_mul")
            // 4. h2 = X2³ + a·X2 + b mod p
            let h2 = try new()
            let tmp = try new()
            try CryptoError.check(BN_mod_sqr(h2.pointer, x2.pointer, m, ctx), "BN_mod_sqr")
            try CryptoError.check(BN_mod_mul(h2.pointer, h2.pointer, x2.pointer, m, ctx), "BN_mod_mul")
            try CryptoError.check(BN_mod_mul(tmp.pointer, a.pointer, x2.pointer, m, ctx), "BN_mod_mul")
            try CryptoError.check(BN_mod_add(h2.pointer, h2.pointer, tmp.pointer, m, ctx), "BN_mod_add")
            try CryptoError.check(BN_mod_add(h2.pointer, h2.pointer, b.pointer, m, ctx), "BN_mod_add")
            // 6. U = t³ · h2 mod p
            let u = try new()
            try CryptoError.check(BN_mod_mul(u.pointer, t2.pointer, t.pointer, m, ctx), "BN_mod_mul")
            try CryptoError.check(BN_mod_mul(u.pointer, u.pointer, h2.pointer, m, ctx), "BN_mod_mul")
            // 7. A = h2^(p - 1 - (p + 1)/4) mod p
            let exponent = try new()
            try CryptoError.check(BN_add(exponent.pointer, m, one.pointer), "BN_add")
            try CryptoError.check(BN_rshift(exponent.pointer, exponent.pointer, 2), "BN_rshift")
            try CryptoError.check(BN_sub(exponent.pointer, m, exponent.pointer), "BN_sub")
            try CryptoError.check(BN_sub(exponent.pointer, exponent.pointer, one.pointer), "BN_sub")
            let bigA = try new()
            try CryptoError.check(BN_mod_exp(bigA.pointer, h2.pointer, exponent.pointer, m, ctx), "BN_mod_exp")
            // 8./9. A²·h2 = 1 ? (X2, A·h2) : (X3, A·U)
            try CryptoError.check(BN_mod_sqr(tmp.pointer, bigA.pointer, m, ctx), "BN_mod_sqr")
            try CryptoError.check(BN_mod_mul(tmp.pointer, tmp.pointer, h2.pointer, m, ctx), "BN_mod_mul")
            let y = try new()
            let x: BigNumber
            if tmp.isOne {
                x = x2
                try CryptoError.check(BN_mod_mul(y.pointer, bigA.pointer, h2.pointer, m, ctx), "BN_mod_mul")
            } else {
                x = x3
                try CryptoError.check(BN_mod_mul(y.pointer, bigA.pointer, u.pointer, m, ctx), "BN_mod_mul")
            }
            let point = try scope.keep(ECPointHandle(group: group))
            guard EC_POINT_set_affine_coordinates(group, point.pointer, x.pointer, y.pointer, ctx) == 1 else {
                throw CryptoError.openSSLQueue("Integrated Mapping: point not on the curve")
            }
            if !cofactor.isOne {
                try CryptoError.check(EC_POINT_mul(group, point.pointer, nil, point.pointer, cofactor.pointer, ctx), "EC_POINT_mul")
            }
            guard EC_POINT_is_at_infinity(group, point.pointer) == 0 else {
                throw CryptoError.invalidInput("mapped generator is the point at infinity")
            }
            return try curve.encode(point)
        }
    }

    // MARK: Points

    /// `k · P` for a point `P` and a scalar `k`, for checks such as PACE-CAM's `CA_IC · PK_IC`.
    public func multiply(point: [UInt8], scalar: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, scope in
            try s.encode(try s.multiply(try s.decode(point), try scope.keep(BigNumber(scalar))))
        }
    }

    /// The group as explicit parameters (p, a, b, G, n, h), as a PACEDomainParameterInfo or a
    /// SubjectPublicKeyInfo with explicit parameters carries them.
    public var explicitParameters: ECDomainParameters {
        get throws {
            try state.withLockInScope { s, _ in
                ECDomainParameters(
                    p: try s.p.bytes(), a: try s.a.bytes(length: fieldByteCount), b: try s.b.bytes(length: fieldByteCount),
                    generator: generator, order: try s.order.bytes(), cofactor: try s.cofactor.bytes())
            }
        }
    }

    /// `P + Q` for two encoded points (each validated), encoded.
    public func add(_ p: [UInt8], _ q: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, scope in
            let group = s.group.pointer
            let a = try s.decode(p)
            let b = try s.decode(q)
            let sum = try scope.keep(ECPointHandle(group: group))
            try CryptoError.check(EC_POINT_add(group, sum.pointer, a.pointer, b.pointer, s.context.pointer), "EC_POINT_add")
            withExtendedLifetime((a, b)) {}
            guard EC_POINT_is_at_infinity(group, sum.pointer) == 0 else {
                throw CryptoError.invalidInput("point sum is the point at infinity")
            }
            return try s.encode(sum)
        }
    }

    /// `a · b⁻¹ mod n` for two scalars: the chip's PACE-CAM data `CA_IC = SK_map,IC · SK_IC⁻¹`
    /// (Doc 9303-11 §4.4.3.5.2), so that `CA_IC · PK_IC = PK_map,IC`.
    public func multiplyByInverse(_ a: [UInt8], _ b: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, scope in
            let (order, context) = (s.order, s.context)
            let x = try s.scalar(a)
            let y = try s.scalar(b)
            let inverse = try scope.keep(BigNumber())
            guard BN_mod_inverse(inverse.pointer, y.pointer, order.pointer, context.pointer) != nil else {
                throw CryptoError.invalidInput("scalar not invertible")
            }
            let product = try scope.keep(BigNumber())
            try CryptoError.check(BN_mod_mul(product.pointer, x.pointer, inverse.pointer, order.pointer, context.pointer), "BN_mod_mul")
            withExtendedLifetime((x, y)) {}
            return try product.bytes(length: orderByteCount)
        }
    }
}

// MARK: Helpers (under the lock)

extension ECGroup.State {
    /// Decodes a point (uncompressed or compressed) and checks it lies on the curve and is not the
    /// point at infinity.
    fileprivate func decode(_ bytes: [UInt8]) throws -> ECPointHandle {
        let group = self.group.pointer
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        let point = try scope.keep(ECPointHandle(group: group))
        guard bytes.first == 0x04 || bytes.first == 0x02 || bytes.first == 0x03 else {
            throw CryptoError.invalidInput("public key: not an encoded point")
        }
        let ok = bytes.withUnsafeBufferPointer {
            EC_POINT_oct2point(group, point.pointer, $0.baseAddress, $0.count, context.pointer)
        }
        guard ok == 1 else {
            CryptoError.clearOpenSSLQueue()
            throw CryptoError.invalidInput("public key: point not on the curve")
        }
        guard EC_POINT_is_on_curve(group, point.pointer, context.pointer) == 1 else {
            throw CryptoError.invalidInput("public key: point not on the curve")
        }
        guard EC_POINT_is_at_infinity(group, point.pointer) == 0 else {
            throw CryptoError.invalidInput("public key: the point at infinity")
        }
        return point
    }

    fileprivate func scalar(_ bytes: [UInt8]) throws -> BigNumber {
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        let k = try scope.keep(BigNumber(bytes))
        guard !k.isZero, BigNumber.compare(k, order) < 0 else {
            throw CryptoError.invalidInput("private key out of range")
        }
        BN_set_flags(k.pointer, BN_FLG_CONSTTIME)
        return k
    }

    fileprivate func multiply(_ point: ECPointHandle, _ k: BigNumber) throws -> ECPointHandle {
        let group = self.group.pointer
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        let result = try scope.keep(ECPointHandle(group: group))
        try CryptoError.check(EC_POINT_mul(group, result.pointer, nil, point.pointer, k.pointer, context.pointer), "EC_POINT_mul")
        guard EC_POINT_is_at_infinity(group, result.pointer) == 0 else {
            throw CryptoError.invalidInput("scalar multiplication gave the point at infinity")
        }
        return result
    }

    /// The uncompressed encoding of a point.
    func encode(_ point: ECPointHandle) throws -> [UInt8] {
        try encode(pointer: point.pointer)
    }

    func encode(pointer point: OpaquePointer) throws -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 1 + 2 * fieldByteCount)
        let written = out.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(group.pointer, point, POINT_CONVERSION_UNCOMPRESSED, $0.baseAddress, $0.count, context.pointer)
        }
        guard written == out.count else { throw CryptoError.openSSLQueue("EC_POINT_point2oct") }
        return out
    }
}

/// Owns an `EC_POINT` and clears and frees it in `deinit`.
final class ECPointHandle {
    let pointer: OpaquePointer

    init(group: OpaquePointer) throws(CryptoError) {
        guard let point = EC_POINT_new(group) else { throw .openSSLQueue("EC_POINT_new") }
        pointer = point
    }

    deinit {
        EC_POINT_clear_free(pointer)
    }
}

extension CryptoError {
    static func check(_ status: Int32, _ operation: String) throws(CryptoError) {
        guard status == 1 else { throw openSSLQueue(operation) }
    }
}
