public import MRTDCore
public import MRTDCrypto
import Synchronization
import MRTDChipCrypto
import MRTDProtocol
import SwiftASN1

/// The chip side of Chip Authentication and Active Authentication: the private keys behind DG14 and
/// DG15, and the faults the negative tests need.
public struct VirtualChipAuthentication: Sendable {
    /// One Chip Authentication key pair with its ChipAuthenticationInfo data.
    public struct ChipAuthenticationKey: Sendable {
        /// The key ID DG14 gives the key (matched against tag `84` of MSE).
        public var keyID: Int?
        /// The CA protocol the key serves (its cipher decides the new session keys).
        public var caProtocol: ChipAuthenticationProtocol
        /// 1 (Doc 9303) or 2 (TR-03110 CA v2: the GENERAL AUTHENTICATE answer carries a nonce and token).
        public var version: Int
        /// The chip's static key pair as DG14 publishes it (its public half).
        public var keyPair: KeyAgreementKeyPair
        /// The standardized domain parameter ID of the key's group (Doc 9303-11 §9.5.1).
        public var domainParameterID: Int
        /// The private key the chip computes with (its own crypto, `MRTDChipCrypto`), big-endian;
        /// `keyPair` holds the same key.
        public var privateKey: [UInt8]

        /// One CA key of the chip: `keyPair` must be the pair of `privateKey` on the group of
        /// `domainParameterID`.
        public init(
            keyID: Int?, caProtocol: ChipAuthenticationProtocol, version: Int = 1, keyPair: KeyAgreementKeyPair,
            domainParameterID: Int, privateKey: [UInt8]
        ) {
            self.keyID = keyID
            self.caProtocol = caProtocol
            self.version = version
            self.keyPair = keyPair
            self.domainParameterID = domainParameterID
            self.privateKey = privateKey
        }
    }

    /// Misbehaviour for negative tests (RELIABILITY CA-01, CA-02, AA).
    public struct Faults: OptionSet, Sendable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// After CA the chip keeps its old session keys (RELIABILITY CA-02).
        public static let keepsOldKeysAfterChipAuthentication = Faults(rawValue: 1)
        /// The chip computes CA with a private key other than the one DG14 publishes (a clone).
        public static let chipAuthenticationWithWrongPrivateKey = Faults(rawValue: 2)
        /// The Active Authentication signature has one bit flipped.
        public static let activeAuthenticationBadSignature = Faults(rawValue: 4)
        /// RSA Active Authentication signs with the ISO/IEC 9796-2 trailer `AA` (neither `BC` nor `xx CC`).
        public static let activeAuthenticationWrongTrailer = Faults(rawValue: 16)
        /// The chip refuses CA's MSE with a plain 6A88 and leaves secure messaging.
        public static let refusesChipAuthenticationInPlain = Faults(rawValue: 8)
    }

    /// The DG14 key pairs.
    public var chipAuthenticationKeys: [ChipAuthenticationKey]
    /// The DG15 private key (RSA or EC).
    public var activeAuthenticationKey: PrivateKey?
    /// RSA: the ISO/IEC 9796-2 hash (trailer `BC` for SHA-1, else `xx CC`); EC: the ECDSA hash.
    public var activeAuthenticationDigest: DigestAlgorithm
    /// ECDSA signatures as plain `r || s` (BSI TR-03111) or, when `false`, DER.
    public var ecdsaPlainSignatures: Bool
    /// Misbehaviour switched on.
    public var faults: Faults
    /// Chip Authentication's MSE:Set KAT / MSE:Set AT is refused with this status word, under
    /// secure messaging (TR-03105-5.1 ISO7816_D_15).
    public var chipAuthenticationRefusal: StatusWord? = nil
    /// INTERNAL AUTHENTICATE (Active Authentication) is refused with this status word, under secure
    /// messaging, DG15 present (the emrtd-differential-harness case TC-AA-01: 6982).
    public var activeAuthenticationRefusal: StatusWord? = nil
    /// The terminal's ephemeral Chip Authentication public keys, in the order received (what
    /// ISO7816_D_10 checks for freshness).
    public let receivedTerminalKeys = ReceivedKeys()

    /// A log the chip's copies share (the configuration is a value).
    public final class ReceivedKeys: Sendable {
        private let keys = Mutex<[[UInt8]]>([])
        public init() {}
        public var all: [[UInt8]] { keys.withLock { $0 } }
        func append(_ key: [UInt8]) { keys.withLock { $0.append(key) } }
    }

    /// The chip side of CA and AA; usually built by ``AuthenticationFixture/make(chipAuthentication:activeAuthentication:dg14Faults:chipFaults:)``.
    public init(
        chipAuthenticationKeys: [ChipAuthenticationKey] = [], activeAuthenticationKey: PrivateKey? = nil,
        activeAuthenticationDigest: DigestAlgorithm = .sha1, ecdsaPlainSignatures: Bool = true, faults: Faults = []
    ) {
        self.chipAuthenticationKeys = chipAuthenticationKeys
        self.activeAuthenticationKey = activeAuthenticationKey
        self.activeAuthenticationDigest = activeAuthenticationDigest
        self.ecdsaPlainSignatures = ecdsaPlainSignatures
        self.faults = faults
    }
}

