public import MRTDCore
public import MRTDCrypto

/// Secure messaging per Doc 9303-11 §9.8 (ISO/IEC 7816-4 §10): encryption of command and response
/// data, a MAC over header, data objects and the send sequence counter, for the 3DES suite (BAC, PACE
/// with 3DES) and the AES suites (PACE, Chip Authentication).
///
/// The same value type serves the terminal (`protect` / `unprotect`) and, in tests, the virtual chip
/// (`unprotectCommand` / `protectResponse`): both sides keep their own copy of the SSC.
public struct SecureMessaging: Sendable {
    public let cipher: SMCipher
    private var kEnc: [UInt8]
    private var kMac: [UInt8]
    /// The send sequence counter, incremented before each command and each response (§9.8.2).
    public private(set) var ssc: [UInt8]

    /// - Parameters:
    ///   - kEnc: `KSEnc`, 16 bytes for 3DES, 16/24/32 for AES.
    ///   - kMac: `KSMAC`.
    ///   - ssc: the initial SSC: 8 bytes for 3DES, 16 for AES.
    public init(cipher: SMCipher, kEnc: [UInt8], kMac: [UInt8], ssc: [UInt8]) {
        self.cipher = cipher
        self.kEnc = kEnc
        self.kMac = kMac
        self.ssc = ssc
    }

    /// Overwrites the session keys and the counter. The value is unusable afterwards.
    public mutating func wipe() {
        secureWipe(&kEnc)
        secureWipe(&kMac)
        secureWipe(&ssc)
    }

    private var blockSize: Int { cipher.blockSize }

    // MARK: Terminal side

    /// Wraps a plain command. `forceExtended` asks for an extended-length protected APDU even when the
    /// expected response would fit a short one; `shortAnswer` says the answer is known to be small
    /// (CA's GENERAL AUTHENTICATE), so `Le = 00` stays a short APDU as real chips expect.
    public mutating func protect(_ command: CommandAPDU, forceExtended: Bool = false, shortAnswer: Bool = false) throws -> [UInt8] {
        incrementSSC()
        let header: [UInt8] = [command.cla | 0x0C, command.ins, command.p1, command.p2]
        var objects: [UInt8] = []
        if !command.data.isEmpty {
            objects += try dataObject(for: command.data, oddINS: command.ins & 1 == 1)
        }
        if let ne = command.ne {
            objects += TLV.encode(tag: 0x97, value: Self.encodeLe(ne))
        }
        let mac = try computeMAC(ISO9797Padding.pad(header, blockSize: blockSize) + objects)
        objects += TLV.encode(tag: 0x8E, value: mac)
        let expected = Self.protectedResponseLength(plain: command.ne ?? 0, blockSize: blockSize)
        let extended = forceExtended || objects.count > 255 || (expected > 256 && !shortAnswer)
        let wrapped = CommandAPDU(
            cla: header[0], ins: command.ins, p1: command.p1, p2: command.p2,
            data: objects, ne: extended ? 65_536 : 256)
        do {
            return try wrapped.encoded(extended: extended)
        } catch {
            throw ProtocolError.apdu(error)
        }
    }

