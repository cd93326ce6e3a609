import SwiftASN1
internal import CLibCrypto
import MRTDCore

/// The two shapes of SubjectPublicKeyInfo (RFC 5280 §4.1.2.7) most eMRTD keys have, built with
/// `EVP_PKEY_fromdata` instead of `d2i_PUBKEY`: EC on one of the standardized curves of
/// Doc 9303-11 §9.5.1 (``ECGroup/StandardCurve``, named by OID) with an uncompressed point
/// (RFC 5480), and RSA (RFC 3279 §2.3.1).
///
/// Why: OpenSSL 3.0 decodes every SubjectPublicKeyInfo by building a decoder context over every
/// provider's decoders: about 1,000 small allocations and 0.27-0.29 ms for a P-256 or RSA-2048 key,
/// against 0.04-0.05 ms here. A read decodes the Active Authentication key of DG15 and the document
/// signer's key of EF.SOD.
///
/// The input is parsed as ``SubjectPublicKeyInfo`` (MRTDCore) and takes this lane only when it is
/// exactly the DER encoding of what was parsed. Anything else (explicit parameters, other curves,
/// compressed points, BER), and any key OpenSSL refuses here (a point off the curve), goes to
/// `d2i_PUBKEY` as before, which accepts or rejects it with its own error.
enum SubjectPublicKeyInfoFastLane {
    /// The key, or nil when `der` is not exactly one of the two shapes or OpenSSL refuses it here.
    static func key(_ der: [UInt8]) -> EVPKeyHandle? {
        guard der.first == 0x30, let spki = try? SubjectPublicKeyInfo(encoded: der), (try? spki.derEncoded()) == der
        else { return nil }
        switch spki.algorithm.algorithm {
        case SecurityProtocolOID.ecPublicKey:
            guard case .namedCurve(let oid)? = try? spki.algorithm.domainParameters,
                  let curve = ECGroup.StandardCurve.allCases.first(where: { $0.oid == oid }),
                  spki.subjectPublicKey.first == 0x04, let name = OBJ_nid2sn(curve.nid)
            else { return nil }
            return ec(curve: String(cString: name), point: spki.subjectPublicKey)
        case ASN1ObjectIdentifier.AlgorithmIdentifier.rsaEncryption:  // RFC 3279 §2.3.1: parameters NULL
            guard spki.algorithm.parameters == [0x05, 0x00], let rsaKey = try? TLV.parse(spki.subjectPublicKey), rsaKey.tag == 0x30,
                  let integers = try? rsaKey.children(), integers.count == 2, integers.allSatisfy({ $0.tag == 0x02 }),
                  TLV.encode(tag: 0x30, children: integers.map(\.encoded)) == spki.subjectPublicKey,
                  let modulus = positiveMinimal(integers[0].value), let exponent = positiveMinimal(integers[1].value)
            else { return nil }
            return rsa(modulus: modulus, exponent: exponent)
        default:
            return nil
        }
    }

    /// The magnitude of a DER INTEGER's content if it is positive and minimally encoded, else nil.
    static func positiveMinimal(_ content: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let first = content.first, first & 0x80 == 0 else { return nil }
        if first == 0x00 {
            guard content.count > 1, content[content.startIndex + 1] & 0x80 != 0 else { return nil }
            return content.dropFirst()
        }
        return content
    }

    /// `EVP_PKEY_fromdata` for a public key of `type` from `params`; nil (the error queue cleared)
    /// when OpenSSL refuses them.
    private static func fromdata(_ type: String, _ params: inout [OSSL_PARAM]) -> EVPKeyHandle? {
        var key: OpaquePointer? = nil
        guard let context = try? EVPKeyContext(typeName: type), EVP_PKEY_fromdata_init(context.pointer) == 1,
              EVP_PKEY_fromdata(context.pointer, &key, mrtd_EVP_PKEY_PUBLIC_KEY(), &params) == 1, let key
        else {
            CryptoError.clearOpenSSLQueue()
            return nil
        }
        return EVPKeyHandle(taking: key)
    }

    // OSSL_PARAM keeps pointers to its keys and values: all of them must outlive the fromdata call.

    private static func ec(curve: String, point: [UInt8]) -> EVPKeyHandle? {
        var point = point
        return "group".withCString { groupKey in
            "pub".withCString { pubKey in
                curve.withCString { name in
                    point.withUnsafeMutableBytes { point in
                        var params = [
                            OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: name), 0),
                            OSSL_PARAM_construct_octet_string(pubKey, point.baseAddress, point.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return fromdata("EC", &params)
                    }
                }
            }
        }
    }

    private static func rsa(modulus: ArraySlice<UInt8>, exponent: ArraySlice<UInt8>) -> EVPKeyHandle? {
        // OSSL_PARAM integers are in native byte order (little-endian here), DER's big-endian.
        var n = Array(modulus.reversed()), e = Array(exponent.reversed())
        return "n".withCString { nKey in
            "e".withCString { eKey in
                n.withUnsafeMutableBufferPointer { n in
                    e.withUnsafeMutableBufferPointer { e in
                        var params = [
                            OSSL_PARAM_construct_BN(nKey, n.baseAddress, n.count),
                            OSSL_PARAM_construct_BN(eKey, e.baseAddress, e.count),
                            OSSL_PARAM_construct_end(),
                        ]
                        return fromdata("RSA", &params)
                    }
                }
            }
        }
    }
}

extension EVPKeyHandle {
    /// Whether both hold the same key: type, domain parameters and public value (`EVP_PKEY_eq`).
    func isSameKey(as other: EVPKeyHandle) -> Bool {
        let same = EVP_PKEY_eq(pointer, other.pointer) == 1
        CryptoError.clearOpenSSLQueue()
        return same
    }

    /// The key type's NID (`EVP_PKEY_get_base_id`) and size in bits.
    var typeAndBits: (type: Int32, bits: Int32) { (EVP_PKEY_get_base_id(pointer), EVP_PKEY_get_bits(pointer)) }
}
