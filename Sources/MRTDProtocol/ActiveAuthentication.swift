import MRTDCore
public import MRTDCrypto

/// What Active Authentication found.
public struct ActiveAuthenticationOutcome: Sendable, Equatable {
    /// The challenge sent (RND.IFD).
    public var challenge: [UInt8]
    /// The chip's answer (the signature, as received).
    public var signature: [UInt8]
    /// The signature check.
    public var verification: ActiveAuthenticationVerification
    /// `RSA` or `EC`.
    public var keyType: ActiveAuthenticationPublicKey.KeyType
    /// Modulus or order length in bits.
    public var keyBits: Int
}

/// Active Authentication, Doc 9303-11 §6.1: the chip signs a fresh 8-byte challenge with the private
/// key whose public half is in DG15 (a challenge-response that a copied chip cannot answer).
public enum ActiveAuthentication {
    /// Sends INTERNAL AUTHENTICATE (`00 88 00 00`, Le 00) with `challenge` (a caller's 8 bytes) or
    /// else 8 random bytes from `random`, and
    /// verifies the answer with `publicKey`; ECDSA uses `ecdsaDigest` (ActiveAuthenticationInfo's
    /// signatureAlgorithm), or tries each SHA when it is `nil`.
    ///
    /// - Throws: `ProtocolError.commandFailed` when the chip refuses the command; transport and SM
    ///   errors as is. A wrong signature is not thrown: it is in the outcome.
    public static func perform(
        channel: ChipChannel, publicKey: ActiveAuthenticationPublicKey, ecdsaDigest: DigestAlgorithm?,
        random: any RandomSource, challenge given: [UInt8]? = nil
    ) async throws -> ActiveAuthenticationOutcome {
        let challenge: [UInt8]
        if let given {
            // Doc 9303-11 §6.1.2: RND.IFD is 8 bytes; callers validate it before the read.
            precondition(given.count == 8, "an Active Authentication challenge is 8 bytes")
            challenge = given
        } else {
            do {
                challenge = try random.randomBytes(8)
            } catch let error as CryptoError {
                throw ProtocolError.crypto(error)
            }
        }
        // Le = 00, in a short APDU when the protected signature fits a short answer (RSA up to about
        // 1800 bits, every ECDSA key) or the link has no extended length.
        let byteLength = (publicKey.bits + 7) / 8
        let signatureLength = publicKey.keyType == .rsa ? byteLength : 2 * byteLength + 8
        let fitsShort = SecureMessaging.protectedResponseLength(
            plain: signatureLength, blockSize: channel.secureMessaging?.cipher.blockSize ?? 8) <= 256
        let response = try await channel.send(
            CommandAPDU(ins: 0x88, p1: 0, p2: 0, data: challenge, ne: 256),
            shortAnswer: fitsShort || !channel.capabilities.extendedLength)
        guard response.statusWord.isSuccess else {
            throw ProtocolError.commandFailed("INTERNAL AUTHENTICATE", response.statusWord)
        }
        let verification: ActiveAuthenticationVerification
        do {
            verification = try publicKey.verify(challenge: challenge, signature: response.data, ecdsaDigest: ecdsaDigest)
        } catch {
            throw ProtocolError.crypto(error)
        }
        return ActiveAuthenticationOutcome(
            challenge: challenge, signature: response.data, verification: verification, keyType: publicKey.keyType, keyBits: publicKey.bits)
    }
}