    /// Checks and decrypts a protected response. The MAC is verified before anything is decrypted
    /// or returned; a response without `DO'8E'` is rejected.
    public mutating func unprotect(_ response: [UInt8]) throws -> ResponseAPDU {
        guard response.count >= 2 else {
            throw ProtocolError.secureMessagingMalformed("response of \(response.count) bytes")
        }
        let outer = StatusWord(sw1: response[response.count - 2], sw2: response[response.count - 1])
        let body = response.dropLast(2)
        guard !body.isEmpty else {
            // Doc 9303-11 §9.8.6 and ARCHITECTURE pitfalls: a plain status word means the chip has
            // left secure messaging; the SSC is not advanced as if the response were protected.
            throw ProtocolError.unprotectedResponse(outer)
        }
        incrementSSC()
        let objects: [TLV]
        do {
            objects = try TLV.parseAll(body, maxDepth: 1)
        } catch {
            throw ProtocolError.secureMessagingMalformed("\(error)")
        }
        guard let macIndex = objects.firstIndex(where: { $0.tag == 0x8E }) else {
            throw ProtocolError.secureMessagingObjectMissing("DO'8E' (cryptographic checksum)")
        }
        guard objects[macIndex].value.count == 8 else {
            throw ProtocolError.secureMessagingMalformed("DO'8E' of \(objects[macIndex].value.count) bytes")
        }
        guard macIndex == objects.count - 1 else {
            throw ProtocolError.secureMessagingMalformed("data objects after DO'8E'")
        }
        // The MAC covers the data objects exactly as received (Doc 9303-11 §9.8.6.2), not a
        // re-encoding: a longer length form or padding between objects must break it.
        let mac = try computeMAC(Array(Self.bytesBefore(objects[macIndex], in: body)))
        guard constantTimeEqual(mac, objects[macIndex].bytes) else {
            throw ProtocolError.secureMessagingMACInvalid
        }
        guard let do99 = objects.first(where: { $0.tag == 0x99 }) else {
            throw ProtocolError.secureMessagingObjectMissing("DO'99' (processing status)")
        }
        guard do99.value.count == 2 else {
            throw ProtocolError.secureMessagingMalformed("DO'99' of \(do99.value.count) bytes")
        }
        let sw = StatusWord(sw1: do99.value.first!, sw2: do99.value.last!)
        var data: [UInt8] = []
        if let encrypted = objects.first(where: { $0.tag == 0x87 || $0.tag == 0x85 }) {
            data = try decryptDataObject(encrypted)
        }
        return ResponseAPDU(data: data, statusWord: sw)
    }

    /// The bytes of `container` before the object `object` (a TLV parsed from it), as received.
    private static func bytesBefore(_ object: TLV, in container: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        let start = object.value.endIndex - object.encodedLength
        return container[container.startIndex..<start]
    }

    // MARK: Chip side (virtual chip)

    /// The chip's view of a protected command: verifies its MAC and decrypts it. Returns `nil` when
    /// the MAC or the structure is wrong (the chip then answers 6988 in plain and drops the session).
    public mutating func unprotectCommand(_ command: CommandAPDU) -> CommandAPDU? {
        guard command.cla & 0x0C == 0x0C else { return nil }
        incrementSSC()
        guard let objects = try? TLV.parseAll(command.data, maxDepth: 1),
              let macIndex = objects.firstIndex(where: { $0.tag == 0x8E }) else { return nil }
        let header: [UInt8] = [command.cla, command.ins, command.p1, command.p2]
        guard macIndex == objects.count - 1 else { return nil }
        let covered = ISO9797Padding.pad(header, blockSize: blockSize)
            + Self.bytesBefore(objects[macIndex], in: command.data[...])
        guard let mac = try? computeMAC(covered), constantTimeEqual(mac, objects[macIndex].bytes) else {
            return nil
        }
        var data: [UInt8] = []
        if let encrypted = objects.first(where: { $0.tag == 0x87 || $0.tag == 0x85 }) {
            guard let plain = try? decryptDataObject(encrypted) else { return nil }
            data = plain
        }
        var ne: Int?
        if let le = objects.first(where: { $0.tag == 0x97 }) {
            switch le.value.count {
            case 1: ne = le.value.first! == 0 ? 256 : Int(le.value.first!)
            case 2:
                let v = Int(le.value.first!) << 8 | Int(le.value.last!)
                ne = v == 0 ? 65_536 : v
            default: return nil
            }
        }
        return CommandAPDU(cla: command.cla & ~0x0C, ins: command.ins, p1: command.p1, p2: command.p2,
                           data: data, ne: ne)
    }

    /// The chip's protected response: `DO'87'` (or `DO'85'` for odd INS), `DO'99'`, `DO'8E'`, SW.
    public mutating func protectResponse(_ response: ResponseAPDU, oddINS: Bool = false) throws -> [UInt8] {
        incrementSSC()
        var objects: [UInt8] = []
        if !response.data.isEmpty {
            objects += try dataObject(for: response.data, oddINS: oddINS)
        }
        objects += TLV.encode(tag: 0x99, value: [response.statusWord.sw1, response.statusWord.sw2])
        let mac = try computeMAC(objects)
        objects += TLV.encode(tag: 0x8E, value: mac)
        return objects + [response.statusWord.sw1, response.statusWord.sw2]
    }

    // MARK: Shared mechanics

    /// Doc 9303-11 §9.8.6.1: the encoding of Le in `DO'97'`: one byte (00 = 256) or two (0000 = 65536).
    static func encodeLe(_ ne: Int) -> [UInt8] {
        if ne <= 256 { return [UInt8(ne & 0xFF)] }
        return [UInt8((ne >> 8) & 0xFF), UInt8(ne & 0xFF)]
    }

