import MRTDCore
import MRTDCrypto
import MRTDTesting

/// The cryptography a terminal cannot avoid for one recorded read, measured in the same run:
/// the symmetric work done with the OpenSSL-backed primitives one call per operation, the
/// asymmetric work with ``OpenSSLFloor`` (bare OpenSSL calls, no wrapping).
enum CryptoFloor {
    /// The symmetric work of a recorded session: the access protocol's key derivations and
    /// cryptograms, then per secure-messaging exchange one MAC over the command, one MAC over the
    /// response, the IV (AES) and one decryption of the response's encrypted data. The session cipher
    /// is the access protocol's until Chip Authentication (an SM-protected GENERAL AUTHENTICATE)
    /// switches to AES-128 (the CA key's cipher in every variant).
    static func symmetric(_ read: RecordedRead) throws -> () throws -> Void {
        var cipher: SMCipher
        var handshake: [() throws -> Void] = []
        switch read.variant.access {
        case .bac:
            cipher = .tripleDES
            handshake.append {
                // K_seed → K_Enc/K_MAC, the session keys, and the mutual authentication cryptograms
                // (encrypt and MAC ours, verify and decrypt the chip's).
                let seed = [UInt8](repeating: 7, count: 16)
                for counter: UInt32 in [1, 2, 1, 2] { _ = KeyDerivation.derive(sharedSecret: seed, counter: counter, cipher: .tripleDES) }
                let key = [UInt8](repeating: 0x2F, count: 16)
                let block = [UInt8](repeating: 9, count: 32)
                _ = try TripleDES.encryptCBC(key: key, data: block)
                _ = try RetailMAC.mac(key: key, data: block)
                _ = try TripleDES.decryptCBC(key: key, data: block)
                _ = try RetailMAC.mac(key: key, data: block)
            }
        case .pace(let info):
            cipher = .aes128
            let cam = info.paceProtocol?.mapping == .cam
            handshake.append {
                // K_π, the nonce, the session keys, both authentication tokens (CMAC over the public
                // key data objects), and for CAM the chip authentication data.
                let secret = [UInt8](repeating: 7, count: 32)
                _ = KeyDerivation.derive(sharedSecret: [UInt8](repeating: 0x31, count: 20), counter: 3, cipher: .aes128)
                let key = [UInt8](repeating: 0x2F, count: 16)
                _ = try AES.decryptCBC(key: key, iv: [UInt8](repeating: 0, count: 16), data: [UInt8](repeating: 1, count: 16))
                _ = KeyDerivation.derive(sharedSecret: secret, counter: 1, cipher: .aes128)
                _ = KeyDerivation.derive(sharedSecret: secret, counter: 2, cipher: .aes128)
                let token = [UInt8](repeating: 5, count: 90)
                _ = try AESCMAC.mac(key: key, data: token)
                _ = try AESCMAC.mac(key: key, data: token)
                if cam {
                    let iv = try AES.encryptECB(key: key, data: [UInt8](repeating: 0xFF, count: 16))
                    _ = try AES.decryptCBC(key: key, iv: iv, data: [UInt8](repeating: 3, count: 48))
                }
            }
        }
        var exchanges: [(cipher: SMCipher, command: [UInt8], response: [UInt8], encrypted: [UInt8], commandIV: Bool)] = []
        for exchange in read.exchanges {
            let command = exchange.command
            guard let cla = command.first, cla & 0x0C == 0x0C, command.count > 4 else { continue }
            let block = cipher.blockSize
            let macInput = cipher == .tripleDES ? 0 : block  // AES MACs cover the 16-byte SSC too
            let commandMAC = (command.count + macInput + block - 1) / block * block
            let responseMAC = (max(0, exchange.response.count - 12) + macInput + block) / block * block
            let encrypted = max(0, exchange.response.count - 20) / block * block
            // Command data (DO 85/87) needs an IV of its own: the first data object after the header.
            let dataOffset = command.count > 7 && command[4] == 0 ? 7 : 5
            let commandData = command.count > dataOffset && [0x85, 0x87].contains(command[dataOffset])
            exchanges.append((cipher, [UInt8](repeating: 1, count: commandMAC), [UInt8](repeating: 2, count: responseMAC),
                              [UInt8](repeating: 3, count: encrypted), commandData))
            if command[1] == 0x86 {
                // Chip Authentication: the key derivations, then AES-128 for the rest of the read.
                handshake.append {
                    let secret = [UInt8](repeating: 7, count: 32)
                    _ = KeyDerivation.derive(sharedSecret: secret, counter: 1, cipher: .aes128)
                    _ = KeyDerivation.derive(sharedSecret: secret, counter: 2, cipher: .aes128)
                }
                cipher = .aes128
            }
        }
        let work = exchanges
        let steps = handshake
        return {
            for step in steps { try step() }
            let desKey = [UInt8](repeating: 0x2F, count: 16)
            let aesKey = [UInt8](repeating: 0x3A, count: 16)
            let ssc = [UInt8](repeating: 0, count: 16)
            for item in work {
                switch item.cipher {
                case .tripleDES:
                    _ = try RetailMAC.mac(key: desKey, data: item.command)
                    _ = try RetailMAC.mac(key: desKey, data: item.response)
                    if !item.encrypted.isEmpty { _ = try TripleDES.decryptCBC(key: desKey, data: item.encrypted) }
                default:
                    if item.commandIV { _ = try AES.encryptECB(key: aesKey, data: ssc) }
                    _ = try AESCMAC.mac(key: aesKey, data: item.command)
                    _ = try AESCMAC.mac(key: aesKey, data: item.response)
                    if !item.encrypted.isEmpty {
                        let iv = try AES.encryptECB(key: aesKey, data: ssc)
                        _ = try AES.decryptCBC(key: aesKey, iv: iv, data: item.encrypted)
                    }
                }
            }
        }
    }
}
