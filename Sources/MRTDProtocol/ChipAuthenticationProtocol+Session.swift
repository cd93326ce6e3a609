import MRTDCore
import MRTDCrypto

extension ChipAuthenticationProtocol {
    /// The default when DG14 has a key but no ChipAuthenticationInfo: the 3DES variant of the key's
    /// algorithm (Doc 9303-11 §9.2.5: ChipAuthenticationInfo may be absent for the 3DES protocols).
    public static func tripleDESDefault(for keyAgreement: KeyAgreementAlgorithm) -> ChipAuthenticationProtocol {
        ChipAuthenticationProtocol(keyAgreement: keyAgreement, cipher: .tripleDES)
    }

    /// Whether the AES variant (MSE:Set AT + GENERAL AUTHENTICATE) applies; 3DES uses MSE:Set KAT
    /// (Doc 9303-11 §6.2.4).
    public var usesGeneralAuthenticate: Bool { cipher != .tripleDES }

    /// The secure messaging cipher of the session keys CA derives.
    public var smCipher: SMCipher {
        switch cipher {
        case .tripleDES: .tripleDES
        case .aes128: .aes128
        case .aes192: .aes192
        case .aes256: .aes256
        }
    }
}

/// DER content bytes of an OBJECT IDENTIFIER (X.690 §8.19) from its dotted form.
enum ObjectIdentifierContent {
    static func encode(_ dotted: String) -> [UInt8]? {
        let parts = dotted.split(separator: ".")
        let arcs = parts.compactMap { UInt64($0) }
        guard arcs.count >= 2, arcs.count == parts.count, arcs[0] <= 2 else { return nil }
        var out: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            out += chunk
        }
        return out
    }
}