/// The virtual chip's CA/AA progress.
struct VirtualChipAuthenticationState: Sendable {
    /// The key chosen by MSE:Set AT, waiting for GENERAL AUTHENTICATE.
    var pendingKeyIndex: Int?
    /// Session keys to switch to once the current answer has gone out under the old ones.
    var pendingSecureMessaging: ChipSecureMessaging?
    /// Whether the CA session keys are in force.
    var chipAuthenticated = false
    /// INS of every command that arrived protected by the CA session keys.
    var commandsUnderChipAuthenticationKeys: [UInt8] = []
}

extension VirtualChip {
    /// Whether Chip Authentication switched the session keys (for tests).
    public var chipAuthenticationCompleted: Bool { authenticationState.chipAuthenticated }

    /// The INS bytes of the commands that arrived under the Chip Authentication keys, in order.
    public var commandsUnderChipAuthenticationKeys: [UInt8] { authenticationState.commandsUnderChipAuthenticationKeys }

    /// Called after a protected answer went out: records the command and returns the session to
    /// switch to, if CA produced one (Doc 9303-11 §6.2: the answer to the CA command itself is still
    /// protected with the old keys).
    func secureMessagingAfterResponse(to ins: UInt8) -> ChipSecureMessaging? {
        if authenticationState.chipAuthenticated {
            authenticationState.commandsUnderChipAuthenticationKeys.append(ins)
        }
        guard var next = authenticationState.pendingSecureMessaging else { return nil }
        authenticationState.pendingSecureMessaging = nil
        if configuration.authentication?.faults.contains(.keepsOldKeysAfterChipAuthentication) == true {
            next.wipe()
            return nil
        }
        authenticationState.chipAuthenticated = true
        return next
    }

    /// Handles MSE:Set KAT / MSE:Set AT for CA, GENERAL AUTHENTICATE after it, and INTERNAL
    /// AUTHENTICATE; `nil` for every other command (left to the rest of the chip).
    func handleAuthentication(_ command: CommandAPDU) -> ResponseAPDU? {
        guard let authentication = configuration.authentication else { return nil }
        switch (command.ins, command.p1, command.p2) {
        case (0x22, 0x41, let p2) where (p2 == 0xA4 || p2 == 0xA6) && authentication.faults.contains(.refusesChipAuthenticationInPlain):
            secureMessaging?.wipe()
            secureMessaging = nil
            return ResponseAPDU(statusWord: .referencedDataNotFound)
        case (0x22, 0x41, 0xA4), (0x22, 0x41, 0xA6):
            if let refusal = authentication.chipAuthenticationRefusal, isAuthenticated { return ResponseAPDU(statusWord: refusal) }
            return command.p2 == 0xA6 ? mseSetKAT(command, authentication) : mseSetATForChipAuthentication(command, authentication)
        case (0x86, 0x00, 0x00) where authenticationState.pendingKeyIndex != nil:
            return generalAuthenticate(command, authentication)
        case (0x88, 0x00, 0x00):
            return internalAuthenticate(command, authentication)
        default:
            return nil
        }
    }

