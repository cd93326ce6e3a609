internal import CLibCrypto
import FoundationEssentials
import MRTDCore

/// The raw OpenSSL operations a key agreement needs, timed without any of this library's wrapping
/// (no byte encoding, validation or allocation beyond OpenSSL's own): the floor that protocol
/// benchmarks compare against. For measurement only.
public enum OpenSSLFloor {
    /// Median process CPU time per operation, in microseconds (each operation timed on its own, so
    /// one slow sample on a loaded machine does not move it).
    public struct Costs: Sendable {
        /// Key generation: a random scalar below n and `k·G` (fixed-base multiplication).
        public var keyGeneration: Double
        /// `k·P` for an arbitrary point P (variable-base multiplication).
        public var scalarMultiplication: Double
        /// `a·G + b·P` (the Generic Mapping's double multiplication).
        public var doubleMultiplication: Double
        /// `x^e mod p` with a full-size exponent, p the curve's prime (the Integrated Mapping's
        /// square-root step).
        public var modularExponentiation: Double

        /// The terminal's EC operations in one PACE Generic Mapping run: map key pair (key
        /// generation), `H = k·P`, `G^ = s·G + H`, ephemeral key on `G^` (`k·P`, arbitrary base),
        /// `K = k·P`. Microseconds.
        public var paceGenericMapping: Double { keyGeneration + 3 * scalarMultiplication + doubleMultiplication }
        /// PACE Integrated Mapping: ephemeral key on `G^` and `K` (two `k·P`) plus the point encoding
        /// (one full-size modular exponentiation). Microseconds.
        public var paceIntegratedMapping: Double { 2 * scalarMultiplication + modularExponentiation }
        /// PACE-CAM: Generic Mapping plus the check `PK_map = CA_IC · PK_IC` (one `k·P`). Microseconds.
        public var paceChipAuthenticationMapping: Double { paceGenericMapping + scalarMultiplication }
    }

    /// Median process CPU time per DH operation, in microseconds.
    public struct DHCosts: Sendable {
        /// `x^e mod p`, constant time, `e` as long as the group order `q` (key generation, shared
        /// secret, `g^s` of the mapping).
        public var exponentiation: Double
        /// `y^q mod p` (the subgroup check on each of the chip's public keys, TR-03110-3 §A.2.2).
        public var subgroupCheck: Double

        /// The terminal's DH work in one PACE Generic Mapping run: map key pair, `H = Y^x`, `g^s`
        /// (times H), ephemeral key on `g^`, `K = Y^x` (five exponentiations) and the subgroup
        /// checks of the chip's two public keys. Microseconds.
        public var paceGenericMapping: Double { 5 * exponentiation + 2 * subgroupCheck }
    }

    /// Times `iterations` of each DH operation in a standardized group (IDs 0-2).
    public static func measure(dhGroup: DHGroup.StandardGroup, iterations: Int) throws -> DHCosts {
        let parameters = dhGroup.parameters
        guard let q = parameters.q else { throw CryptoError.unsupported("DH group without q") }
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        let context = try BigNumberContext()
        let p = try scope.keep(BigNumber(parameters.p))
        let g = try scope.keep(BigNumber(parameters.g))
        let order = try scope.keep(BigNumber(q))
        let exponent = try scope.keep(BigNumber(BigNumber.randomBytes(below: order, using: SystemRandom())))
        BN_set_flags(exponent.pointer, BN_FLG_CONSTTIME)
        let y = try scope.keep(BigNumber())
        let r = try scope.keep(BigNumber())
        guard BN_mod_exp_mont_consttime(y.pointer, g.pointer, exponent.pointer, p.pointer, context.pointer, nil) == 1 else {
            throw CryptoError.openSSLQueue("BN_mod_exp_mont_consttime")
        }
        func time(_ body: () -> Int32) throws -> Double { try median(iterations, body) }
        let exponentiation = try time {
            BN_mod_exp_mont_consttime(r.pointer, y.pointer, exponent.pointer, p.pointer, context.pointer, nil)
        }
        let subgroupCheck = try time { BN_mod_exp(r.pointer, y.pointer, order.pointer, p.pointer, context.pointer) }
        return DHCosts(exponentiation: exponentiation, subgroupCheck: subgroupCheck)
    }

    /// Times `iterations` of each operation on a standardized curve (IDs 8-18).
    public static func measure(curve: ECGroup.StandardCurve, iterations: Int) throws -> Costs {
        guard let group = EC_GROUP_new_by_curve_name(curve.nid) else { throw CryptoError.openSSLQueue("EC_GROUP_new_by_curve_name") }
        defer { EC_GROUP_free(group) }
        guard let ctx = BN_CTX_new(), let k = BN_new(), let point = EC_POINT_new(group), let result = EC_POINT_new(group),
              let order = EC_GROUP_get0_order(group), let generator = EC_GROUP_get0_generator(group)
        else { throw CryptoError.openSSLQueue("setup") }
        defer {
            BN_CTX_free(ctx)
            BN_clear_free(k)
            EC_POINT_free(point)
            EC_POINT_free(result)
        }
        BN_set_flags(k, BN_FLG_CONSTTIME)
        guard BN_rand_range(k, order) == 1, EC_POINT_mul(group, point, k, nil, nil, ctx) == 1 else {
            throw CryptoError.openSSLQueue("setup")
        }
        func time(_ body: () -> Int32) throws -> Double { try median(iterations, body) }
        let keyGeneration = try time {
            guard BN_rand_range(k, order) == 1 else { return 0 }
            return EC_POINT_mul(group, result, k, nil, nil, ctx)
        }
        let scalarMultiplication = try time { EC_POINT_mul(group, result, nil, point, k, ctx) }
        let doubleMultiplication = try time { EC_POINT_mul(group, result, k, point, k, ctx) }
        guard let p = BN_new(), let x = BN_new(), let r = BN_new() else { throw CryptoError.openSSLQueue("BN_new") }
        defer {
            BN_free(p)
            BN_free(x)
            BN_free(r)
        }
        guard EC_GROUP_get_curve(group, p, nil, nil, ctx) == 1, BN_rand_range(x, p) == 1 else {
            throw CryptoError.openSSLQueue("EC_GROUP_get_curve")
        }
        let modularExponentiation = try time { BN_mod_exp(r, x, p, p, ctx) }
        _ = generator
        return Costs(keyGeneration: keyGeneration, scalarMultiplication: scalarMultiplication,
                     doubleMultiplication: doubleMultiplication, modularExponentiation: modularExponentiation)
    }
}

/// The median process CPU time of `iterations` runs of `body` (an OpenSSL call returning 1 on
/// success), in microseconds.
private func median(_ iterations: Int, _ body: () -> Int32) throws -> Double {
    var samples: [Double] = []
    samples.reserveCapacity(max(1, iterations))
    for _ in 0..<max(1, iterations) {
        let start = processCPUMicroseconds()
        guard body() == 1 else { throw CryptoError.openSSLQueue("floor operation") }
        samples.append(processCPUMicroseconds() - start)
    }
    samples.sort()
    return samples[samples.count / 2]
}

/// CPU time consumed by this process so far, in microseconds (`CLOCK_PROCESS_CPUTIME_ID`): unlike
/// wall time, not inflated by other processes competing for the cores.
public func processCPUMicroseconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts)
    return Double(ts.tv_sec) * 1_000_000 + Double(ts.tv_nsec) / 1000
}
