import Foundation
import MRTDChipCrypto
import MRTDTesting
import Testing

/// The chip side of Chip Authentication v2 (BSI EAC worked example, `bsi_eac_worked_example.json`
/// beside VECTORS.md, §6) and of Active Authentication's ISO/IEC 9796-2 message representative
/// (Doc 9303-11 Appendix F, §5).
@Suite("Chip crypto: Chip and Active Authentication vectors")
struct ChipAuthenticationVectorTests {
    /// The worked example's arrays, or nil when ../shared is absent (a skip, which fails the run
    /// unless MRTD_ALLOW_SKIPS=1: `Prerequisite`).
    static func workedExample(filePath: String = #filePath) -> [String: [UInt8]]? {
        let url = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("shared/vectors/bsi_eac_worked_example.json")
        guard let data = try? Data(contentsOf: url),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: String]
        else {
            #expect(Prerequisite.skip("\(url.path) missing; the BSI worked example's chip-side checks not run"))
            return nil
        }
        return object.mapValues { hex($0) }
    }

    /// CA v2 with ECDH on brainpoolP256r1 (id-CA-ECDH-AES-CBC-CMAC-128): K from the chip's static key
    /// and the terminal's ephemeral key, the session keys from K || r, the chip's token T_PICC.
    @Test func chipAuthenticationVersion2PerBSIWorkedExample() throws {
        guard let example = Self.workedExample() else { return }
        let group = try ChipGroups.make(.standardized(13))
        let chipSK = try #require(example["tc_ecdh_ca_picc_priv_key"])
        let terminalPK = try #require(example["tc_ecdh_ca_pcd_pub_key"])
        #expect(try group.publicKey(privateKey: chipSK, generator: group.generator) == example["tc_ecdh_ca_picc_pub_key"])
        let k = try group.sharedSecret(privateKey: chipSK, peerPublicKey: terminalPK)
        #expect(k == example["tc_ecdh_ca_shared_secret_k"])
        let nonce = try #require(example["tc_ecdh_ca_nonce"])
        #expect(nonce.hexString == "4287B3072A3EDC60")
        let kMac = try ChipKeyDerivation.derive(k + nonce, counter: ChipKeyDerivation.mac, cipher: .aes128)
        #expect(kMac.hexString == "78B5709E7ABEDB185B424D0EE3A82499")
        #expect(try ChipKeyDerivation.derive(k + nonce, counter: ChipKeyDerivation.encryption, cipher: .aes128).hexString
            == "94ABCD271AB7D9A5590BA52CB518B831")
        let token = try ChipPACE.authenticationToken(
            kMac: kMac, cipher: .aes128, protocolOID: "0.4.0.127.0.7.2.2.3.2.2", publicKey: terminalPK, ellipticCurve: true)
        #expect(token.hexString == "FF0117D68DEE8E72")
        #expect(token == example["tc_ecdh_ca_picc_token"])
    }

    /// The worked example's PACE with PIN 123456 on the chip side: nonce, mapping, keys, tokens.
    @Test func paceWithPINPerBSIWorkedExample() throws {
        guard let example = Self.workedExample() else { return }
        let group = try ChipGroups.make(.standardized(13))
        let kPi = try ChipKeyDerivation.passwordKey(cardAccessNumber: "123456", cipher: .aes128)
        let s = try #require(example["tc_ecdh_nonce"])
        #expect(try ChipPACE.encryptNonce(s, passwordKey: kPi, cipher: .aes128) == example["tc_ecdh_nonce_enc"])
        let mapSK = try #require(example["tc_ecdh_map_picc_priv_key"])
        #expect(try group.publicKey(privateKey: mapSK, generator: group.generator) == example["tc_ecdh_map_picc_pub_key"])
        let h = try group.sharedElement(privateKey: mapSK, peerPublicKey: try #require(example["tc_ecdh_map_pcd_pub_key"]))
        let mapped = try group.genericMapping(nonce: s, sharedElement: h)
        #expect(mapped == example["tc_ecdh_map_generator"])
        let ephSK = try #require(example["tc_ecdh_picc_priv_key"])
        let ephPK = try group.publicKey(privateKey: ephSK, generator: mapped)
        #expect(ephPK == example["tc_ecdh_picc_pub_key"])
        let terminalPK = try #require(example["tc_ecdh_pcd_pub_key"])
        let k = try group.sharedSecret(privateKey: ephSK, peerPublicKey: terminalPK)
        #expect(k == example["tc_ecdh_shared_secret_k"])
        let kMac = try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.mac, cipher: .aes128)
        #expect(kMac == example["tc_ecdh_k_mac"])
        #expect(try ChipKeyDerivation.derive(k, counter: ChipKeyDerivation.encryption, cipher: .aes128) == example["tc_ecdh_k_enc"])
        let oid = "0.4.0.127.0.7.2.2.4.2.2"
        #expect(try ChipPACE.authenticationToken(kMac: kMac, cipher: .aes128, protocolOID: oid, publicKey: terminalPK, ellipticCurve: true)
            == example["tc_ecdh_authentication_token_picc"])
        #expect(try ChipPACE.authenticationToken(kMac: kMac, cipher: .aes128, protocolOID: oid, publicKey: ephPK, ellipticCurve: true)
            == example["tc_ecdh_authentication_token_pcd"])
    }

    /// Appendix F: F = 6A || M1 || SHA-1(M1 || M2) || BC for RSA-1024, M2 = RND.IFD.
    @Test func activeAuthenticationRepresentativePerAppendixF() throws {
        let m1 = hex("9D2784A67F8E7C659973EA1AEA25D95B6C8F91E5002F369F0FBDCE8A3CEC1991B543F1696546C5524CF23A5303CD6C98599F40B79F377B5F3A1406B3B4D8F96784D23AA88DB7E1032A405E69325FA91A6E86F5C71AEA978264C4A207446DAD4E7292E2DCDA3024B47DA8")
        let script = ScriptedBytes([m1])
        let f = try ChipActiveAuthentication.representative(
            modulusBits: 1024, m2: hex("F173589974BF40C6"), digest: .sha1, random: script.next)
        #expect(f.hexString == "6A" + m1.hexString + "C063AA1E6D22FBD976AB0FE73D94D2D9C6D88127BC")
    }

    /// Other hashes end in the ISO/IEC 10118-3 identifier and CC (SHA-256: 34 CC).
    @Test func activeAuthenticationRepresentativeWithSHA256EndsIn34CC() throws {
        let script = ScriptedBytes([[UInt8](repeating: 0x11, count: 128 - 1 - 32 - 2)])
        let f = try ChipActiveAuthentication.representative(
            modulusBits: 1024, m2: hex("F173589974BF40C6"), digest: .sha256, random: script.next)
        #expect(f.count == 128 && f.first == 0x6A && Array(f.suffix(2)) == [0x34, 0xCC])
    }
}

