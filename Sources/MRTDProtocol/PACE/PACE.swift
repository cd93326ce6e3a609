public import MRTDCore
public import MRTDCrypto
public import SwiftASN1

/// Password Authenticated Connection Establishment, terminal side (Doc 9303-11 §4.4, BSI
/// TR-03110-2 §3.2 / TR-03110-3 §A.3): MSE:Set AT, four GENERAL AUTHENTICATE steps (encrypted nonce,
/// mapping, key agreement, mutual authentication) and secure messaging with the new keys.
///
/// Random values are drawn in protocol order (GM/CAM: mapping key, then ephemeral key; IM: nonce t,
/// then ephemeral key), so a scripted source replays the worked examples byte for byte.
public enum PACE {
    /// What a successful run established, beyond the secure-messaging session started on the channel.
    public struct Outcome: Sendable {
        public var parameters: PACEParameters
        /// The group's report name (`brainpoolP256r1`, `RFC5114-2048-256`, `explicit`).
        public var domainParametersName: String
        /// PACE-CAM: the decrypted chip authentication data `CA_IC` (nil when the chip sent none).
        public var chipAuthenticationData: [UInt8]?
        /// PACE-CAM: the chip's mapping public key `PK_map,IC`, which `CA_IC · PK_IC` must equal.
        public var chipMappingPublicKey: [UInt8]?
        /// The group the run used (for the PACE-CAM check).
        public var group: any KeyAgreementGroup
        /// The chip's ephemeral public key of step 3 (`PK_IC`): its compressed form is `ID_PICC`
        /// for Terminal Authentication (BSI TR-03110-1 §3.3, §4.4).
        public var chipEphemeralPublicKey: [UInt8] = []
    }

