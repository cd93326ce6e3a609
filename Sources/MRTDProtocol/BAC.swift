public import MRTDCore
public import MRTDCrypto

/// Basic Access Control, Doc 9303-11 §4.3: document basic access keys from the MRZ, a
/// challenge-response mutual authentication, and 3DES session keys for secure messaging.
public enum BAC {
    /// `Kseed` = the first 16 bytes of SHA-1(MRZ_information) (§4.3.2).
    public static func keySeed(for key: MRZKey) -> [UInt8] {
        Array(DigestAlgorithm.sha1.hash(Array(key.mrzInformation.utf8)).prefix(16))
    }

    /// `KEnc` and `KMAC` derived from the key seed (§9.7.1, 3DES with parity).
    public static func accessKeys(for key: MRZKey) -> (kEnc: [UInt8], kMac: [UInt8]) {
        var seed = keySeed(for: key)
        defer { secureWipe(&seed) }
        return (
            KeyDerivation.derive(sharedSecret: seed, counter: KeyDerivation.encryptionCounter, cipher: .tripleDES),
            KeyDerivation.derive(sharedSecret: seed, counter: KeyDerivation.macCounter, cipher: .tripleDES)
        )
    }

    /// Runs BAC on `channel` and, on success, starts secure messaging on it.
    ///
    /// Draws `RND.IFD` (8 bytes) and then `K.IFD` (16 bytes) from `random`, in that order, so that a
    /// scripted source reproduces Appendix D and a recorded one replays a session.
    ///
    /// - Throws: `ProtocolError.accessDenied` when the chip refuses the cryptogram (wrong MRZ data),
    ///   `.bacNotSupported` when it has no BAC, `.authenticationFailed` when the chip's answer does
    ///   not verify.
    public static func perform(channel: ChipChannel, key: MRZKey, random: any RandomSource) async throws {
        var (kEnc, kMac) = accessKeys(for: key)
        defer {
            secureWipe(&kEnc)
            secureWipe(&kMac)
        }

        // GET CHALLENGE (§4.3.4.1 step 1).
        let challenge = try await channel.send(CommandAPDU(ins: 0x84, p1: 0, p2: 0, ne: 8))
        guard challenge.statusWord.isSuccess else {
            throw ProtocolError.bacNotSupported(challenge.statusWord)
        }
        guard challenge.data.count == 8 else {
            throw ProtocolError.authenticationFailed("GET CHALLENGE returned \(challenge.data.count) bytes, not 8")
        }
        let rndIC = challenge.data

        var rndIFD: [UInt8]
        var kIFD: [UInt8]
        do {
            rndIFD = try random.randomBytes(8)
            kIFD = try random.randomBytes(16)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        defer { secureWipe(&kIFD) }

        // EXTERNAL AUTHENTICATE with E_IFD || M_IFD (step 2).
        let s = rndIFD + rndIC + kIFD
        let eIFD: [UInt8]
        let mIFD: [UInt8]
        do {
            eIFD = try TripleDES.encryptCBC(key: kEnc, data: s)
            mIFD = try RetailMAC.mac(key: kMac, data: ISO9797Padding.pad(eIFD, blockSize: 8))
        } catch {
            throw ProtocolError.crypto(error)
        }
        let answer = try await channel.send(CommandAPDU(ins: 0x82, p1: 0, p2: 0, data: eIFD + mIFD, ne: 0x28))
        guard answer.statusWord.isSuccess else {
            // The cryptogram was wrong: the MRZ key (6300, 6982, 6985, 6988, ...: KeyRefusal).
            if KeyRefusal.refusesKey(answer.statusWord, at: .bacMutualAuthentication) {
                throw ProtocolError.accessDenied(protocol: "BAC", answer.statusWord)
            }
            // 6A88 (referenced data not found): a chip that wants PACE and has no BAC key
            // (bettse/passy#3, NFCPassportReader#169); 6D00 likewise.
            if answer.statusWord == .referencedDataNotFound || answer.statusWord == .instructionNotSupported {
                throw ProtocolError.bacNotSupported(answer.statusWord)
            }
            throw ProtocolError.commandFailed("EXTERNAL AUTHENTICATE", answer.statusWord)
        }
        guard answer.data.count == 40 else {
            throw ProtocolError.authenticationFailed("EXTERNAL AUTHENTICATE returned \(answer.data.count) bytes, not 40")
        }
        let eIC = Array(answer.data[0..<32])
        let mIC = Array(answer.data[32..<40])
        var r: [UInt8]
        do {
            let expectedMAC = try RetailMAC.mac(key: kMac, data: ISO9797Padding.pad(eIC, blockSize: 8))
            guard constantTimeEqual(expectedMAC, mIC) else {
                throw ProtocolError.authenticationFailed("the chip's MAC (M_IC) does not verify")
            }
            r = try TripleDES.decryptCBC(key: kEnc, data: eIC)
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
        defer { secureWipe(&r) }
        // R = RND.IC || RND.IFD || K.IC (step 3): the chip must echo both nonces.
        guard Array(r[0..<8]) == rndIC, Array(r[8..<16]) == rndIFD else {
            throw ProtocolError.authenticationFailed("the chip's cryptogram does not echo the nonces")
        }
        var seed = zip(kIFD, r[16..<32]).map { $0 ^ $1 }
        defer { secureWipe(&seed) }
        let ksEnc = KeyDerivation.derive(sharedSecret: seed, counter: KeyDerivation.encryptionCounter, cipher: .tripleDES)
        let ksMac = KeyDerivation.derive(sharedSecret: seed, counter: KeyDerivation.macCounter, cipher: .tripleDES)
        // SSC = the four least significant bytes of RND.IC and of RND.IFD (§9.8.2).
        let ssc = Array(rndIC[4..<8]) + Array(rndIFD[4..<8])
        secureWipe(&rndIFD)
        channel.startSecureMessaging(SecureMessaging(cipher: .tripleDES, kEnc: ksEnc, kMac: ksMac, ssc: ssc))
    }
}
