import MRTDCore
@testable import MRTDCrypto
import SwiftASN1
import Testing

/// `SubjectPublicKeyInfoFastLane` builds the common keys with EVP_PKEY_fromdata instead of OpenSSL
/// 3.0's slow `d2i_PUBKEY`: each key it builds must be the key `d2i_PUBKEY` decodes (same type,
/// domain parameters, public value, size, group name and encoding), and everything else must go to
/// `d2i_PUBKEY` and come out as before (accepted or refused alike).
@Suite struct SubjectPublicKeyInfoFastLaneTests {
    static let curves = [
        "prime192v1", "secp224r1", "prime256v1", "secp384r1", "secp521r1", "brainpoolP192r1",
        "brainpoolP224r1", "brainpoolP256r1", "brainpoolP320r1", "brainpoolP384r1", "brainpoolP512r1",
    ]

    /// Checks that the lane took `der` and built what d2i_PUBKEY decodes.
    static func expectSameAsDecoder(_ der: [UInt8], _ what: String) throws {
        let fast = try #require(SubjectPublicKeyInfoFastLane.key(der), "\(what): the fast lane refused it")
        let decoded = try EVPKeyHandle.decodePublicKey(der)
        #expect(fast.isSameKey(as: decoded), "\(what): EVP_PKEY_eq")
        #expect(fast.typeAndBits == decoded.typeAndBits, "\(what)")
        #expect(fast.text("group") == decoded.text("group"), "\(what): group name")
        #expect(try fast.subjectPublicKeyInfo() == der, "\(what): re-encoded")
        #expect(try EVPKeyHandle.parsePublicKey(der).isSameKey(as: decoded), "\(what): parsePublicKey")
    }

    @Test(arguments: curves)
    func aNamedCurveKeyIsTheKeyTheDecoderBuilds(_ curve: String) throws {
        let key = try PrivateKey.generate(.ec(curve: curve, explicitParameters: false))
        let der = try key.subjectPublicKeyInfo()
        try Self.expectSameAsDecoder(der, curve)
        // And it verifies what the private key signed.
        let message = Array("active authentication".utf8)
        let signature = try key.sign(message: message, scheme: .ecdsa(.sha256))
        let publicKey = try PublicKey(subjectPublicKeyInfo: der)
        #expect(try publicKey.verify(signature: signature, message: message, scheme: .ecdsa(.sha256)))
        #expect(try publicKey.verify(signature: signature, message: message + [1], scheme: .ecdsa(.sha256)) == false)
    }

    @Test(arguments: [1024, 2048, 3072])
    func anRSAKeyIsTheKeyTheDecoderBuilds(_ bits: Int) throws {
        let key = try PrivateKey.generate(.rsa(bits: bits))
        let der = try key.subjectPublicKeyInfo()
        try Self.expectSameAsDecoder(der, "RSA-\(bits)")
        let message = Array("document security object".utf8)
        let signature = try key.sign(message: message, scheme: .rsaPKCS1v15(.sha256))
        #expect(try PublicKey(subjectPublicKeyInfo: der).verify(signature: signature, message: message, scheme: .rsaPKCS1v15(.sha256)))
    }

    /// The modulus of a generated key with the exponents RSA keys in the field use (3, 17, 65537),
    /// and a modulus whose top bit needs DER's leading zero byte.
    @Test func rsaExponentsAndLeadingZerosAreTheDecoders() throws {
        let der = try PrivateKey.generate(.rsa(bits: 1024)).subjectPublicKeyInfo()
        let spki = try TLV.parse(der)
        let bits = try spki.children()[1].value.dropFirst()
        let modulusTLV = try TLV.parse(bits).children()[0]
        let modulus = modulusTLV.encoded
        #expect(modulusTLV.value.first == 0x00, "a generated modulus has its top bit set, so DER adds a zero byte")
        let rsaOID = ASN1ObjectIdentifier.AlgorithmIdentifier.rsaEncryption.contentOctets
        let rsaAlgorithm = TLV.encode(tag: 0x06, value: rsaOID) + [0x05, 0x00]
        for exponent: [UInt8] in [[0x03], [0x11], [0x01, 0x00, 0x01]] {
            let key = TLV.encode(tag: 0x30, children: [modulus, TLV.encode(tag: 0x02, value: exponent)])
            let built = TLV.encode(tag: 0x30, children: [
                TLV.encode(tag: 0x30, value: rsaAlgorithm), TLV.encode(tag: 0x03, value: [0x00] + key),
            ])
            try Self.expectSameAsDecoder(built, "RSA e=\(exponent)")
        }
    }

