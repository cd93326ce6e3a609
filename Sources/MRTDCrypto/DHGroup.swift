internal import CLibCrypto
import FoundationEssentials
public import MRTDCore
import Synchronization

/// A prime-order subgroup of Z_p* for DH key agreement and the PACE mappings: the RFC 5114 groups
/// of Doc 9303-11 §9.5.1 (IDs 0-2) or explicit parameters. Arithmetic is plain BIGNUM modular
/// exponentiation (constant-time for secret exponents); the deprecated `DH_*` API is not used.
// Invariant: the BIGNUMs and BN_CTX are only used inside `locked` (under `lock`); the rest is immutable.
public final class DHGroup: KeyAgreementGroup, @unchecked Sendable {
    /// The standardized DH groups (RFC 5114 §2.1-2.3).
    public enum StandardGroup: Int, CaseIterable, Sendable {
        case rfc5114_1024_160 = 0
        case rfc5114_2048_224 = 1
        case rfc5114_2048_256 = 2

        /// `RFC5114-1024-160`, ...
        public var name: String {
            switch self {
            case .rfc5114_1024_160: "RFC5114-1024-160"
            case .rfc5114_2048_224: "RFC5114-2048-224"
            case .rfc5114_2048_256: "RFC5114-2048-256"
            }
        }

        var parameters: DHDomainParameters {
            switch self {
            case .rfc5114_1024_160: DHDomainParameters(p: RFC5114.p1024, g: RFC5114.g1024, q: RFC5114.q160)
            case .rfc5114_2048_224: DHDomainParameters(p: RFC5114.p2048a, g: RFC5114.g2048a, q: RFC5114.q224)
            case .rfc5114_2048_256: DHDomainParameters(p: RFC5114.p2048b, g: RFC5114.g2048b, q: RFC5114.q256)
            }
        }
    }

    private let lock = Mutex(())
    private let context: BigNumberContext
    private let p: BigNumber
    private let g: BigNumber
    private let q: BigNumber?
    private let pMinusOne: BigNumber

    public var keyAgreement: KeyAgreementAlgorithm { .dh }
    public let name: String
    public let fieldByteCount: Int
    public let primeBitCount: Int
    public let generator: [UInt8]
    public let orderBitCount: Int
    /// The standardized group, when the group is one.
    public let standardGroup: StandardGroup?
    public var isStandardized: Bool { standardGroup != nil }
    /// The group's parameters (p, g, q), as an X9.42 SubjectPublicKeyInfo carries them.
    public let parameters: DHDomainParameters

    /// A standardized group.
    public convenience init(standard group: StandardGroup) throws {
        try self.init(parameters: group.parameters, name: group.name, standard: group)
    }

    /// A group from explicit parameters; named after the RFC 5114 group when it is one.
    public convenience init(explicit parameters: DHDomainParameters) throws {
        if let match = StandardGroup.allCases.first(where: {
            $0.parameters.p == parameters.p && $0.parameters.g == parameters.g
        }) {
            try self.init(standard: match)
        } else {
            try self.init(parameters: parameters, name: "explicit", standard: nil)
        }
    }

    private init(parameters: DHDomainParameters, name: String, standard: StandardGroup?) throws {
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        context = try BigNumberContext()
        p = try scope.keep(BigNumber(parameters.p))
        g = try scope.keep(BigNumber(parameters.g))
        q = try parameters.q.map { try scope.keep(BigNumber($0)) }
        pMinusOne = try scope.keep(BigNumber(copying: p.pointer))
        try CryptoError.check(BN_sub_word(pMinusOne.pointer, 1), "BN_sub_word")
        guard p.bitCount >= 1024, BN_is_odd(p.pointer) == 1 else {
            throw CryptoError.unsupported("DH modulus of \(p.bitCount) bits")
        }
        let one = try scope.keep(BigNumber(word: 1))
        guard BigNumber.compare(g, one) > 0, BigNumber.compare(g, pMinusOne) < 0 else {
            throw CryptoError.invalidInput("DH generator out of range")
        }
        self.name = name
        self.parameters = parameters
        standardGroup = standard
        orderBitCount = q?.bitCount ?? 0
        fieldByteCount = p.byteCount
        primeBitCount = p.bitCount
        generator = try g.bytes(length: p.byteCount)
    }

    /// Runs `body` under the lock with a scope that keeps its OpenSSL temporaries alive.
    private func locked<T>(_ body: (LifetimeScope) throws -> T) throws -> T {
        try lock.withLock { _ in
            let scope = LifetimeScope()
            defer { withExtendedLifetime(scope) {} }
            return try body(scope)
        }
    }

    // MARK: KeyAgreementGroup

    public func generatePrivateKey(using random: any RandomSource) throws -> [UInt8] {
        // With q known the exponent lies in [1, q-1]; otherwise in [1, p-2].
        try BigNumber.randomBytes(below: q ?? pMinusOne, using: random)
    }

    public func publicKey(privateKey: [UInt8], generator: [UInt8]) throws -> [UInt8] {
        try locked { scope in
            let base = try element(generator)
            // An unsigned integer, minimal (Doc 9303-11 §9.4.1): not padded to the length of p (issue 32).
            return try power(base, secret: privateKey).bytes()
        }
    }