    /// Runs PACE on `channel` and, on success, starts secure messaging on it.
    ///
    /// - Throws: `ProtocolError.wrongPassword` when the chip refuses the password (never retried),
    ///   `.paceSetupRefused`, `.paceStepFailed`, `.paceMalformedResponse`, `.paceInvalidPublicKey`,
    ///   `.pacePublicKeyReflected`, `.paceTokenInvalid`, `.paceNotSupported` (the group cannot be
    ///   built), or what the channel throws. Every key is wiped on every path.
    public static func perform(
        channel: ChipChannel, parameters: PACEParameters, password: PACEPassword, random: any RandomSource
    ) async throws -> Outcome {
        let proto = parameters.paceProtocol
        let cipher = parameters.cipher
        let group: any KeyAgreementGroup
        do {
            group = try KeyAgreementGroups.make(parameters.domainParameters)
        } catch {
            throw ProtocolError.paceNotSupported("domain parameters: \(error)")
        }

        // MSE:Set AT (§4.4.4.1): 80 protocol OID, 83 password reference, 84 parameter ID; no Le.
        var setAT = TLV.encode(tag: 0x80, value: proto.oid.contentOctets)
        setAT += TLV.encode(tag: 0x83, value: [password.reference])
        if let id = parameters.parameterID { setAT += TLV.encode(tag: 0x84, value: MinimalBytes.bigEndian(nonNegative: id)) }
        let mse = try await channel.send(CommandAPDU(ins: 0x22, p1: 0xC1, p2: 0xA4, data: setAT))
        guard mse.statusWord.isSuccess else {
            if KeyRefusal.refusesKey(mse.statusWord, at: .paceSetAT) {
                // The password type is not available (a CAN-only card asked for MRZ), suspended or blocked.
                throw ProtocolError.wrongPassword(protocol: "PACE", password: password.typeName, mse.statusWord)
            }
            throw ProtocolError.paceSetupRefused(mse.statusWord)
        }

        // Step 1: the encrypted nonce z; s = D(K_π, z).
        let step1 = try await generalAuthenticate(channel, step: "GA step 1 (encrypted nonce)", data: [], password: password)
        let z = try element(0x80, in: step1, step: "GA step 1 (encrypted nonce)")
        var kPi = password.key(for: cipher)
        defer { secureWipe(&kPi) }
        var s: [UInt8]
        do {
            guard !z.isEmpty, z.count % cipher.blockSize == 0 else {
                throw ProtocolError.paceMalformedResponse(step: "GA step 1 (encrypted nonce)", "nonce of \(z.count) bytes")
            }
            s = try decrypt(key: kPi, data: z, cipher: cipher)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        defer { secureWipe(&s) }

        // Step 2: mapping (§4.4.3.3).
        var chipMapPK: [UInt8]?
        let generator: [UInt8]
        do {
            switch proto.mapping {
            case .gm, .cam:
                var mapSK = try group.generatePrivateKey(using: random)
                defer { secureWipe(&mapSK) }
                let mapPK = try group.publicKey(privateKey: mapSK, generator: group.generator)
                let step = "GA step 2 (mapping)"
                let answer = try await generalAuthenticate(
                    channel, step: step, data: TLV.encode(tag: 0x81, value: mapPK), password: password, answerLength: mapPK.count + 8)
                let theirs = try element(0x82, in: answer, step: step)
                try validate(theirs, ours: mapPK, group: group, step: step)
                var h = try group.sharedElement(privateKey: mapSK, peerPublicKey: theirs)
                defer { secureWipe(&h) }
                generator = try group.genericMapping(nonce: s, sharedElement: h)
                chipMapPK = theirs
            case .im:
                var t = try random.randomBytes(cipher.keyLength)
                defer { secureWipe(&t) }
                let step = "GA step 2 (mapping nonce)"
                let answer = try await generalAuthenticate(channel, step: step, data: TLV.encode(tag: 0x81, value: t), password: password)
                guard answer.isEmpty || answer.allSatisfy({ $0.tag == 0x82 && $0.value.isEmpty }) else {
                    throw ProtocolError.paceMalformedResponse(step: step, "unexpected data objects")
                }
                var r = try IntegratedMappingPRF.pseudoRandom(s: s, t: t, cipher: cipher, primeBitCount: group.primeBitCount)
                defer { secureWipe(&r) }
                generator = try group.integratedMapping(pseudoRandom: r)
            }
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }

        // Step 3: key agreement on the mapped generator.
        let step3 = "GA step 3 (key agreement)"
        var ephSK: [UInt8]
        let ephPK: [UInt8]
        do {
            ephSK = try group.generatePrivateKey(using: random)
            ephPK = try group.publicKey(privateKey: ephSK, generator: generator)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        defer { secureWipe(&ephSK) }
        let answer3 = try await generalAuthenticate(
            channel, step: step3, data: TLV.encode(tag: 0x83, value: ephPK), password: password, answerLength: ephPK.count + 8)
        let chipEphPK = try element(0x84, in: answer3, step: step3)
        try validate(chipEphPK, ours: ephPK, group: group, step: step3)
        var kEnc: [UInt8]
        var kMac: [UInt8]
        do {
            var k = try group.sharedSecret(privateKey: ephSK, peerPublicKey: chipEphPK)
            defer { secureWipe(&k) }
            kEnc = KeyDerivation.derive(sharedSecret: k, counter: KeyDerivation.encryptionCounter, cipher: cipher)
            kMac = KeyDerivation.derive(sharedSecret: k, counter: KeyDerivation.macCounter, cipher: cipher)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        defer {
            secureWipe(&kEnc)
            secureWipe(&kMac)
        }

        // Step 4: mutual authentication (§4.4.3.4). T_IFD over the chip's key, T_IC over ours.
        let step4 = "GA step 4 (mutual authentication)"
        let tIFD = try token(kMac: kMac, oid: proto.oid, agreement: proto.keyAgreement, publicKey: chipEphPK, cipher: cipher)
        let answer4 = try await generalAuthenticate(
            channel, step: step4, data: TLV.encode(tag: 0x85, value: tIFD), last: true, password: password)
        let tIC = try element(0x86, in: answer4, step: step4)
        let expected = try token(kMac: kMac, oid: proto.oid, agreement: proto.keyAgreement, publicKey: ephPK, cipher: cipher)
        guard constantTimeEqual(tIC, expected) else { throw ProtocolError.paceTokenInvalid }

        // PACE-CAM (§4.4.3.5.2): A_IC = E(KSEnc, CA_IC), AES-CBC with IV = E(KSEnc, -1).
        var caIC: [UInt8]?
        if proto.mapping == .cam, let encrypted = answer4.first(where: { $0.tag == 0x8A })?.bytes {
            caIC = try? decryptChipAuthenticationData(encrypted, kEnc: kEnc)
        }

        // Secure messaging with SSC = 0 (§9.8.2: PACE starts the counter at zero).
        channel.startSecureMessaging(SecureMessaging(
            cipher: cipher, kEnc: kEnc, kMac: kMac, ssc: [UInt8](repeating: 0, count: cipher.blockSize)))
        return Outcome(
            parameters: parameters, domainParametersName: group.name, chipAuthenticationData: caIC,
            chipMappingPublicKey: proto.mapping == .cam ? chipMapPK : nil, group: group,
            chipEphemeralPublicKey: chipEphPK)
    }

    // MARK: Building blocks (shared with the virtual chip)

    /// The authentication token: MAC(KSMAC, 7F49 {06 OID, 86|84 key}) truncated to 8 bytes, AES-CMAC or
    /// retail MAC over the ISO 9797-1 method 2 padded object (§4.4.3.4).
    public static func token(
        kMac: [UInt8], oid: ASN1ObjectIdentifier, agreement: KeyAgreementAlgorithm, publicKey: [UInt8], cipher: SMCipher
    ) throws -> [UInt8] {
        let input: [UInt8]
        do {
            input = try PublicKeyDataObject.encode(protocolOID: oid, keyAgreement: agreement, publicKey: publicKey)
        } catch {
            throw ProtocolError.crypto(.invalidInput("public key data object: \(error)"))
        }
        do {
            switch cipher {
            case .tripleDES: return try RetailMAC.mac(key: kMac, data: ISO9797Padding.pad(input, blockSize: 8))
            default: return Array(try AESCMAC.mac(key: kMac, data: input).prefix(8))
            }
        } catch {
            throw ProtocolError.crypto(error)
        }
    }

    /// Encrypts (chip) or decrypts (terminal) the nonce under `K_π`: CBC with IV 0.
    public static func encrypt(key: [UInt8], data: [UInt8], cipher: SMCipher) throws(CryptoError) -> [UInt8] {
        switch cipher {
        case .tripleDES: try TripleDES.encryptCBC(key: key, data: data)
        default: try AES.encryptCBC(key: key, iv: [UInt8](repeating: 0, count: 16), data: data)
        }
    }

    static func decrypt(key: [UInt8], data: [UInt8], cipher: SMCipher) throws(CryptoError) -> [UInt8] {
        switch cipher {
        case .tripleDES: try TripleDES.decryptCBC(key: key, data: data)
        default: try AES.decryptCBC(key: key, iv: [UInt8](repeating: 0, count: 16), data: data)
        }
    }

    /// `IV = E(KSEnc, 0xFF..FF)` for the PACE-CAM chip authentication data (§4.4.3.5.2).
    public static func camIV(kEnc: [UInt8]) throws(CryptoError) -> [UInt8] {
        try AES.encryptECB(key: kEnc, data: [UInt8](repeating: 0xFF, count: 16))
    }

    static func decryptChipAuthenticationData(_ data: [UInt8], kEnc: [UInt8]) throws -> [UInt8] {
        try ISO9797Padding.unpad(AES.decryptCBC(key: kEnc, iv: camIV(kEnc: kEnc), data: data))
    }


    /// One GENERAL AUTHENTICATE (ISO/IEC 7816-4 §11.5.5): command chaining (CLA 10) for steps 1-3,
    /// dynamic authentication data `7C` both ways, Le 00.
    ///
    /// `answerLength` is the size the answer is expected to have: answers that grow with the key size
    /// (a DH-2048 public key: 264 bytes with its tags) ask for an extended Le when the link carries
    /// it; on a short link Le 00 stays and a longer answer comes through `61xx` (``ChipChannel``).
    private static func generalAuthenticate(
        _ channel: ChipChannel, step: String, data: [UInt8], last: Bool = false, password: PACEPassword,
        answerLength: Int = 0
    ) async throws -> [TLV] {
        let extendedLe = answerLength > 256 && channel.capabilities.extendedLength
        let command = CommandAPDU(cla: last ? 0x00 : 0x10, ins: 0x86, p1: 0, p2: 0,
                                  data: TLV.encode(tag: 0x7C, value: data), ne: extendedLe ? 65_536 : 256)
        let response = try await channel.send(command)
        guard response.statusWord.isSuccess else {
            // A wrong password shows at the last step: the chip cannot verify T_IFD (6300, 6982, 6985,
            // 6988); a retry counter (63Cx) or a blocked password may show at any step (KeyRefusal).
            if KeyRefusal.refusesKey(response.statusWord, at: last ? .paceMutualAuthentication : .paceKeyExchange) {
                throw ProtocolError.wrongPassword(protocol: "PACE", password: password.typeName, response.statusWord)
            }
            throw ProtocolError.paceStepFailed(step: step, response.statusWord)
        }
        do {
            let outer = try TLV.parse(response.data, maxDepth: 2)
            guard outer.tag == 0x7C else {
                throw ProtocolError.paceMalformedResponse(step: step, "tag \(String(outer.tag, radix: 16)) instead of 7C")
            }
            return try outer.children(maxDepth: 1)
        } catch let error as TLVError {
            throw ProtocolError.paceMalformedResponse(step: step, "\(error)")
        }
    }

    /// The value of data object `tag` (RELIABILITY PACE-03: a wrong tag aborts).
    private static func element(_ tag: UInt, in objects: [TLV], step: String) throws -> [UInt8] {
        guard let object = objects.first(where: { $0.tag == tag }) else {
            let found = objects.map { String($0.tag, radix: 16, uppercase: true) }.joined(separator: ", ")
            throw ProtocolError.paceMalformedResponse(
                step: step, "no data object \(String(tag, radix: 16, uppercase: true)) (found: \(found.isEmpty ? "none" : found))")
        }
        return object.bytes
    }

    /// RELIABILITY PACE-04 / PACE-05: the chip's key must be valid and must not be ours (a DH value
    /// compared as an integer: leading zeros do not make it another key).
    private static func validate(_ theirs: [UInt8], ours: [UInt8], group: any KeyAgreementGroup, step: String) throws {
        do {
            try group.validatePublicKey(theirs)
        } catch {
            throw ProtocolError.paceInvalidPublicKey(step: step, "\(error)")
        }
        if MinimalBytes.publicKey(theirs, keyAgreement: group.keyAgreement) == ours {
            throw ProtocolError.pacePublicKeyReflected(step: step)
        }
    }
}
