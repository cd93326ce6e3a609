internal import CLibCrypto

/// The point encoding of PACE Integrated Mapping on prime curves with p ≡ 3 (mod 4) (Doc 9303-11
/// §4.4.3.3.2, after Brier et al., "Efficient Indifferentiable Hashing into Ordinary Elliptic
/// Curves"), with the input reduced mod p first:
///
///     1. α = -t² mod p
///     2. X2 = -b · a⁻¹ · (1 + (α + α²)⁻¹) mod p
///     3. X3 = α · X2 mod p
///     4. h2 = X2³ + a·X2 + b mod p
///     5. h3 = X3³ + a·X3 + b mod p
///     6. U = t³ · h2 mod p
///     7. A = h2^(p - 1 - (p + 1)/4) mod p
///     8. A² · h2 = 1 (mod p) ? (X2, A·h2) : (X3, A·U)
enum ChipPointEncoding {
    static func map(
        _ pseudoRandom: [UInt8], p: OpaquePointer, a: OpaquePointer, b: OpaquePointer, scope: ChipBigNumberContext
    ) throws -> (x: ChipBigNumber, y: ChipBigNumber) {
        let context = scope.pointer
        guard BN_is_bit_set(p, 0) == 1, BN_is_bit_set(p, 1) == 1 else {
            throw ChipCryptoError.unsupported("Integrated Mapping needs p ≡ 3 (mod 4)")
        }
        guard BN_is_zero(a) == 0 else { throw ChipCryptoError.unsupported("Integrated Mapping on a curve with a = 0") }
        func value() throws -> ChipBigNumber { try scope.number() }
        func check(_ result: Int32, _ call: String) throws { try ChipOpenSSL.check(result, call) }
        let zero = try scope.number(word: 0)
        let one = try scope.number(word: 1)
        let t = try value()
        try check(BN_nnmod(t.pointer, try scope.number(pseudoRandom).pointer, p, context), "BN_nnmod")

        let t2 = try value()
        try check(BN_mod_sqr(t2.pointer, t.pointer, p, context), "BN_mod_sqr")
        let alpha = try value()
        try check(BN_mod_sub(alpha.pointer, zero.pointer, t2.pointer, p, context), "BN_mod_sub")

        let alphaSquared = try value()
        try check(BN_mod_sqr(alphaSquared.pointer, alpha.pointer, p, context), "BN_mod_sqr")
        let denominator = try value()
        try check(BN_mod_add(denominator.pointer, alpha.pointer, alphaSquared.pointer, p, context), "BN_mod_add")
        let inverse = try value()
        guard BN_mod_inverse(inverse.pointer, denominator.pointer, p, context) != nil else {
            ERR_clear_error()
            throw ChipCryptoError.invalidInput("Integrated Mapping: α + α² is 0")
        }
        let factor = try value()
        try check(BN_mod_add(factor.pointer, one.pointer, inverse.pointer, p, context), "BN_mod_add")
        let aInverse = try value()
        guard BN_mod_inverse(aInverse.pointer, a, p, context) != nil else {
            ERR_clear_error()
            throw ChipCryptoError.invalidInput("Integrated Mapping: a not invertible")
        }
        let x2 = try value()
        try check(BN_mod_mul(x2.pointer, b, aInverse.pointer, p, context), "BN_mod_mul")
        try check(BN_mod_mul(x2.pointer, x2.pointer, factor.pointer, p, context), "BN_mod_mul")
        try check(BN_mod_sub(x2.pointer, zero.pointer, x2.pointer, p, context), "BN_mod_sub")

        let x3 = try value()
        try check(BN_mod_mul(x3.pointer, alpha.pointer, x2.pointer, p, context), "BN_mod_mul")

        let h2 = try curveValue(x2, a: a, b: b, p: p, scope: scope)

        let u = try value()
        try check(BN_mod_sqr(u.pointer, t.pointer, p, context), "BN_mod_sqr")
        try check(BN_mod_mul(u.pointer, u.pointer, t.pointer, p, context), "BN_mod_mul")
        try check(BN_mod_mul(u.pointer, u.pointer, h2.pointer, p, context), "BN_mod_mul")

        // The exponent p - 1 - (p + 1)/4.
        let quarter = try value()
        guard BN_copy(quarter.pointer, p) != nil else { throw ChipCryptoError.openSSL("BN_copy") }
        try check(BN_add_word(quarter.pointer, 1), "BN_add_word")
        try check(BN_rshift(quarter.pointer, quarter.pointer, 2), "BN_rshift")
        let exponent = try value()
        guard BN_copy(exponent.pointer, p) != nil else { throw ChipCryptoError.openSSL("BN_copy") }
        try check(BN_sub_word(exponent.pointer, 1), "BN_sub_word")
        try check(BN_sub(exponent.pointer, exponent.pointer, quarter.pointer), "BN_sub")
        let bigA = try value()
        try check(BN_mod_exp(bigA.pointer, h2.pointer, exponent.pointer, p, context), "BN_mod_exp")

        let test = try value()
        try check(BN_mod_sqr(test.pointer, bigA.pointer, p, context), "BN_mod_sqr")
        try check(BN_mod_mul(test.pointer, test.pointer, h2.pointer, p, context), "BN_mod_mul")
        let y = try value()
        if test.isOne {
            try check(BN_mod_mul(y.pointer, bigA.pointer, h2.pointer, p, context), "BN_mod_mul")
            return (x2, y)
        }
        try check(BN_mod_mul(y.pointer, bigA.pointer, u.pointer, p, context), "BN_mod_mul")
        return (x3, y)
    }

    /// x³ + a·x + b mod p.
    private static func curveValue(
        _ x: ChipBigNumber, a: OpaquePointer, b: OpaquePointer, p: OpaquePointer, scope: ChipBigNumberContext
    ) throws -> ChipBigNumber {
        let context = scope.pointer
        let result = try scope.number()
        try ChipOpenSSL.check(BN_mod_sqr(result.pointer, x.pointer, p, context), "BN_mod_sqr")
        try ChipOpenSSL.check(BN_mod_mul(result.pointer, result.pointer, x.pointer, p, context), "BN_mod_mul")
        let ax = try scope.number()
        try ChipOpenSSL.check(BN_mod_mul(ax.pointer, a, x.pointer, p, context), "BN_mod_mul")
        try ChipOpenSSL.check(BN_mod_add(result.pointer, result.pointer, ax.pointer, p, context), "BN_mod_add")
        try ChipOpenSSL.check(BN_mod_add(result.pointer, result.pointer, b, p, context), "BN_mod_add")
        return result
    }
}
