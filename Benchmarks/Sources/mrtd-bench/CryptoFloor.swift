import MRTDCrypto
import MRTDTesting

/// The symmetric work a terminal cannot avoid for a recorded secure-messaging read, done directly
/// with the OpenSSL-backed primitives: per exchange one MAC over the command, one MAC over the
/// response and one decryption of the response's encrypted data; plus the key derivations.
enum CryptoFloor {
    static func tripleDESSession(exchanges: [ScriptedTransport.Exchange], handshake: Int) throws -> () throws -> Void {
        let key = [UInt8](repeating: 0x2F, count: 16)
        let work: [(command: [UInt8], response: [UInt8], encrypted: [UInt8])] = exchanges.dropFirst(handshake).map {
            let padded = ($0.command.count + 8 + 7) / 8 * 8
            let respPadded = ($0.response.count + 8 + 7) / 8 * 8
            let encrypted = max(0, $0.response.count - 16) / 8 * 8
            return ([UInt8](repeating: 1, count: padded), [UInt8](repeating: 2, count: respPadded),
                    [UInt8](repeating: 3, count: encrypted))
        }
        let seed = [UInt8](repeating: 7, count: 16)
        return {
            // BAC: K_seed → K_Enc/K_MAC, then the session keys (2 × 2 SHA-1 derivations), the
            // mutual authentication cryptogram (encrypt, MAC, decrypt, MAC).
            for counter: UInt32 in [1, 2, 1, 2] {
                _ = KeyDerivation.derive(sharedSecret: seed, counter: counter, cipher: .tripleDES)
            }
            let block = [UInt8](repeating: 9, count: 32)
            _ = try TripleDES.encryptCBC(key: key, data: block)
            _ = try RetailMAC.mac(key: key, data: block)
            _ = try TripleDES.decryptCBC(key: key, data: block)
            _ = try RetailMAC.mac(key: key, data: block)
            for item in work {
                _ = try RetailMAC.mac(key: key, data: item.command)
                _ = try RetailMAC.mac(key: key, data: item.response)
                if !item.encrypted.isEmpty { _ = try TripleDES.decryptCBC(key: key, data: item.encrypted) }
            }
        }
    }
}