    /// Shapes the lane leaves to d2i_PUBKEY, which must then answer exactly as it did alone.
    @Test func everythingElseGoesToTheDecoderAndComesOutAsBefore() throws {
        let named = try PrivateKey.generate(.ec(curve: "brainpoolP256r1", explicitParameters: false)).subjectPublicKeyInfo()
        let explicit = try PrivateKey.generate(.ec(curve: "brainpoolP256r1", explicitParameters: true)).subjectPublicKeyInfo()
        let rsa = try PrivateKey.generate(.rsa(bits: 1024)).subjectPublicKeyInfo()
        // Named, but not one of Doc 9303's curves (ECGroup.StandardCurve).
        let p160 = try PrivateKey.generate(.ec(curve: "brainpoolP160r1", explicitParameters: false)).subjectPublicKeyInfo()
        let spki = try TLV.parse(named)
        let algorithm = try spki.children()[0].encoded
        let point = Array(try spki.children()[1].value.dropFirst())
        let x = point[1...32]
        func withPoint(_ point: [UInt8]) -> [UInt8] {
            TLV.encode(tag: 0x30, children: [algorithm, TLV.encode(tag: 0x03, value: [0x00] + point)])
        }
        var offCurve = point
        offCurve[offCurve.count - 1] ^= 0x01
        // The same SPKI with a long-form length where DER wants the short one.
        let longForm = [0x30, 0x81, UInt8(named.count - 2)] + named.dropFirst(2)
        let cases: [(String, [UInt8], shouldDecode: Bool)] = [
            ("explicit parameters", explicit, true),
            ("brainpoolP160r1", p160, true),
            ("compressed point", withPoint([0x02 | (point[point.count - 1] & 1)] + x), true),
            ("point off the curve", withPoint(offCurve), false),
            ("a byte after the SubjectPublicKeyInfo", named + [0x00], false),
            ("long-form length", longForm, true),
            ("truncated", Array(named.dropLast()), false),
            ("empty", [], false),
            ("unknown curve", withAlgorithm(algorithm, curveLastByte: 0x7F, in: named), false),
            ("RSA with a non-minimal exponent", rsaWithExponent([0x00, 0x03], rsa), true),
        ]
        for (what, der, shouldDecode) in cases {
            #expect(SubjectPublicKeyInfoFastLane.key(der) == nil || shouldDecode, "\(what): the lane built a key the decoder refuses")
            let decoded = try? EVPKeyHandle.decodePublicKey(der)
            let parsed = try? EVPKeyHandle.parsePublicKey(der)
            #expect((decoded != nil) == (parsed != nil), "\(what): parsePublicKey and d2i_PUBKEY disagree")
            if let decoded, let parsed { #expect(parsed.isSameKey(as: decoded), "\(what)") }
            if what != "long-form length" && what != "RSA with a non-minimal exponent" {
                #expect((decoded != nil) == shouldDecode, "\(what): d2i_PUBKEY \(decoded == nil ? "refused" : "accepted") it")
            }
        }
        #expect(SubjectPublicKeyInfoFastLane.key(explicit) == nil)
        #expect(SubjectPublicKeyInfoFastLane.key(longForm) == nil)
        #expect(SubjectPublicKeyInfoFastLane.key(p160) == nil)
    }

    private func withAlgorithm(_ algorithm: [UInt8], curveLastByte: UInt8, in der: [UInt8]) -> [UInt8] {
        var changed = algorithm
        changed[changed.count - 1] = curveLastByte
        let rest = (try? TLV.parse(der).children()[1].encoded) ?? []
        return TLV.encode(tag: 0x30, children: [changed, rest])
    }

    private func rsaWithExponent(_ exponent: [UInt8], _ der: [UInt8]) -> [UInt8] {
        guard let spki = try? TLV.parse(der), let parts = try? spki.children(),
              let key = try? TLV.parse(parts[1].value.dropFirst()), let integers = try? key.children() else { return [] }
        let rebuilt = TLV.encode(tag: 0x30, children: [integers[0].encoded, TLV.encode(tag: 0x02, value: exponent)])
        return TLV.encode(tag: 0x30, children: [parts[0].encoded, TLV.encode(tag: 0x03, value: [0x00] + rebuilt)])
    }
}
