import MRTDCore
import MRTDCrypto

/// A Chip Authentication protocol OID (Doc 9303-11 §9.2.5, BSI TR-03110-3 §A.1.1.2):
/// `id-CA-{DH,ECDH}-{3DES-CBC-CBC, AES-CBC-CMAC-128/192/256}`, under `0.4.0.127.0.7.2.2.3`.
public struct ChipAuthenticationMechanism: Sendable, Equatable, CustomStringConvertible {
    /// The dotted OID.
    public let oid: String
    /// ECDH or DH.
    public let keyAgreement: KeyAgreementAlgorithm
    /// The secure messaging cipher the new session keys are for.
    public let cipher: SMCipher

    /// `id-CA-DH` / `id-CA-ECDH` arc.
    public static let caPrefix = "0.4.0.127.0.7.2.2.3"

    /// Recognises a CA protocol OID; `nil` for anything else.
    public init?(oid: String) {
        guard oid.hasPrefix(Self.caPrefix + ".") else { return nil }
        let tail = oid.dropFirst(Self.caPrefix.count + 1).split(separator: ".")
        guard tail.count == 2, let family = Int(tail[0]), let suite = Int(tail[1]) else { return nil }
        switch family {
        case 1: keyAgreement = .dh
        case 2: keyAgreement = .ecdh
        default: return nil
        }
        switch suite {
        case 1: cipher = .tripleDES
        case 2: cipher = .aes128
        case 3: cipher = .aes192
        case 4: cipher = .aes256
        default: return nil
        }
        self.oid = oid
    }

    /// The default when DG14 has a key but no ChipAuthenticationInfo: the 3DES variant of the key's
    /// algorithm (Doc 9303-11 §9.2.5: ChipAuthenticationInfo may be absent for 3DES).
    public static func tripleDESDefault(for keyAgreement: KeyAgreementAlgorithm) -> ChipAuthenticationMechanism {
        ChipAuthenticationMechanism(oid: caPrefix + (keyAgreement == .dh ? ".1.1" : ".2.1"))!
    }

    /// Whether the AES variant (MSE:Set AT + GENERAL AUTHENTICATE) applies; 3DES uses MSE:Set KAT.
    public var usesGeneralAuthenticate: Bool { cipher != .tripleDES }

    /// The ICAO name: `id-CA-ECDH-AES-CBC-CMAC-128`.
    public var name: String {
        let family = keyAgreement == .dh ? "DH" : "ECDH"
        switch cipher {
        case .tripleDES: return "id-CA-\(family)-3DES-CBC-CBC"
        case .aes128: return "id-CA-\(family)-AES-CBC-CMAC-128"
        case .aes192: return "id-CA-\(family)-AES-CBC-CMAC-192"
        case .aes256: return "id-CA-\(family)-AES-CBC-CMAC-256"
        }
    }

    public var description: String { name }
}

/// DER content bytes of an OBJECT IDENTIFIER (X.690 §8.19) from its dotted form.
enum ObjectIdentifierContent {
    static func encode(_ dotted: String) -> [UInt8]? {
        let arcs = dotted.split(separator: ".").compactMap { UInt64($0) }
        guard arcs.count >= 2, arcs.count == dotted.split(separator: ".").count, arcs[0] <= 2 else { return nil }
        var out: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            out += chunk
        }
        return out
    }
}
