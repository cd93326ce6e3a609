import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol

/// Secure-messaging unwrap with fixed keys and SSC, 3DES and AES:
/// - any bytes given as a response: no trap, and nothing comes out unless its MAC is right;
/// - any data and status word protected by the chip side come back unchanged, and the same response
///   with one byte changed is refused.
@main enum FuzzSMUnwrap {
    static func main() { FuzzDriver.run(test) }

    static func session(_ aes: Bool) -> SecureMessaging {
        aes ? SecureMessaging(cipher: .aes128, kEnc: Array(repeating: 0x11, count: 16), kMac: Array(repeating: 0x22, count: 16), ssc: Array(repeating: 0, count: 16))
            : SecureMessaging(cipher: .tripleDES, kEnc: Array(repeating: 0x13, count: 16), kMac: Array(repeating: 0x25, count: 16), ssc: Array(repeating: 0, count: 8))
    }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let mode = input.byte()
        let aes = mode & 0x80 != 0
        var terminal = session(aes)
        if mode & 1 == 0 {
            // Raw response bytes.
            _ = try? terminal.unprotect(input.rest())
            return 0
        }
        var chip = session(aes)
        let flip = input.uint16()
        let sw = StatusWord(rawValue: UInt16(input.uint16()))
        let plain = input.rest()
        guard let protected = try? chip.protectResponse(ResponseAPDU(data: plain, statusWord: sw)) else { return 0 }
        // The plain status word after the objects is not covered by the MAC (DO'99' carries the
        // protected one), so only the objects are tampered with.
        var tampered = protected
        if tampered.count > 2 { tampered[flip % (tampered.count - 2)] ^= 0x01 << (flip >> 13) }
        var other = session(aes)
        do {
            let back = try terminal.unprotect(protected)
            fuzzCheck(back.data == plain && back.statusWord == sw, "protect/unprotect round trip changed the response")
        } catch {
            // The chip side refuses some status words in protected form (none expected).
            fuzzCheck(false, "a response the chip protected was refused: \(error)")
        }
        if tampered != protected, let accepted = try? other.unprotect(tampered) {
            fuzzCheck(false, "a tampered response was accepted (\(accepted.data.count) bytes)")
        }
        return 0
    }
}
