import MRTDCore
import MRTDCrypto
@testable import MRTDProtocol
import Testing

/// Regression tests from fuzzing (fuzz_sm_unwrap): the MAC covers the data objects as received.
@Suite struct SecureMessagingEncodingTests {
    static func pair(_ cipher: SMCipher) -> (chip: SecureMessaging, terminal: SecureMessaging) {
        let n = cipher == .tripleDES ? 8 : 16
        let sm = SecureMessaging(cipher: cipher, kEnc: Array(repeating: 0x11, count: 16), kMac: Array(repeating: 0x22, count: 16), ssc: Array(repeating: 0, count: n))
        return (sm, sm)
    }

    @Test(arguments: [SMCipher.tripleDES, .aes128])
    func aLongerLengthFormOfTheSameObjectsBreaksTheMAC(cipher: SMCipher) throws {
        var (chip, terminal) = Self.pair(cipher)
        let protected = try chip.protectResponse(ResponseAPDU(data: [1, 2, 3], statusWord: .success))
        // DO'87' 0x81 LL instead of LL: the same objects, re-encoded.
        #expect(protected[0] == 0x87 && protected[1] < 0x80)
        let stretched = [0x87, 0x81] + protected[1...]
        #expect(throws: ProtocolError.secureMessagingMACInvalid) { try terminal.unprotect(Array(stretched)) }
    }

    @Test(arguments: [SMCipher.tripleDES, .aes128])
    func anObjectAfterTheMACIsRefused(cipher: SMCipher) throws {
        var (chip, terminal) = Self.pair(cipher)
        let protected = try chip.protectResponse(ResponseAPDU(data: [], statusWord: .success))
        let extended = protected.dropLast(2) + [0x99, 0x02, 0x90, 0x00, 0x90, 0x00]
        #expect(throws: ProtocolError.self) { try terminal.unprotect(Array(extended)) }
    }

    @Test(arguments: [SMCipher.tripleDES, .aes128])
    func theRoundTripStillHolds(cipher: SMCipher) throws {
        var (chip, terminal) = Self.pair(cipher)
        for data in [[], [0x61, 0x02, 0x5F, 0x1F], Array(repeating: UInt8(0xAB), count: 300)] as [[UInt8]] {
            let protected = try chip.protectResponse(ResponseAPDU(data: data, statusWord: .success))
            let back = try terminal.unprotect(protected)
            #expect(back.data == data)
            #expect(back.statusWord == .success)
        }
    }
}
