public import SwiftASN1

/// The content signed inside EF.SOD: the hash of every data group (Doc 9303-10 §4.6.2.2).
///
/// ```
/// LDSSecurityObject ::= SEQUENCE {
///     version                LDSSecurityObjectVersion,
///     hashAlgorithm          DigestAlgorithmIdentifier,
///     dataGroupHashValues    SEQUENCE SIZE (2..ub-DataGroups) OF DataGroupHash,
///     ldsVersionInfo         LDSVersionInfo OPTIONAL
///     -- If present, version MUST be v1 }
///
/// LDSSecurityObjectVersion ::= INTEGER { v0(0), v1(1) }
///
/// DigestAlgorithmIdentifier ::= AlgorithmIdentifier
///
/// DataGroupNumber ::= INTEGER { dataGroup1(1), ..., dataGroup16(16) }
/// ```
///
/// It is the `eContent` of the CMS SignedData in EF.SOD, with content type
/// ``LDSSecurityObject/oid`` (`id-icao-mrtd-security-ldsSecurityObject`).
///
/// Parsing accepts BER (some chips encode the eContent that way) and a hash `AlgorithmIdentifier`
/// whose parameters are absent or NULL; encoding is DER with the parameters absent (RFC 5754 §2).
public struct LDSSecurityObject: DERImplicitlyTaggable, BERImplicitlyTaggable, Sendable, Hashable {
    /// `id-icao-mrtd-security-ldsSecurityObject`, the eContentType of the SOD's SignedData.
    public static let oid: ASN1ObjectIdentifier = [2, 23, 136, 1, 1, 1]

    /// eContentTypes found on EF.SOD in the field in place of ``oid``, each with the warning that
    /// passive authentication reports when it meets it (docs/field-quirks.md, "Signed data"):
    /// - `1.3.27.1.1.1`, the same object on ICAO's older `icao(27)` arc (PKI for MRTDs offering ICC
    ///   read-only access v1.1, Annex C), on Belgian and French documents (gmrtd#424, pymrtd#8);
    /// - `1.2.528.1.1006.1.20.1`, the Sdu Identification (NL) content type of some Dutch documents
    ///   (gmrtd#425; JMRTD's `SDU_LDS_SOD_OID`).
    public static let legacyContentTypes: [ASN1ObjectIdentifier: String] = [
        [1, 3, 27, 1, 1, 1]: "sodContentTypeLegacyICAO",
        [1, 2, 528, 1, 1006, 1, 20, 1]: "sodContentTypeSdu",
    ]

    @inlinable
    public static var defaultIdentifier: ASN1Identifier { .sequence }

    /// 0 (LDS 1.7) or 1 (LDS 1.8 and later, with ``ldsVersion`` and ``unicodeVersion``).
    public var version: Int
    /// The OID of the hash algorithm: `2.16.840.1.101.3.4.2.1` for SHA-256.
    public var hashAlgorithmOID: ASN1ObjectIdentifier
    /// The hashes in the order they appear in the object.
    public var dataGroupHashes: [DataGroupHash]
    /// `LDSVersionInfo.ldsVersion` (`"0108"`), v1 only.
    public var ldsVersion: String?
    /// `LDSVersionInfo.unicodeVersion` (`"040000"`), v1 only.
    public var unicodeVersion: String?

    /// An object holding `dataGroupHashes` in the given order.
    public init(
        version: Int = 0,
        hashAlgorithmOID: ASN1ObjectIdentifier,
        dataGroupHashes: [DataGroupHash],
        ldsVersion: String? = nil,
        unicodeVersion: String? = nil
    ) {
        self.version = version
        self.hashAlgorithmOID = hashAlgorithmOID
        self.dataGroupHashes = dataGroupHashes
        self.ldsVersion = ldsVersion
        self.unicodeVersion = unicodeVersion
    }

    /// An object holding `dataGroupHashes` in ascending data group order.
    public init(
        version: Int = 0,
        hashAlgorithmOID: ASN1ObjectIdentifier,
        dataGroupHashes: [Int: [UInt8]],
        ldsVersion: String? = nil,
        unicodeVersion: String? = nil
    ) {
        self.init(
            version: version, hashAlgorithmOID: hashAlgorithmOID,
            dataGroupHashes: dataGroupHashes.sorted { $0.key < $1.key }
                .map { DataGroupHash(dataGroupNumber: $0.key, dataGroupHashValue: $0.value) },
            ldsVersion: ldsVersion, unicodeVersion: unicodeVersion)
    }

    /// Parses the eContent of EF.SOD (DER, or BER where a chip wrote it so).
    public init(derEncoded bytes: [UInt8]) throws {
        self = try .init(berEncoded: BER.parse(bytes), withIdentifier: Self.defaultIdentifier)
    }