    public func validatePublicKey(_ publicKey: [UInt8]) throws {
        try locked { scope in
            let y = try element(publicKey)
            if let q {
                // y^q = 1 (mod p): y lies in the subgroup of order q (TR-03110-3 §A.2.2, NIST SP 800-56A §5.6.2.3.1).
                let r = try scope.keep(BigNumber())
                try CryptoError.check(BN_mod_exp(r.pointer, y.pointer, q.pointer, p.pointer, context.pointer), "BN_mod_exp")
                guard r.isOne else { throw CryptoError.invalidInput("public key: not in the subgroup of order q") }
            }
        }
    }

    public func sharedElement(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try locked { scope in
            let shared = try power(try element(peerPublicKey), secret: privateKey)
            guard !shared.isOne else { throw CryptoError.invalidInput("shared secret is 1") }
            // The full length of p, leading zeros kept (ARCHITECTURE pitfalls; Doc 9303-11 §9.6).
            return try shared.bytes(length: fieldByteCount)
        }
    }

    public func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try sharedElement(privateKey: privateKey, peerPublicKey: peerPublicKey)
    }

    public func genericMapping(nonce: [UInt8], sharedElement: [UInt8]) throws -> [UInt8] {
        try locked { scope in
            // g^ = g^s · H mod p (Doc 9303-11 §4.4.3.3.1).
            let h = try element(sharedElement)
            let gs = try power(g, secret: nonce)
            let mapped = try scope.keep(BigNumber())
            try CryptoError.check(BN_mod_mul(mapped.pointer, gs.pointer, h.pointer, p.pointer, context.pointer), "BN_mod_mul")
            guard !mapped.isOne else { throw CryptoError.invalidInput("mapped generator is 1") }
            return try mapped.bytes(length: fieldByteCount)
        }
    }

    public func integratedMapping(pseudoRandom: [UInt8]) throws -> [UInt8] {
        try locked { scope in
            // g^ = R_p^((p-1)/q) mod p (Doc 9303-11 §4.4.3.3.2).
            guard let q else { throw CryptoError.unsupported("DH Integrated Mapping needs the group order q") }
            let rp = try scope.keep(BigNumber())
            try CryptoError.check(BN_nnmod(rp.pointer, try scope.keep(BigNumber(pseudoRandom)).pointer, p.pointer, context.pointer), "BN_nnmod")
            let exponent = try scope.keep(BigNumber())
            guard BN_div(exponent.pointer, nil, pMinusOne.pointer, q.pointer, context.pointer) == 1 else {
                throw CryptoError.openSSLQueue("BN_div")
            }
            let mapped = try scope.keep(BigNumber())
            try CryptoError.check(BN_mod_exp(mapped.pointer, rp.pointer, exponent.pointer, p.pointer, context.pointer), "BN_mod_exp")
            guard !mapped.isOne, !mapped.isZero else { throw CryptoError.invalidInput("mapped generator is 1") }
            return try mapped.bytes(length: fieldByteCount)
        }
    }

    /// Checks explicit parameters themselves (NIST SP 800-56A §5.5.2): p prime and, when q is known,
    /// q prime with `g^q = 1 (mod p)`. Without q (PKCS #3) only the structural checks of `init` apply:
    /// p need not be a safe prime.
    ///
    /// - Throws: `CryptoError.invalidInput` naming the failed check.
    func checkParameters() throws {
        guard let q else { return }
        try locked { scope in
            guard BN_check_prime(p.pointer, context.pointer, nil) == 1 else {
                CryptoError.clearOpenSSLQueue()
                throw CryptoError.invalidInput("DH modulus p is not prime")
            }
            guard BN_check_prime(q.pointer, context.pointer, nil) == 1 else {
                CryptoError.clearOpenSSLQueue()
                throw CryptoError.invalidInput("DH subgroup order q is not prime")
            }
            let r = try scope.keep(BigNumber())
            try CryptoError.check(BN_mod_exp(r.pointer, g.pointer, q.pointer, p.pointer, context.pointer), "BN_mod_exp")
            guard r.isOne else { throw CryptoError.invalidInput("DH generator is not of order q") }
        }
    }

    // MARK: Helpers (caller holds the lock)

    /// A group element in (1, p-1).
    private func element(_ bytes: [UInt8]) throws -> BigNumber {
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        guard !bytes.isEmpty, bytes.count <= fieldByteCount else {
            throw CryptoError.invalidInput("public key: \(bytes.count) bytes for a \(fieldByteCount)-byte modulus")
        }
        let y = try scope.keep(BigNumber(bytes))
        let one = try scope.keep(BigNumber(word: 1))
        guard BigNumber.compare(y, one) > 0, BigNumber.compare(y, pMinusOne) < 0 else {
            throw CryptoError.invalidInput("public key: outside (1, p-1)")
        }
        return y
    }

    /// `base ^ secret mod p` in constant time.
    private func power(_ base: BigNumber, secret: [UInt8]) throws -> BigNumber {
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        let x = try scope.keep(BigNumber(secret))
        guard !x.isZero else { throw CryptoError.invalidInput("private key is zero") }
        BN_set_flags(x.pointer, BN_FLG_CONSTTIME)
        let r = try scope.keep(BigNumber())
        try CryptoError.check(
            BN_mod_exp_mont_consttime(r.pointer, base.pointer, x.pointer, p.pointer, context.pointer, nil),
            "BN_mod_exp_mont_consttime")
        return r
    }
}