    /// The size of a protected response carrying `plain` data bytes (status word included).
    public static func protectedResponseLength(plain: Int, blockSize: Int) -> Int {
        var size = 4 + 10 + 2  // DO'99', DO'8E', SW
        if plain > 0 {
            let padded = (plain / blockSize + 1) * blockSize
            size += 1 + TLV.encodeLength(padded + 1).count + 1 + padded
        }
        return size
    }

    /// The largest plain READ BINARY length whose protected response fits `limit` bytes.
    public static func maxPlainLength(fitting limit: Int, blockSize: Int) -> Int {
        var n = max(0, limit - 16)
        while n > 0 && protectedResponseLength(plain: n, blockSize: blockSize) > limit { n -= 1 }
        return n
    }

    private mutating func incrementSSC() {
        var i = ssc.count - 1
        while i >= 0 {
            ssc[i] &+= 1
            if ssc[i] != 0 { break }
            i -= 1
        }
    }

    private func iv() throws -> [UInt8] {
        switch cipher {
        case .tripleDES:
            return [UInt8](repeating: 0, count: 8)
        case .aes128, .aes192, .aes256:
            // Doc 9303-11 §9.8.6.3: IV = E(KSEnc, SSC).
            do { return try AES.encryptECB(key: kEnc, data: ssc) } catch { throw ProtocolError.crypto(error) }
        }
    }

    private func encrypt(_ data: [UInt8]) throws -> [UInt8] {
        let padded = ISO9797Padding.pad(data, blockSize: blockSize)
        do {
            switch cipher {
            case .tripleDES: return try TripleDES.encryptCBC(key: kEnc, data: padded)
            default: return try AES.encryptCBC(key: kEnc, iv: try iv(), data: padded)
            }
        } catch let error as CryptoError {
            throw ProtocolError.crypto(error)
        }
    }

    private func decrypt(_ data: [UInt8]) throws -> [UInt8] {
        guard !data.isEmpty, data.count % blockSize == 0 else {
            throw ProtocolError.secureMessagingMalformed("cryptogram of \(data.count) bytes")
        }
        let plain: [UInt8]
        do {
            switch cipher {
            case .tripleDES: plain = try TripleDES.decryptCBC(key: kEnc, data: data)
            default: plain = try AES.decryptCBC(key: kEnc, iv: try iv(), data: data)
            }
            return try ISO9797Padding.unpad(plain)
        } catch let error as CryptoError {
            throw error == .invalidPadding
                ? ProtocolError.secureMessagingMalformed("bad padding in the cryptogram")
                : ProtocolError.crypto(error)
        }
    }

    /// `DO'87'` = 01 || cryptogram (padding-content indicator 01, ISO 9797-1 method 2), or for odd
    /// INS `DO'85'` = cryptogram (ISO/IEC 7816-4 §10.2.2).
    private func dataObject(for data: [UInt8], oddINS: Bool) throws -> [UInt8] {
        let cryptogram = try encrypt(data)
        return oddINS ? TLV.encode(tag: 0x85, value: cryptogram) : TLV.encode(tag: 0x87, value: [0x01] + cryptogram)
    }

    private func decryptDataObject(_ object: TLV) throws -> [UInt8] {
        if object.tag == 0x87 {
            guard object.value.first == 0x01 else {
                throw ProtocolError.secureMessagingMalformed("DO'87' without padding indicator 01")
            }
            return try decrypt(Array(object.value.dropFirst()))
        }
        return try decrypt(object.bytes)
    }

    /// MAC over SSC || data, padded (§9.8.6.2): retail MAC for 3DES, AES-CMAC truncated to 8 bytes.
    private func computeMAC(_ data: [UInt8]) throws -> [UInt8] {
        let input = ISO9797Padding.pad(ssc + data, blockSize: blockSize)
        do {
            switch cipher {
            case .tripleDES: return try RetailMAC.mac(key: kMac, data: input)
            default: return Array(try AESCMAC.mac(key: kMac, data: input).prefix(8))
            }
        } catch {
            throw ProtocolError.crypto(error)
        }
    }
}

/// Comparison whose time does not depend on where the inputs differ.
func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var diff: UInt8 = 0
    for i in 0..<a.count { diff |= a[i] ^ b[i] }
    return diff == 0
}
