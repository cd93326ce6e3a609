/// The chip's side of Basic Access Control (Doc 9303-11 §4.3, Appendix D): the access keys from the
/// MRZ, the check of the terminal's EXTERNAL AUTHENTICATE cryptogram, the chip's answer and the
/// session keys.
public struct ChipBAC: Sendable {
    private var kEnc: [UInt8]
    private var kMac: [UInt8]

    /// The access keys KEnc, KMAC of the document with this MRZ information (§9.7.2).
    public init(mrzInformation: String) throws(ChipCryptoError) {
        var seed = try ChipKeyDerivation.bacSeed(mrzInformation: mrzInformation)
        defer { chipWipe(&seed) }
        kEnc = try ChipKeyDerivation.derive(seed, counter: ChipKeyDerivation.encryption, cipher: .tripleDES)
        kMac = try ChipKeyDerivation.derive(seed, counter: ChipKeyDerivation.mac, cipher: .tripleDES)
    }

    /// What the terminal sent, checked and decrypted.
    public struct TerminalCryptogram: Sendable {
        public var rndIFD: [UInt8]
        public var kIFD: [UInt8]
    }

    /// Checks `E_IFD || M_IFD` (40 bytes): the MAC over E_IFD, then RND.IC inside S = RND.IFD ||
    /// RND.IC || K.IFD. `nil` when either check fails (the chip answers 6300).
    public func check(_ cryptogram: [UInt8], rndIC: [UInt8]) throws(ChipCryptoError) -> TerminalCryptogram? {
        guard cryptogram.count == 40, rndIC.count == 8 else { throw .invalidInput("EXTERNAL AUTHENTICATE data of \(cryptogram.count) bytes") }
        let eIFD = Array(cryptogram[0..<32])
        let mIFD = Array(cryptogram[32..<40])
        guard try ChipMAC.retailMAC(key: kMac, data: ChipPadding.pad(eIFD, blockSize: 8)) == mIFD else { return nil }
        var s = try ChipCipher.tripleDES.decryptCBC(key: kEnc, data: eIFD)
        defer { chipWipe(&s) }
        guard Array(s[8..<16]) == rndIC else { return nil }
        return TerminalCryptogram(rndIFD: Array(s[0..<8]), kIFD: Array(s[16..<32]))
    }

    /// The chip's answer `E_IC || M_IC` over R = RND.IC || RND.IFD || K.IC, and the session it
    /// opens: keys from K.IFD ⊕ K.IC, SSC = the low halves of RND.IC and RND.IFD (§9.8.2).
    public func answer(
        rndIC: [UInt8], terminal: TerminalCryptogram, kIC: [UInt8]
    ) throws(ChipCryptoError) -> (response: [UInt8], session: ChipSecureMessaging) {
        guard kIC.count == 16 else { throw .invalidInput("K.IC of \(kIC.count) bytes") }
        var r = rndIC + terminal.rndIFD + kIC
        defer { chipWipe(&r) }
        let eIC = try ChipCipher.tripleDES.encryptCBC(key: kEnc, data: r)
        let mIC = try ChipMAC.retailMAC(key: kMac, data: ChipPadding.pad(eIC, blockSize: 8))
        var seed = zip(terminal.kIFD, kIC).map { $0 ^ $1 }
        defer { chipWipe(&seed) }
        let session = ChipSecureMessaging(
            cipher: .tripleDES,
            kEnc: try ChipKeyDerivation.derive(seed, counter: ChipKeyDerivation.encryption, cipher: .tripleDES),
            kMac: try ChipKeyDerivation.derive(seed, counter: ChipKeyDerivation.mac, cipher: .tripleDES),
            ssc: Array(rndIC[4..<8]) + Array(terminal.rndIFD[4..<8]))
        return (eIC + mIC, session)
    }

    /// Overwrites the access keys.
    public mutating func wipe() {
        chipWipe(&kEnc)
        chipWipe(&kMac)
    }
}
