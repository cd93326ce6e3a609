internal import CLibCrypto
import Synchronization

/// A MODP group on the chip side (Doc 9303-11 §4.4, §6.2; PKCS #3, RFC 5114): OpenSSL's `BN_*`
/// arithmetic called directly.
final class ChipDHGroup: ChipGroup, Sendable {
    let isEllipticCurve = false
    let fieldByteCount: Int
    let primeBitCount: Int
    let generator: [UInt8]

    /// The group's numbers. `@unchecked Sendable`: OpenSSL BIGNUMs are not thread-safe; they live only
    /// inside `state` and are used only under its lock (`withLockAndContext`).
    fileprivate struct State: @unchecked Sendable {
        let p: ChipBigNumber
        let pMinusOne: ChipBigNumber
        let g: ChipBigNumber
        let q: ChipBigNumber?
    }

    private let state: Mutex<State>

    init(p: [UInt8], g: [UInt8], q: [UInt8]?) throws(ChipCryptoError) {
        let numbers = State(
            p: try ChipBigNumber(p), pMinusOne: try ChipBigNumber(p), g: try ChipBigNumber(g),
            q: try q.map { bytes throws(ChipCryptoError) in try ChipBigNumber(bytes) })
        try ChipOpenSSL.check(BN_sub_word(numbers.pMinusOne.pointer, 1), "BN_sub_word")
        primeBitCount = numbers.p.bitCount
        fieldByteCount = numbers.p.byteCount
        generator = try numbers.g.bytes(length: fieldByteCount)
        state = Mutex(numbers)
    }

    func generatePrivateKey(random: (Int) throws -> [UInt8]) throws -> [UInt8] {
        // With q known the exponent lies in [1, q-1]; otherwise in [1, p-2].
        try state.withLockAndContext { s, _ in try ChipBigNumber.randomScalar(below: s.q ?? s.pMinusOne, random: random) }
    }

    func publicKey(privateKey: [UInt8], generator: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { s, context in try s.power(try s.element(generator, context), privateKey, context).bytes() }
    }

    func validatePublicKey(_ publicKey: [UInt8]) throws {
        try state.withLockAndContext { s, context in _ = try s.peer(publicKey, context) }
    }

    func sharedElement(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { s, context in
            try s.power(try s.peer(peerPublicKey, context), privateKey, context).bytes(length: fieldByteCount)
        }
    }

    func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try sharedElement(privateKey: privateKey, peerPublicKey: peerPublicKey)
    }

    func genericMapping(nonce: [UInt8], sharedElement: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { s, context in
            // g^ = g^s · H mod p.
            let h = try s.element(sharedElement, context)
            let mapped = try s.power(s.g, nonce, context)
            try ChipOpenSSL.check(BN_mod_mul(mapped.pointer, mapped.pointer, h.pointer, s.p.pointer, context.pointer), "BN_mod_mul")
            guard !mapped.isOne, !mapped.isZero else { throw ChipCryptoError.invalidInput("mapped generator is 1") }
            return try mapped.bytes(length: fieldByteCount)
        }
    }

    func integratedMapping(pseudoRandom: [UInt8]) throws -> [UInt8] {
        try state.withLockAndContext { s, context in
            // g^ = R_p^((p-1)/q) mod p.
            guard let q = s.q else { throw ChipCryptoError.unsupported("DH Integrated Mapping without the subgroup order q") }
            let (p, pMinusOne) = (s.p, s.pMinusOne)
            let reduced = try context.number()
            try ChipOpenSSL.check(BN_nnmod(reduced.pointer, try context.number(pseudoRandom).pointer, p.pointer, context.pointer), "BN_nnmod")
            let exponent = try context.number()
            try ChipOpenSSL.check(BN_div(exponent.pointer, nil, pMinusOne.pointer, q.pointer, context.pointer), "BN_div")
            let mapped = try context.number()
            try ChipOpenSSL.check(BN_mod_exp(mapped.pointer, reduced.pointer, exponent.pointer, p.pointer, context.pointer), "BN_mod_exp")
            guard !mapped.isOne, !mapped.isZero else { throw ChipCryptoError.invalidInput("mapped generator is 1") }
            return try mapped.bytes(length: fieldByteCount)
        }
    }
}

// MARK: Elements (under the lock)

extension ChipDHGroup.State {
    /// A value of at most p's length, as a number.
    fileprivate func element(_ bytes: [UInt8], _ context: ChipBigNumberContext) throws -> ChipBigNumber {
        guard !bytes.isEmpty, bytes.count <= p.byteCount else { throw ChipCryptoError.invalidInput("DH value of \(bytes.count) bytes") }
        return try context.number(bytes)
    }

    /// A peer's public value, checked: 1 < y < p - 1 and, with q known, y^q = 1 (mod p)
    /// (BSI TR-03110-3 §A.2.2).
    fileprivate func peer(_ bytes: [UInt8], _ context: ChipBigNumberContext) throws -> ChipBigNumber {
        let y = try element(bytes, context)
        guard ChipBigNumber.compare(y, try context.number(word: 1)) > 0, ChipBigNumber.compare(y, pMinusOne) < 0 else {
            throw ChipCryptoError.invalidInput("DH public value out of range")
        }
        if let q {
            let check = try context.number()
            try ChipOpenSSL.check(BN_mod_exp(check.pointer, y.pointer, q.pointer, p.pointer, context.pointer), "BN_mod_exp")
            guard check.isOne else { throw ChipCryptoError.invalidInput("DH public value outside the subgroup of order q") }
        }
        return y
    }

    /// `base ^ exponent mod p` in constant time.
    fileprivate func power(_ base: ChipBigNumber, _ exponent: [UInt8], _ context: ChipBigNumberContext) throws -> ChipBigNumber {
        let x = try context.number(exponent)
        BN_set_flags(x.pointer, BN_FLG_CONSTTIME)
        let result = try context.number()
        try ChipOpenSSL.check(BN_mod_exp(result.pointer, base.pointer, x.pointer, p.pointer, context.pointer), "BN_mod_exp")
        return result
    }
}
