import MRTDChipCrypto
import MRTDCore
import MRTDCrypto
import SwiftASN1

/// What the virtual chip hands its own cryptography (`MRTDChipCrypto`): domain parameters and
/// cipher suites as the chip's files state them, and its random source. Only data crosses here; no
/// product crypto type computes anything on the chip's protocol path.
extension ChipDomainParameters {
    /// The chip's copy of parsed domain parameters (EF.CardAccess, DG14).
    init(_ parameters: DomainParameters) {
        switch parameters {
        case .standardized(let id): self = .standardized(id)
        case .namedCurve(let oid): self = .namedCurve(oid.description)
        case .ec(let curve):
            self = .curve(p: curve.p, a: curve.a, b: curve.b, generator: curve.generator, order: curve.order, cofactor: curve.cofactor)
        case .dh(let group): self = .modp(p: group.p, g: group.g, q: group.q)
        }
    }
}

extension ChipCipher {
    /// The chip cipher of a cipher suite named in a PACEInfo or ChipAuthenticationInfo.
    init(_ cipher: SymmetricCipher) {
        switch cipher {
        case .tripleDES: self = .tripleDES
        case .aes128: self = .aes128
        case .aes192: self = .aes192
        case .aes256: self = .aes256
        }
    }
}

extension VirtualChipConfiguration {
    /// The chip's random source as its own crypto takes it (nonces, keys, K.IC).
    var drawRandom: (Int) throws -> [UInt8] {
        let random = self.random
        return { count in try random.randomBytes(count) }
    }
}
