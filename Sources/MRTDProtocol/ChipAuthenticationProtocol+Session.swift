public import MRTDCore
public import MRTDCrypto

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
