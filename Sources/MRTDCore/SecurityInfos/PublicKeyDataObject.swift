public import SwiftASN1

/// Public key data objects (Doc 9303-11 §9.4, BSI TR-03110-3 §D.3), the input of the PACE and
/// Chip Authentication tokens: tag `7F49` around the protocol OID (`06`) and the key, `86` for an
/// elliptic curve point, `84` for a DH public value. Domain parameters are left out (§4.4.3.4).
public enum PublicKeyDataObject {
    /// `7F49 { 06 oid, 86 point | 84 y }`.
    ///
    /// - Parameter publicKey: the key as exchanged (encoded point, or DH value). The DH value y goes
    ///   in as an unsigned integer with the minimal number of octets (§9.4.1), whatever leading
    ///   zeros it came with.
    public static func encode(protocolOID: ASN1ObjectIdentifier, keyAgreement: KeyAgreementAlgorithm,
                              publicKey: [UInt8]) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(protocolOID)
        let oid = serializer.serializedBytes
        let key = TLV.encode(tag: keyAgreement == .ecdh ? 0x86 : 0x84,
                             value: MinimalBytes.publicKey(publicKey, keyAgreement: keyAgreement))
        return TLV.encode(tag: 0x7F49, value: oid + key)
    }
}
