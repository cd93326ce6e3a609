public import MRTDCore
public import MRTDCrypto
import SwiftASN1

/// Why Chip Authentication failed. Each has a stable code (RELIABILITY CA-01, CA-02): a failure is
/// reported as such, never silently replaced by the BAC/PACE session.
public enum ChipAuthenticationFailure: Sendable, Equatable, CaseIterable, CodedError {
    /// The protocol OID is not one of `id-CA-*` or not supported.
    case unsupportedProtocol
    /// DG14 is not valid SecurityInfos, or lists Chip Authentication without a usable key.
    case securityInfosMalformed
    /// DG14's ChipAuthenticationInfo names a key ID no ChipAuthenticationPublicKeyInfo has, or
    /// several keys leave the choice open.
    case keyIDMismatch
    /// The chip's DH/ECDH public key cannot be decoded or is not a valid group element.
    case publicKeyInvalid
    /// The domain parameters are invalid or do not fit the protocol (a DH key for ECDH, ...).
    case domainParametersInvalid
    /// The chip refused the key reference (MSE answered 6A88 or similar).
    case keyReferenceRejected
    /// The chip refused a step with another status word.
    case chipRefused
    /// The GENERAL AUTHENTICATE answer is malformed, or its authentication token (CA v2) is wrong.
    case chipResponseInvalid
    /// The chip did not answer under the session keys CA derived: it does not hold the private key
    /// (a clone), or it kept its old keys (RELIABILITY CA-02).
    case keyConfirmationFailed

    /// The stable code.
    public var errorCode: ErrorCode {
        switch self {
        case .unsupportedProtocol: .chipAuthenticationUnsupported
        case .securityInfosMalformed: .chipAuthenticationDG14Malformed
        case .keyIDMismatch: .chipAuthenticationKeyIDMismatch
        case .publicKeyInvalid: .chipAuthenticationPublicKeyInvalid
        case .domainParametersInvalid: .chipAuthenticationDomainParametersInvalid
        case .keyReferenceRejected: .chipAuthenticationKeyReferenceRejected
        case .chipRefused: .chipAuthenticationRefused
        case .chipResponseInvalid: .chipAuthenticationResponseInvalid
        case .keyConfirmationFailed: .chipAuthenticationKeyConfirmationFailed
        }
    }

    /// The stable code, as a string.
    public var code: String { errorCode.rawValue }
}

/// What Chip Authentication runs with: a ChipAuthenticationInfo's protocol and key ID and the
/// matching ChipAuthenticationPublicKeyInfo's key (Doc 9303-11 §9.2.5, §9.2.6).
public struct ChipAuthenticationParameters: Sendable, Equatable {
    /// The CA protocol.
    public var caProtocol: ChipAuthenticationProtocol
    /// ChipAuthenticationInfo.version: 1 (Doc 9303) or 2 (TR-03110 CA v2, nonce and token).
    public var version: Int
    /// The key ID, when the chip's keys have one.
    public var keyID: Int?
    /// Whether the key ID goes into MSE (tag `84`): whenever DG14 gives one (required when the chip
    /// has several keys; real chips with one key accept it too, and other readers send it).
    public var sendKeyID: Bool
    /// The chip's static public key (SubjectPublicKeyInfo, DER).
    public var publicKeyInfo: [UInt8]

    /// Parameters for one CA run; ``select(from:)`` derives them from DG14.
    public init(caProtocol: ChipAuthenticationProtocol, version: Int = 1, keyID: Int? = nil, sendKeyID: Bool = false,
                publicKeyInfo: [UInt8]) {
        self.caProtocol = caProtocol
        self.version = version
        self.keyID = keyID
        self.sendKeyID = sendKeyID
        self.publicKeyInfo = publicKeyInfo
    }
}

/// What a successful Chip Authentication established (the channel already uses the new keys).
public struct ChipAuthenticationOutcome: Sendable, Equatable {
    /// The CA protocol that ran.
    public var caProtocol: ChipAuthenticationProtocol
    /// `ECDH` or `DH`.
    public var keyAgreement: KeyAgreementAlgorithm
    /// The chip key's curve or group (`brainpoolP256r1`, `RFC5114-2048-224`), `nil` when not standard.
    public var domainName: String?
    /// The bit length of the field / of `p`.
    public var fieldBits: Int
    /// 1 or 2 (2 when the chip answered with a nonce and token).
    public var version: Int
    /// The key ID of the chip key used, if DG14 gives one.
    public var keyID: Int?
    /// The terminal's ephemeral public key (`PK_PCD`): Terminal Authentication signs its compressed
    /// form (BSI TR-03110-1 §4.4 with TA version 1 after CA).
    public var terminalPublicKey: [UInt8] = []
}