    // MARK: Chip Authentication

    /// Doc 9303-11 §6.2.4.1: the 3DES variant.
    private func mseSetKAT(_ command: CommandAPDU, _ authentication: VirtualChipAuthentication) -> ResponseAPDU {
        guard isAuthenticated else { return ResponseAPDU(statusWord: .securityStatusNotSatisfied) }
        guard let objects = try? TLV.parseAll(command.data), let publicKey = objects.first(where: { $0.tag == 0x91 }) else {
            return ResponseAPDU(statusWord: .incorrectData)
        }
        guard let index = chipAuthenticationKeyIndex(objects.first { $0.tag == 0x84 }?.bytes, authentication) else {
            return ResponseAPDU(statusWord: .referencedDataNotFound)
        }
        guard var secret = agree(publicKey.bytes, key: authentication.chipAuthenticationKeys[index], authentication) else {
            return ResponseAPDU(statusWord: .incorrectData)
        }
        eacState.noteChipAuthentication(terminalKey: publicKey.bytes, keyAgreement: authentication.chipAuthenticationKeys[index].caProtocol.keyAgreement)
        authentication.receivedTerminalKeys.append(publicKey.bytes)
        defer { chipWipe(&secret) }
        guard let session = try? ChipSecureMessaging(cipher: .tripleDES, sharedSecret: secret) else {
            return ResponseAPDU(statusWord: .noPreciseDiagnosis)
        }
        authenticationState.pendingSecureMessaging = session
        return ResponseAPDU(statusWord: .success)
    }

    /// Doc 9303-11 §6.2.4.2: the AES variant, first step.
    private func mseSetATForChipAuthentication(_ command: CommandAPDU, _ authentication: VirtualChipAuthentication) -> ResponseAPDU {
        guard isAuthenticated else { return ResponseAPDU(statusWord: .securityStatusNotSatisfied) }
        guard let objects = try? TLV.parseAll(command.data), let oid = objects.first(where: { $0.tag == 0x80 }),
              let requested = try? ASN1ObjectIdentifier(derEncoded: TLV.encode(tag: 0x06, value: oid.value))
        else { return ResponseAPDU(statusWord: .incorrectData) }
        guard let index = chipAuthenticationKeyIndex(objects.first { $0.tag == 0x84 }?.bytes, authentication) else {
            return ResponseAPDU(statusWord: .referencedDataNotFound)
        }
        guard authentication.chipAuthenticationKeys[index].caProtocol.oid == requested else {
            return ResponseAPDU(statusWord: .referencedDataNotFound)
        }
        authenticationState.pendingKeyIndex = index
        return ResponseAPDU(statusWord: .success)
    }

    /// Doc 9303-11 §6.2.4.2 / TR-03110-3 §B.3: GENERAL AUTHENTICATE with `7C { 80 PK_PCD }`.
    private func generalAuthenticate(_ command: CommandAPDU, _ authentication: VirtualChipAuthentication) -> ResponseAPDU {
        guard let index = authenticationState.pendingKeyIndex else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
        authenticationState.pendingKeyIndex = nil
        let key = authentication.chipAuthenticationKeys[index]
        guard let outer = try? TLV.parse(command.data, expecting: 0x7C), let children = try? outer.children(),
              let publicKey = children.first(where: { $0.tag == 0x80 }),
              var secret = agree(publicKey.bytes, key: key, authentication)
        else { return ResponseAPDU(statusWord: .incorrectData) }
        eacState.noteChipAuthentication(terminalKey: publicKey.bytes, keyAgreement: key.caProtocol.keyAgreement)
        defer { chipWipe(&secret) }
        let cipher = ChipCipher(key.caProtocol.cipher)
        var answer: [UInt8] = []
        if key.version >= 2 {
            guard let nonce = try? ChipRandom.bytes(8) else { return ResponseAPDU(statusWord: .noPreciseDiagnosis) }
            secret += nonce
            // TR-03110-3 §B.3 (CA v2): the token over the terminal's key, with KSMAC = KDF(K || r, 2).
            guard var ksMac = try? ChipKeyDerivation.derive(secret, counter: ChipKeyDerivation.mac, cipher: cipher) else {
                return ResponseAPDU(statusWord: .noPreciseDiagnosis)
            }
            defer { chipWipe(&ksMac) }
            guard let token = try? ChipPACE.authenticationToken(
                kMac: ksMac, cipher: cipher, protocolOID: key.caProtocol.oid.description, publicKey: publicKey.bytes,
                ellipticCurve: key.caProtocol.keyAgreement == .ecdh)
            else { return ResponseAPDU(statusWord: .noPreciseDiagnosis) }
            answer = TLV.encode(tag: 0x81, value: nonce) + TLV.encode(tag: 0x82, value: token)
        }
        guard let session = try? ChipSecureMessaging(cipher: cipher, sharedSecret: secret) else {
            return ResponseAPDU(statusWord: .noPreciseDiagnosis)
        }
        authenticationState.pendingSecureMessaging = session
        return ResponseAPDU(data: TLV.encode(tag: 0x7C, value: answer), statusWord: .success)
    }

