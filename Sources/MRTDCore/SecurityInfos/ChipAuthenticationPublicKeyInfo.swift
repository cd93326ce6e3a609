public import SwiftASN1

/// The chip's static Chip Authentication key (Doc 9303-11 §9.2.6, TR-03110-3 §A.1.1.2), in DG14 and
/// EF.CardSecurity:
///
/// ```
/// ChipAuthenticationPublicKeyInfo ::= SEQUENCE {
///     protocol                     OBJECT IDENTIFIER (id-PK-DH | id-PK-ECDH),
///     chipAuthenticationPublicKey  SubjectPublicKeyInfo,
///     keyId                        INTEGER OPTIONAL }
///
/// SubjectPublicKeyInfo ::= SEQUENCE {
///     algorithm         AlgorithmIdentifier,
///     subjectPublicKey  BIT STRING }
/// ```
public struct ChipAuthenticationPublicKeyInfo: SecurityInfoCoding, Sendable, Hashable {
    /// `id-PK-DH` or `id-PK-ECDH`.
    public var protocolOID: ASN1ObjectIdentifier
    /// The SubjectPublicKeyInfo exactly as encoded in the file.
    public var subjectPublicKeyInfo: [UInt8]
    /// Its algorithm and domain parameters.
    public var algorithm: AlgorithmIdentifier
    /// The content of `subjectPublicKey`: an encoded point for ECDH, a DER INTEGER for DH.
    public var subjectPublicKey: [UInt8]
    public var keyID: Int?
    /// The encoding as read (or as built).
    public var rawBytes: [UInt8]

    /// DH or ECDH.
    public var keyAgreement: KeyAgreementAlgorithm {
        protocolOID == SecurityProtocolOID.pkDH ? .dh : .ecdh
    }

    /// The public key value: the encoded point (ECDH) or the unsigned big-endian `y` (DH).
    public var publicKey: [UInt8] {
        get throws {
            guard keyAgreement == .dh else { return subjectPublicKey }
            do {
                return unsignedMagnitude(try ArraySlice<UInt8>(berEncoded: BER.parse(subjectPublicKey)))
            } catch {
                throw SecurityInfosError.malformedDomainParameters("DH public key is not an INTEGER")
            }
        }
    }

    /// A key info for `publicKey` (an encoded point for ECDH, the magnitude of `y` for DH).
    public init(keyAgreement: KeyAgreementAlgorithm, algorithm: AlgorithmIdentifier, publicKey: [UInt8],
                keyID: Int? = nil) throws {
        protocolOID = keyAgreement == .dh ? SecurityProtocolOID.pkDH : SecurityProtocolOID.pkECDH
        self.algorithm = algorithm
        if keyAgreement == .dh {
            var serializer = DER.Serializer()
            try serializer.serialize(ArraySlice(publicKey))
            subjectPublicKey = serializer.serializedBytes
        } else {
            subjectPublicKey = publicKey
        }
        subjectPublicKeyInfo = try SubjectPublicKeyInfo(algorithm: algorithm, subjectPublicKey: subjectPublicKey).derEncoded()
        self.keyID = keyID
        rawBytes = []
        rawBytes = try derEncoded()
    }

    public init(berEncoded rootNode: ASN1Node, withIdentifier identifier: ASN1Identifier) throws {
        self = try BER.sequence(rootNode, identifier: identifier) { nodes in
            let oid = try ASN1ObjectIdentifier(berEncoded: &nodes)
            guard oid == SecurityProtocolOID.pkDH || oid == SecurityProtocolOID.pkECDH else {
                throw ASN1Error.invalidASN1Object(reason: "\(oid) is neither id-PK-DH nor id-PK-ECDH")
            }
            let spkiNode = try requiredNode(&nodes, "SubjectPublicKeyInfo")
            let spki = try SubjectPublicKeyInfo(berEncoded: spkiNode)
            let (algorithm, key) = (spki.algorithm, spki.subjectPublicKey)
            let keyID = try optionalSmallInteger(&nodes, "ChipAuthenticationPublicKeyInfo keyId")
            return ChipAuthenticationPublicKeyInfo(
                protocolOID: oid, subjectPublicKeyInfo: Array(spkiNode.encodedBytes), algorithm: algorithm,
                subjectPublicKey: key, keyID: keyID, rawBytes: Array(rootNode.encodedBytes))
        }
    }

    private init(protocolOID: ASN1ObjectIdentifier, subjectPublicKeyInfo: [UInt8], algorithm: AlgorithmIdentifier,
                 subjectPublicKey: [UInt8], keyID: Int?, rawBytes: [UInt8]) {
        self.protocolOID = protocolOID
        self.subjectPublicKeyInfo = subjectPublicKeyInfo
        self.algorithm = algorithm
        self.subjectPublicKey = subjectPublicKey
        self.keyID = keyID
        self.rawBytes = rawBytes
    }

    public func serialize(into coder: inout DER.Serializer, withIdentifier identifier: ASN1Identifier) throws {
        try coder.appendSecurityInfo(identifier, protocol: protocolOID, trailing: keyID) { $0.serializeRawBytes(subjectPublicKeyInfo) }
    }
}