    /// The DER encoding, as it is hashed and signed in the SOD.
    public func derEncoded() throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(self)
        return serializer.serializedBytes
    }

    /// The hashes keyed by data group number.
    public var hashesByDataGroup: [Int: [UInt8]] {
        Dictionary(dataGroupHashes.map { ($0.dataGroupNumber, $0.dataGroupHashValue) }) { first, _ in first }
    }

    /// The hash recorded for data group `number`, or `nil` if the SOD does not cover it.
    public func hash(forDataGroup number: Int) -> [UInt8]? {
        dataGroupHashes.first { $0.dataGroupNumber == number }?.dataGroupHashValue
    }

    // MARK: ASN.1

    public init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(rootNode, identifier: identifier) { nodes in
            let version = try Int(derEncoded: &nodes)
            let algorithm = try AlgorithmIdentifier(derEncoded: &nodes).checkedAsDigest()
            let hashes = try DER.sequence(of: DataGroupHash.self, identifier: .sequence, nodes: &nodes)
            let info = try nodes.next().map { try LDSVersionInfo(derEncoded: $0) }
            return try Self.validated(version: version, algorithm: algorithm, hashes: hashes, info: info)
        }
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let version = try Int(berEncoded: &nodes)
            let algorithm = try AlgorithmIdentifier(berEncoded: &nodes).checkedAsDigest()
            let hashes = try BER.sequence(of: DataGroupHash.self, identifier: .sequence, nodes: &nodes)
            let info = try nodes.next().map { try LDSVersionInfo(berEncoded: $0) }
            return try Self.validated(version: version, algorithm: algorithm, hashes: hashes, info: info)
        }
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(version)
            try coder.serialize(AlgorithmIdentifier(algorithm: hashAlgorithmOID, parameters: nil))
            try coder.serializeSequenceOf(dataGroupHashes)
            if ldsVersion != nil || unicodeVersion != nil {
                try coder.serialize(
                    LDSVersionInfo(ldsVersion: ldsVersion ?? "", unicodeVersion: unicodeVersion ?? ""))
            }
        }
    }

    private static func validated(
        version: Int, algorithm: AlgorithmIdentifier, hashes: [DataGroupHash], info: LDSVersionInfo?
    ) throws -> LDSSecurityObject {
        guard version == 0 || version == 1 else {
            throw ASN1Error.invalidASN1Object(reason: "LDSSecurityObject version \(version) is neither v0 nor v1")
        }
        // Two hashes for one data group would let a verifier check one and a reader use the other.
        var seen = Set<Int>()
        for hash in hashes where !seen.insert(hash.dataGroupNumber).inserted {
            throw ASN1Error.invalidASN1Object(
                reason: "LDSSecurityObject lists data group \(hash.dataGroupNumber) twice")
        }
        return LDSSecurityObject(
            version: version, hashAlgorithmOID: algorithm.algorithm, dataGroupHashes: hashes,
            ldsVersion: info?.ldsVersion, unicodeVersion: info?.unicodeVersion)
    }
}

/// One data group's hash in the LDSSecurityObject (Doc 9303-10 §4.6.2.2).
///
/// ```
/// DataGroupHash ::= SEQUENCE {
///     dataGroupNumber     DataGroupNumber,
///     dataGroupHashValue  OCTET STRING }
/// ```
public struct DataGroupHash: DERImplicitlyTaggable, BERImplicitlyTaggable, Sendable, Hashable {
    @inlinable
    public static var defaultIdentifier: ASN1Identifier { .sequence }

    /// 1 to 16.
    public var dataGroupNumber: Int
    /// The hash over the complete data group file, tag and length included.
    public var dataGroupHashValue: [UInt8]

    public init(dataGroupNumber: Int, dataGroupHashValue: [UInt8]) {
        self.dataGroupNumber = dataGroupNumber
        self.dataGroupHashValue = dataGroupHashValue
    }

    public init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(rootNode, identifier: identifier) { nodes in
            try Self.validated(
                number: Int(derEncoded: &nodes), value: ASN1OctetString(derEncoded: &nodes))
        }
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            try Self.validated(
                number: Int(berEncoded: &nodes), value: ASN1OctetString(berEncoded: &nodes))
        }
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(dataGroupNumber)
            try coder.serialize(ASN1OctetString(contentBytes: ArraySlice(dataGroupHashValue)))
        }
    }

    private static func validated(number: Int, value: ASN1OctetString) throws -> DataGroupHash {
        guard (1...16).contains(number) else {
            throw ASN1Error.invalidASN1Object(reason: "data group number \(number) outside 1...16")
        }
        return DataGroupHash(dataGroupNumber: number, dataGroupHashValue: Array(value.bytes))
    }
}

/// The LDS and Unicode versions in a v1 LDSSecurityObject (Doc 9303-10 §4.6.2.2).
///
/// ```
/// LDSVersionInfo ::= SEQUENCE {
///     ldsVersion      PRINTABLE STRING,
///     unicodeVersion  PRINTABLE STRING }
/// ```
struct LDSVersionInfo: DERImplicitlyTaggable, BERImplicitlyTaggable, Sendable, Hashable {
    static var defaultIdentifier: ASN1Identifier { .sequence }

    var ldsVersion: String
    var unicodeVersion: String

    init(ldsVersion: String, unicodeVersion: String) {
        self.ldsVersion = ldsVersion
        self.unicodeVersion = unicodeVersion
    }

    init(derEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try DER.sequence(rootNode, identifier: identifier) { nodes in
            LDSVersionInfo(
                ldsVersion: String(try ASN1PrintableString(derEncoded: &nodes)),
                unicodeVersion: String(try ASN1PrintableString(derEncoded: &nodes)))
        }
    }

    init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            LDSVersionInfo(
                ldsVersion: String(try ASN1PrintableString(berEncoded: &nodes)),
                unicodeVersion: String(try ASN1PrintableString(berEncoded: &nodes)))
        }
    }

    func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendConstructedNode(identifier: identifier) { coder in
            try coder.serialize(try ASN1PrintableString(ldsVersion))
            try coder.serialize(try ASN1PrintableString(unicodeVersion))
        }
    }
}