    private func chipAuthenticationKeyIndex(_ reference: [UInt8]?, _ authentication: VirtualChipAuthentication) -> Int? {
        let keys = authentication.chipAuthenticationKeys
        guard let reference else { return keys.count == 1 ? 0 : nil }
        let id = reference.reduce(0) { $0 << 8 | Int($1) }
        return keys.firstIndex { $0.keyID == id }
    }

    /// The shared secret with the terminal's ephemeral key, computed by the chip's own group
    /// arithmetic, or `nil` when that key is invalid.
    private func agree(_ encoded: [UInt8], key: VirtualChipAuthentication.ChipAuthenticationKey,
                       _ authentication: VirtualChipAuthentication) -> [UInt8]? {
        guard let group = try? ChipGroups.make(.standardized(key.domainParameterID)),
              (try? group.validatePublicKey(encoded)) != nil
        else { return nil }
        var privateKey = key.privateKey
        defer { chipWipe(&privateKey) }
        if authentication.faults.contains(.chipAuthenticationWithWrongPrivateKey),
           let other = try? group.generatePrivateKey(random: ChipRandom.bytes) {
            privateKey = other
        }
        return try? group.sharedSecret(privateKey: privateKey, peerPublicKey: encoded)
    }

    // MARK: Active Authentication

    /// Doc 9303-11 §6.1: INTERNAL AUTHENTICATE signs the 8-byte challenge.
    private func internalAuthenticate(_ command: CommandAPDU, _ authentication: VirtualChipAuthentication) -> ResponseAPDU {
        guard let key = authentication.activeAuthenticationKey else { return ResponseAPDU(statusWord: .instructionNotSupported) }
        guard isAuthenticated else { return ResponseAPDU(statusWord: .securityStatusNotSatisfied) }
        if let refusal = authentication.activeAuthenticationRefusal { return ResponseAPDU(statusWord: refusal) }
        guard command.data.count == 8 else { return ResponseAPDU(statusWord: .wrongLength) }
        var signature: [UInt8]
        do {
            // The chip's own signer (MRTDChipCrypto) with the DG15 key; M1 from the system's generator.
            let signer = try ChipActiveAuthentication(pkcs8: key.pkcs8())
            let digest = ChipActiveAuthentication.Digest(rawValue: authentication.activeAuthenticationDigest.rawValue) ?? .sha1
            signature = try signer.sign(
                challenge: command.data, digest: digest, plainECDSA: authentication.ecdsaPlainSignatures,
                trailer: authentication.faults.contains(.activeAuthenticationWrongTrailer) ? [0xAA] : nil, random: ChipRandom.bytes)
        } catch {
            return ResponseAPDU(statusWord: .noPreciseDiagnosis)
        }
        if authentication.faults.contains(.activeAuthenticationBadSignature), signature.count > 2 {
            signature[signature.count / 2] ^= 0x01
        }
        return ResponseAPDU(data: signature, statusWord: .success)
    }
}