/// Terminal Authentication on the chip side against the BSI EAC worked example: the CVCA → DV → IS
/// chain (ECDSA, the curve from the CVCA certificate) and the terminal's signature over
/// `ID_PICC || r_PICC || Comp(PK_PCD)`, with ID_PICC = Comp(PK_PICC) from PACE.
@Suite("Chip crypto: Terminal Authentication vectors")
struct ChipTerminalAuthenticationVectorTests {
    /// A CV certificate's signed body, signature, algorithm OID and key elements, read with the
    /// chip's own TLV reader.
    struct Certificate {
        var body: [UInt8]
        var signature: [UInt8]
        var algorithmOID: String
        var elements: [UInt: [UInt8]]

        init(_ bytes: [UInt8]) throws {
            let outer = try #require(try ChipTLV.parseAll(bytes).first)
            #expect(outer.tag == 0x7F21)
            let parts = try ChipTLV.parseAll(outer.value)
            let body = try #require(parts.first { $0.tag == 0x7F4E })
            self.body = body.encoded
            signature = try #require(parts.first { $0.tag == 0x5F37 }).value
            let key = try #require(try ChipTLV.parseAll(body.value).first { $0.tag == 0x7F49 })
            let keyParts = try ChipTLV.parseAll(key.value)
            let oid = try #require(keyParts.first { $0.tag == 0x06 }).value
            algorithmOID = Self.dotted(oid)
            elements = Dictionary(uniqueKeysWithValues: keyParts.filter { $0.tag != 0x06 }.map { ($0.tag, $0.value) })
        }

        func key(domain: [UInt: [UInt8]]) throws -> ChipTerminalAuthentication.Key {
            let source = elements[0x81] != nil ? elements : domain
            return .ec(
                domain: .curve(
                    p: try #require(source[0x81]), a: try #require(source[0x82]), b: try #require(source[0x83]),
                    generator: try #require(source[0x84]), order: try #require(source[0x85]), cofactor: source[0x87] ?? [1]),
                point: try #require(elements[0x86]))
        }

        static func dotted(_ content: [UInt8]) -> String {
            var arcs = [Int(content[0]) / 40, Int(content[0]) % 40]
            var value = 0
            for byte in content.dropFirst() {
                value = value << 7 | Int(byte & 0x7F)
                if byte & 0x80 == 0 {
                    arcs.append(value)
                    value = 0
                }
            }
            return arcs.map(String.init).joined(separator: ".")
        }
    }

    @Test func theWorkedExampleChainAndTerminalSignatureVerify() throws {
        guard let example = ChipAuthenticationVectorTests.workedExample() else { return }
        let cvca = try Certificate(try #require(example["tc_ecdh_cvca_cert"]))
        let dv = try Certificate(try #require(example["tc_ecdh_dv_cert"]))
        let terminal = try Certificate(try #require(example["tc_ecdh_ta_cert"]))
        #expect(ChipTerminalAuthentication.verify(
            algorithmOID: cvca.algorithmOID, key: try cvca.key(domain: cvca.elements), message: dv.body, signature: dv.signature))
        #expect(ChipTerminalAuthentication.verify(
            algorithmOID: dv.algorithmOID, key: try dv.key(domain: cvca.elements), message: terminal.body, signature: terminal.signature))
        // The chain does not verify against the wrong issuer: the IS certificate under the CVCA key.
        #expect(!ChipTerminalAuthentication.verify(
            algorithmOID: cvca.algorithmOID, key: try cvca.key(domain: cvca.elements), message: terminal.body, signature: terminal.signature))

        let chipIdentifier = try ChipTerminalAuthentication.compressed(try #require(example["tc_ecdh_picc_pub_key"]), ellipticCurve: true)
        let input = try ChipTerminalAuthentication.signatureInput(
            chipIdentifier: chipIdentifier, challenge: try #require(example["tc_ecdh_ta_nonce"]),
            terminalKey: try #require(example["tc_ecdh_ca_pcd_pub_key"]), ellipticCurve: true)
        let signature = try #require(example["tc_ecdh_ta_pcd_signature"])
        #expect(ChipTerminalAuthentication.verify(
            algorithmOID: terminal.algorithmOID, key: try terminal.key(domain: cvca.elements), message: input, signature: signature))
        var flipped = signature
        flipped[5] ^= 0x01
        #expect(!ChipTerminalAuthentication.verify(
            algorithmOID: terminal.algorithmOID, key: try terminal.key(domain: cvca.elements), message: input, signature: flipped))
    }
}
