internal import CLibCrypto
import FoundationEssentials
public import MRTDCore
import Synchronization

/// A prime-order subgroup of Z_p* for DH key agreement and the PACE mappings: the RFC 5114 groups
/// of Doc 9303-11 §9.5.1 (IDs 0-2) or explicit parameters. Arithmetic is plain BIGNUM modular
/// exponentiation (constant-time for secret exponents); the deprecated `DH_*` API is not used.
public final class DHGroup: KeyAgreementGroup, Sendable {
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

    /// The group's OpenSSL objects. `@unchecked Sendable`: BIGNUMs and a BN_CTX are not thread-safe;
    /// they live only inside `state` and are used only under its lock (`withLockInScope`).
    fileprivate struct State: @unchecked Sendable {
        let context: BigNumberContext
        let p: BigNumber
        let g: BigNumber
        let q: BigNumber?
        let pMinusOne: BigNumber
    }

    private let state: Mutex<State>

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
        let p = try scope.keep(BigNumber(parameters.p))
        let g = try scope.keep(BigNumber(parameters.g))
        let q = try parameters.q.map { try scope.keep(BigNumber($0)) }
        let pMinusOne = try scope.keep(BigNumber(copying: p.pointer))
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
        state = Mutex(State(context: try BigNumberContext(), p: p, g: g, q: q, pMinusOne: pMinusOne))
    }

    // MARK: KeyAgreementGroup

    public func generatePrivateKey(using random: any RandomSource) throws -> [UInt8] {
        // With q known the exponent lies in [1, q-1]; otherwise in [1, p-2].
        try state.withLockInScope { s, _ in try BigNumber.randomBytes(below: s.q ?? s.pMinusOne, using: random) }
    }

    public func publicKey(privateKey: [UInt8], generator: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, _ in
            let base = try s.element(generator)
            // An unsigned integer, minimal (Doc 9303-11 §9.4.1): not padded to the length of p.
            return try s.power(base, secret: privateKey).bytes()
        }
    }

    public func validatePublicKey(_ publicKey: [UInt8]) throws {
        try state.withLockInScope { s, scope in
            let y = try s.element(publicKey)
            if let q = s.q {
                // y^q = 1 (mod p): y lies in the subgroup of order q (TR-03110-3 §A.2.2, NIST SP 800-56A §5.6.2.3.1).
                let r = try scope.keep(BigNumber())
                try CryptoError.check(BN_mod_exp(r.pointer, y.pointer, q.pointer, s.p.pointer, s.context.pointer), "BN_mod_exp")
                guard r.isOne else { throw CryptoError.invalidInput("public key: not in the subgroup of order q") }
            }
        }
    }

    public func sharedElement(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, _ in
            let shared = try s.power(try s.element(peerPublicKey), secret: privateKey)
            guard !shared.isOne else { throw CryptoError.invalidInput("shared secret is 1") }
            // The full length of p, leading zeros kept (ARCHITECTURE pitfalls; Doc 9303-11 §9.6).
            return try shared.bytes(length: fieldByteCount)
        }
    }

    public func sharedSecret(privateKey: [UInt8], peerPublicKey: [UInt8]) throws -> [UInt8] {
        try sharedElement(privateKey: privateKey, peerPublicKey: peerPublicKey)
    }

    public func genericMapping(nonce: [UInt8], sharedElement: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, scope in
            // g^ = g^s · H mod p (Doc 9303-11 §4.4.3.3.1).
            let h = try s.element(sharedElement)
            let gs = try s.power(s.g, secret: nonce)
            let mapped = try scope.keep(BigNumber())
            try CryptoError.check(BN_mod_mul(mapped.pointer, gs.pointer, h.pointer, s.p.pointer, s.context.pointer), "BN_mod_mul")
            guard !mapped.isOne else { throw CryptoError.invalidInput("mapped generator is 1") }
            return try mapped.bytes(length: fieldByteCount)
        }
    }

    public func integratedMapping(pseudoRandom: [UInt8]) throws -> [UInt8] {
        try state.withLockInScope { s, scope in
            // g^ = R_p^((p-1)/q) mod p (Doc 9303-11 §4.4.3.3.2).
            guard let q = s.q else { throw CryptoError.unsupported("DH Integrated Mapping needs the group order q") }
            let (p, pMinusOne, context) = (s.p, s.pMinusOne, s.context)
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
        try state.withLockInScope { s, scope in
            guard let q = s.q else { return }
            let (p, g, context) = (s.p, s.g, s.context)
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
}

// MARK: Helpers (under the lock)

extension DHGroup.State {
    /// A group element in (1, p-1).
    fileprivate func element(_ bytes: [UInt8]) throws -> BigNumber {
        let scope = LifetimeScope()
        defer { withExtendedLifetime(scope) {} }
        guard !bytes.isEmpty, bytes.count <= p.byteCount else {
            throw CryptoError.invalidInput("public key: \(bytes.count) bytes for a \(p.byteCount)-byte modulus")
        }
        let y = try scope.keep(BigNumber(bytes))
        let one = try scope.keep(BigNumber(word: 1))
        guard BigNumber.compare(y, one) > 0, BigNumber.compare(y, pMinusOne) < 0 else {
            throw CryptoError.invalidInput("public key: outside (1, p-1)")
        }
        return y
    }

    /// `base ^ secret mod p` in constant time.
    fileprivate func power(_ base: BigNumber, secret: [UInt8]) throws -> BigNumber {
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
