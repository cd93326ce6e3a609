/// Secure messaging as the chip does it (Doc 9303-11 §9.8, ISO/IEC 7816-4 §10): it checks and
/// decrypts protected commands and protects its responses. The reader's side lives in the product
/// (`MRTDProtocol.SecureMessaging`); this one shares no code with it, so a fault on either side
/// breaks the session instead of cancelling out.
///
/// The send sequence counter goes up by one before each command is checked and before each
/// response is protected (§9.8.2). 3DES: IV 0, retail MAC. AES: IV = E(KSEnc, SSC), CMAC truncated
/// to 8 bytes. The MAC input is always padded (ISO/IEC 9797-1 method 2).
public struct ChipSecureMessaging: Sendable {
    /// A command after unwrapping: the class byte without its SM bits, the plain data, and Ne from
    /// `DO'97'` (nil when the command expected no data).
    public struct PlainCommand: Sendable, Equatable {
        public var cla: UInt8
        public var ins: UInt8
        public var p1: UInt8
        public var p2: UInt8
        public var data: [UInt8]
        public var ne: Int?

        public init(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8], ne: Int?) {
            self.cla = cla
            self.ins = ins
            self.p1 = p1
            self.p2 = p2
            self.data = data
            self.ne = ne
        }
    }

    public let cipher: ChipCipher
    private var kEnc: [UInt8]
    private var kMac: [UInt8]
    /// The send sequence counter: 8 bytes (3DES) or 16 (AES).
    public private(set) var ssc: [UInt8]

    /// A session with the keys from BAC, PACE or Chip Authentication and its initial counter.
    public init(cipher: ChipCipher, kEnc: [UInt8], kMac: [UInt8], ssc: [UInt8]) {
        self.cipher = cipher
        self.kEnc = kEnc
        self.kMac = kMac
        self.ssc = ssc
    }

    /// A session whose keys are derived from `secret` (§9.7.1: KDF(secret, 1) and KDF(secret, 2)),
    /// counter zero: PACE and Chip Authentication.
    public init(cipher: ChipCipher, sharedSecret secret: [UInt8]) throws(ChipCryptoError) {
        self.init(
            cipher: cipher,
            kEnc: try ChipKeyDerivation.derive(secret, counter: ChipKeyDerivation.encryption, cipher: cipher),
            kMac: try ChipKeyDerivation.derive(secret, counter: ChipKeyDerivation.mac, cipher: cipher),
            ssc: [UInt8](repeating: 0, count: cipher.blockSize))
    }

    /// Overwrites the keys and the counter; the session is unusable afterwards.
    public mutating func wipe() {
        chipWipe(&kEnc)
        chipWipe(&kMac)
        chipWipe(&ssc)
    }

    /// Checks the MAC of a protected command (`DO'87'`/`DO'85'`, `DO'97'`, `DO'8E'` in its data
    /// field; `cla` with bits 0C set) and decrypts it. `nil` when the MAC, the structure or the
    /// padding is wrong: the chip then answers 6988 and ends the session.
    public mutating func unwrapCommand(cla: UInt8, ins: UInt8, p1: UInt8, p2: UInt8, data: [UInt8]) -> PlainCommand? {
        increment()
        guard cla & 0x0C == 0x0C, let objects = try? ChipTLV.parseAll(data),
              let last = objects.last, last.tag == 0x8E, last.value.count == 8,
              objects.dropLast().allSatisfy({ $0.tag != 0x8E })
        else { return nil }
        // The MAC covers the padded header and the objects before DO'8E' exactly as they arrived.
        let covered = ChipPadding.pad([cla, ins, p1, p2], blockSize: cipher.blockSize)
            + Array(data.prefix(data.count - last.encoded.count))
        guard let expected = try? checksum(covered), Self.equalInConstantTime(expected, last.value) else { return nil }
        var plain: [UInt8] = []
        if let cryptogram = objects.first(where: { $0.tag == 0x87 || $0.tag == 0x85 }) {
            var encrypted = cryptogram.value
            if cryptogram.tag == 0x87 {
                // The padding-content indicator 01 precedes the cryptogram.
                guard encrypted.first == 0x01 else { return nil }
                encrypted.removeFirst()
            }
            guard let decrypted = try? decrypt(encrypted) else { return nil }
            plain = decrypted
        }
        var ne: Int?
        if let le = objects.first(where: { $0.tag == 0x97 }) {
            let value = le.value.reduce(0) { $0 << 8 | Int($1) }
            switch le.value.count {
            case 1: ne = value == 0 ? 256 : value
            case 2: ne = value == 0 ? 65_536 : value
            default: return nil
            }
        }
        return PlainCommand(cla: cla & 0xF3, ins: ins, p1: p1, p2: p2, data: plain, ne: ne)
    }

    /// The protected response: the encrypted data (`DO'87'` = 01 || cryptogram, or `DO'85'` =
    /// cryptogram for an odd INS, ISO/IEC 7816-4 §10.2.2), `DO'99'` with the status word, `DO'8E'`
    /// with the MAC, then the status word itself.
    ///
    /// A conformance test's defective chip (TR-03105-5.1 ISO7816_B_05..B_09) leaves out the data
    /// objects whose tags are in `omitting` (`0x87`/`0x85`, `0x99`, `0x8E`), or alters the cryptogram's
    /// last byte before the MAC is computed (`alterCryptogram`: the MAC verifies, the plaintext does not).
    public mutating func wrapResponse(
        data: [UInt8], sw1: UInt8, sw2: UInt8, oddINS: Bool, omitting: Set<UInt8> = [], alterCryptogram: Bool = false
    ) throws(ChipCryptoError) -> [UInt8] {
        increment()
        var objects: [UInt8] = []
        if !data.isEmpty && omitting.isDisjoint(with: [0x85, 0x87]) {
            var cryptogram = try encrypt(data)
            if alterCryptogram { cryptogram[cryptogram.count - 1] ^= 0x5A }
            objects += oddINS ? ChipTLV.encode(tag: 0x85, value: cryptogram) : ChipTLV.encode(tag: 0x87, value: [0x01] + cryptogram)
        }
        if !omitting.contains(0x99) { objects += ChipTLV.encode(tag: 0x99, value: [sw1, sw2]) }
        let mac = try checksum(objects)
        if !omitting.contains(0x8E) { objects += ChipTLV.encode(tag: 0x8E, value: mac) }
        return objects + [sw1, sw2]
    }

    // MARK: Mechanics

    /// SSC + 1, big-endian, wrapping at the top.
    private mutating func increment() {
        for i in ssc.indices.reversed() {
            ssc[i] &+= 1
            if ssc[i] != 0 { return }
        }
    }

    /// The MAC over SSC || input, padded.
    private func checksum(_ input: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        try ChipMAC.mac(cipher, key: kMac, data: ChipPadding.pad(ssc + input, blockSize: cipher.blockSize))
    }

    /// The IV: zeros for 3DES, E(KSEnc, SSC) for AES (§9.8.6.3).
    private func iv() throws(ChipCryptoError) -> [UInt8] {
        cipher == .tripleDES ? [UInt8](repeating: 0, count: 8) : try cipher.encryptECB(key: kEnc, data: ssc)
    }

    private func encrypt(_ data: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        try cipher.encryptCBC(key: kEnc, iv: try iv(), data: ChipPadding.pad(data, blockSize: cipher.blockSize))
    }

    private func decrypt(_ cryptogram: [UInt8]) throws(ChipCryptoError) -> [UInt8] {
        guard !cryptogram.isEmpty, cryptogram.count % cipher.blockSize == 0 else {
            throw .invalidInput("cryptogram of \(cryptogram.count) bytes")
        }
        var padded = try cipher.decryptCBC(key: kEnc, iv: try iv(), data: cryptogram)
        defer { chipWipe(&padded) }
        return try ChipPadding.unpad(padded)
    }

    private static func equalInConstantTime(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