/// Chip Authentication, Doc 9303-11 §6.2 / BSI TR-03110-1 §3.4: an ephemeral-static (EC)DH key
/// agreement with the chip's DG14 key, then secure messaging restarts under keys derived from the
/// shared secret. Only a chip holding the private key can answer under them (implicit
/// authentication, confirmed by the first protected exchange after it).
public enum ChipAuthentication {
    /// Runs CA on `channel` (which must be in secure messaging) and switches it to the new keys.
    ///
    /// Draws the ephemeral private key from `random` (see ``KeyAgreementKeyPair/generate(on:random:)``).
    ///
    /// - Throws: `ProtocolError.chipAuthentication` with the failure; transport and SM errors as is.
    public static func perform(
        channel: ChipChannel, parameters: ChipAuthenticationParameters, random: any RandomSource
    ) async throws -> ChipAuthenticationOutcome {
        let mechanism = parameters.caProtocol
        let chipKey = try chipPublicKey(parameters)

        // §6.2.1 step 1: the terminal's ephemeral key on the chip key's domain parameters.
        let ephemeral: KeyAgreementKeyPair
        do {
            ephemeral = try KeyAgreementKeyPair.generate(on: chipKey, random: random)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        let terminalPublicKey = ephemeral.encodedPublicKey
        guard terminalPublicKey != chipKey.encodedPublicKey else {
            throw ProtocolError.chipAuthentication(.publicKeyInvalid, detail: "chip key equals the ephemeral key")
        }
        var sharedSecret: [UInt8]
        do {
            sharedSecret = try ephemeral.sharedSecret(with: chipKey)
        } catch {
            throw ProtocolError.chipAuthentication(.publicKeyInvalid, detail: "key agreement failed")
        }
        defer { secureWipe(&sharedSecret) }

        let keyReference = parameters.sendKeyID ? parameters.keyID.map(MinimalBytes.bigEndian(nonNegative:)) : nil
        var version = 1
        var keyInput = sharedSecret
        defer { secureWipe(&keyInput) }
        var token: [UInt8]?
        if mechanism.usesGeneralAuthenticate {
            // AES variant (§6.2.4.2): MSE:Set AT with the protocol OID, then GENERAL AUTHENTICATE.
            var mseData = TLV.encode(tag: 0x80, value: mechanism.oid.contentOctets)
            if let keyReference { mseData += TLV.encode(tag: 0x84, value: keyReference) }
            let mse = try await send(CommandAPDU(ins: 0x22, p1: 0x41, p2: 0xA4, data: mseData), on: channel, step: "MSE:Set AT")
            try check(mse.statusWord, step: "MSE:Set AT")
            let gaData = TLV.encode(tag: 0x7C, value: TLV.encode(tag: 0x80, value: terminalPublicKey))
            // Le = 00 in a short APDU: the answer is at most 7C{81 nonce, 82 token}.
            let ga = try await send(CommandAPDU(ins: 0x86, p1: 0, p2: 0, data: gaData, ne: 256), on: channel,
                                    step: "GENERAL AUTHENTICATE", shortAnswer: true)
            try check(ga.statusWord, step: "GENERAL AUTHENTICATE")
            if let (nonce, chipToken) = try parseGeneralAuthenticateResponse(ga.data) {
                // CA version 2 (TR-03110-3 §B.3): keys from K || r_PICC, token over our key.
                version = 2
                keyInput = sharedSecret + nonce
                token = chipToken
            } else if parameters.version >= 2 {
                throw ProtocolError.chipAuthentication(.chipResponseInvalid, detail: "CA version 2 answer without nonce and token")
            }
        } else {
            // 3DES variant (§6.2.4.1): MSE:Set KAT with the ephemeral key (tag 91) and key ID (tag 84).
            var data = TLV.encode(tag: 0x91, value: terminalPublicKey)
            if let keyReference { data += TLV.encode(tag: 0x84, value: keyReference) }
            let mse = try await send(CommandAPDU(ins: 0x22, p1: 0x41, p2: 0xA6, data: data), on: channel, step: "MSE:Set KAT")
            try check(mse.statusWord, step: "MSE:Set KAT")
        }

        // §9.7.1: KS_Enc = KDF(K, 1), KS_MAC = KDF(K, 2) for the protocol's cipher.
        var ksEnc = KeyDerivation.derive(sharedSecret: keyInput, counter: KeyDerivation.encryptionCounter, cipher: mechanism.smCipher)
        var ksMac = KeyDerivation.derive(sharedSecret: keyInput, counter: KeyDerivation.macCounter, cipher: mechanism.smCipher)
        if let token {
            let expected = try authenticationToken(ksMac: ksMac, caProtocol: mechanism, terminalPublicKey: terminalPublicKey)
            guard constantTimeEqual(expected, token) else {
                secureWipe(&ksEnc)
                secureWipe(&ksMac)
                throw ProtocolError.chipAuthentication(.chipResponseInvalid, detail: "authentication token does not verify")
            }
        }
        // §6.2.1 step 5 / §9.8.2: secure messaging restarts with the new keys and SSC = 0; the old
        // keys are wiped by the channel.
        channel.startSecureMessaging(SecureMessaging(
            cipher: mechanism.smCipher, kEnc: ksEnc, kMac: ksMac,
            ssc: [UInt8](repeating: 0, count: mechanism.smCipher.blockSize)))
        return ChipAuthenticationOutcome(
            caProtocol: mechanism, keyAgreement: chipKey.algorithm, domainName: chipKey.domainName,
            fieldBits: chipKey.fieldBits, version: version, keyID: parameters.keyID,
            terminalPublicKey: terminalPublicKey)
    }

    /// Decodes and validates the chip's static key (RELIABILITY CA-01).
    static func chipPublicKey(_ parameters: ChipAuthenticationParameters) throws -> KeyAgreementPublicKey {
        let key: KeyAgreementPublicKey
        do {
            key = try KeyAgreementPublicKey(subjectPublicKeyInfo: parameters.publicKeyInfo)
        } catch CryptoError.unsupported(let what) {
            throw ProtocolError.chipAuthentication(.domainParametersInvalid, detail: what)
        } catch {
            throw ProtocolError.chipAuthentication(.publicKeyInvalid, detail: "the DG14 key cannot be decoded")
        }
        guard key.algorithm == parameters.caProtocol.keyAgreement else {
            throw ProtocolError.chipAuthentication(
                .domainParametersInvalid, detail: "\(key.algorithm.rawValue) key for \(parameters.caProtocol.name)")
        }
        switch key.problem() {
        case .publicKeyInvalid?:
            throw ProtocolError.chipAuthentication(.publicKeyInvalid, detail: "the DG14 key is not a valid group element")
        case .domainParametersInvalid?:
            throw ProtocolError.chipAuthentication(.domainParametersInvalid, detail: "the DG14 domain parameters fail validation")
        case nil:
            return key
        }
    }

    /// The private key reference of tag `84`: the key ID as a minimal big-endian unsigned integer.
    /// Sends one CA command; a refusal in plain (the chip left secure messaging) is a CA failure
    /// that ends the session.
    private static func send(
        _ command: CommandAPDU, on channel: ChipChannel, step: String, shortAnswer: Bool = false
    ) async throws -> ResponseAPDU {
        do {
            return try await channel.send(command, shortAnswer: shortAnswer)
        } catch ProtocolError.unprotectedResponse(let sw) {
            throw ProtocolError.chipAuthentication(
                sw == .referencedDataNotFound ? .keyReferenceRejected : .chipRefused,
                detail: "\(step) answered \(sw) without secure messaging; the session ended")
        }
    }

    private static func check(_ sw: StatusWord, step: String) throws {
        guard !sw.isSuccess else { return }
        if sw == .referencedDataNotFound {
            throw ProtocolError.chipAuthentication(.keyReferenceRejected, detail: "\(step) answered \(sw)")
        }
        throw ProtocolError.chipAuthentication(.chipRefused, detail: "\(step) answered \(sw)")
    }

    /// `7C` empty (version 1) → `nil`; `7C { 81 nonce, 82 token }` (version 2) → both.
    static func parseGeneralAuthenticateResponse(_ data: [UInt8]) throws -> ([UInt8], [UInt8])? {
        if data.isEmpty { return nil }
        do {
            let outer = try TLV.parse(data, expecting: 0x7C)
            let children = try outer.children()
            if children.isEmpty { return nil }
            guard let nonce = children.first(where: { $0.tag == 0x81 }), let token = children.first(where: { $0.tag == 0x82 }),
                  token.value.count == 8
            else { throw ProtocolError.chipAuthentication(.chipResponseInvalid, detail: "GENERAL AUTHENTICATE answer lacks nonce or token") }
            return (nonce.bytes, token.bytes)
        } catch let error as ProtocolError {
            throw error
        } catch {
            throw ProtocolError.chipAuthentication(.chipResponseInvalid, detail: "GENERAL AUTHENTICATE answer: \(error)")
        }
    }

    /// The CA v2 token (TR-03110-3 §A.2.4 / Doc 9303-11 §4.4.3.4): `MAC(KS_MAC, PK_PCD)` over the
    /// public key data object `7F49 { 06 OID, 86 point | 84 y }`, first 8 bytes of the CMAC.
    public static func authenticationToken(
        ksMac: [UInt8], caProtocol mechanism: ChipAuthenticationProtocol, terminalPublicKey: [UInt8]
    ) throws -> [UInt8] {
        let object: [UInt8]
        do {
            object = try PublicKeyDataObject.encode(
                protocolOID: mechanism.oid, keyAgreement: mechanism.keyAgreement, publicKey: terminalPublicKey)
        } catch {
            throw ProtocolError.chipAuthentication(.unsupportedProtocol, detail: mechanism.oid.description)
        }
        do {
            return Array(try AESCMAC.mac(key: ksMac, data: object).prefix(8))
        } catch {
            throw ProtocolError.crypto(error)
        }
    }
}
