public import SwiftASN1

// `ASN1ObjectIdentifier` (swift-asn1) is the one OID type of the product: the protocol OIDs
// are typed constants (`SecurityProtocolOID`, `LDSSecurityObject.oid`, `DigestAlgorithm.oid`, ...),
// never dotted strings or tables of encoded bytes. These helpers cover what OID families need.
extension ASN1ObjectIdentifier {
    /// CMS (RFC 5652 §5.1, §11): the SignedData content type and the signed attributes it requires.
    public enum CMS {
        public static let signedData: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 7, 2]
        public static let contentType: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 3]
        public static let messageDigest: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 4]
        public static let signingTime: ASN1ObjectIdentifier = [1, 2, 840, 113549, 1, 9, 5]
    }

    /// The content types of ICAO's signed lists (Doc 9303-12 §9, §10). The LDS's own,
    /// `id-icao-mrtd-security-ldsSecurityObject`, is `LDSSecurityObject.oid`.
    public enum ICAO {
        /// `id-icao-cscaMasterList`.
        public static let cscaMasterList: ASN1ObjectIdentifier = [2, 23, 136, 1, 1, 2]
        /// `id-icao-DeviationList`.
        public static let deviationList: ASN1ObjectIdentifier = [2, 23, 136, 1, 1, 7]
    }

    /// Digests Doc 9303-12 §7 does not permit (SHA-1 and SHA-2 only); the permitted ones are
    /// `DigestAlgorithm.oid`.
    public enum WeakDigest {
        public static let md2: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 2]
        public static let md4: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 4]
        public static let md5: ASN1ObjectIdentifier = [1, 2, 840, 113549, 2, 5]
    }

    /// The certificate extensions passive authentication reads (RFC 5280 §4.2.1, `id-ce` = 2.5.29).
    public enum CertificateExtension {
        public static let subjectKeyIdentifier: ASN1ObjectIdentifier = [2, 5, 29, 14]
        public static let keyUsage: ASN1ObjectIdentifier = [2, 5, 29, 15]
        public static let basicConstraints: ASN1ObjectIdentifier = [2, 5, 29, 19]
        public static let authorityKeyIdentifier: ASN1ObjectIdentifier = [2, 5, 29, 35]
    }

    /// This OID in storage of its own. One parsed from a buffer keeps its encoding as a slice of that
    /// buffer (swift-asn1 stores an `ArraySlice<UInt8>`), and with it the whole buffer, for as long as
    /// the OID lives: a trust store's certificates kept every master list file they came from in
    /// memory (1.5 MB of RssAnon for the shipped DE and NL lists). What outlives its parse holds this.
    public var owned: ASN1ObjectIdentifier {
        (try? ASN1ObjectIdentifier(elements: oidComponents)) ?? self
    }

    /// The arcs after `prefix`, or `nil` when this OID does not lie under `prefix`.
    public func arcs(under prefix: ASN1ObjectIdentifier) -> [UInt]? {
        let arcs = oidComponents, base = prefix.oidComponents
        guard arcs.count > base.count, arcs.starts(with: base) else { return nil }
        return Array(arcs[base.count...])
    }

    /// This OID with `arcs` appended (`id-PACE` + `2.2` is `id-PACE-ECDH-GM-AES-CBC-CMAC-128`).
    public func appending(_ arcs: UInt...) -> ASN1ObjectIdentifier {
        // Appending arcs to a valid OID keeps it valid, so this never fails.
        try! ASN1ObjectIdentifier(elements: oidComponents + arcs)
    }

    /// The content octets of the DER encoding (X.690 §8.19), without tag and length: tag `80` of
    /// MSE:Set AT carries them, and CV certificates and names are compared on them.
    public var contentOctets: [UInt8] {
        var serializer = DER.Serializer()
        // Serializing an OID appends bytes and cannot fail.
        try? serializer.serialize(self)
        let encoded = serializer.serializedBytes
        // Tag 06, then a short-form length (up to 127 content octets) or a long form.
        let lengthOctets = encoded[1] < 0x80 ? 1 : 1 + Int(encoded[1] & 0x7F)
        return Array(encoded.dropFirst(1 + lengthOctets))
    }
}
