import SwiftASN1
internal import CLibCrypto
public import MRTDCore

/// Why a key agreement public key or its domain parameters are not acceptable.
public enum KeyAgreementKeyProblem: String, Sendable, Equatable {
    /// The public value is not a valid element of the group (not on the curve, the identity, out of
    /// range, or outside the prime-order subgroup).
    case publicKeyInvalid
    /// The domain parameters themselves fail validation.
    case domainParametersInvalid
}

/// A static or ephemeral (EC)DH public key on a ``KeyAgreementGroup``: a chip's Chip Authentication
/// key from DG14 or EF.CardSecurity, or the other side's ephemeral key. The group does the
/// arithmetic (the same objects PACE uses); this type adds the SubjectPublicKeyInfo encoding.
///
/// Accepts a SubjectPublicKeyInfo with `id-ecPublicKey` (a standardized named curve or explicit
/// parameters, brainpool included), `dhpublicnumber` (ANSI X9.42, with `q`), `dhKeyAgreement`
/// (PKCS #3), or BSI `standardizedDomainParameters` with a parameter ID (TR-03110-3 §A.2.1.1).
public struct KeyAgreementPublicKey: Sendable {
    /// The group the key lies in (shared by every key made from it).
    public let group: any KeyAgreementGroup
    /// Whether the parameters were given explicitly rather than by name or ID.
    public let hasExplicitParameters: Bool
    /// The public key as it travels in Chip Authentication and PACE: `04 || x || y` (EC, uncompressed)
    /// or the big-endian unsigned integer without leading zero bytes (DH, Doc 9303-11 §9.4.1).
    public let encodedPublicKey: [UInt8]

    /// ECDH or DH.
    public var algorithm: KeyAgreementAlgorithm { group.keyAgreement }
    /// The standardized curve or group these parameters equal (`brainpoolP256r1`, `NIST-P-256`,
    /// `RFC5114-2048-224`), or `nil` for parameters matching none.
    public var domainName: String? { group.isStandardized ? group.name : nil }
    /// The bit length of the field prime (EC) or of `p` (DH).
    public var fieldBits: Int { group.primeBitCount }
    /// The bit length of the group order `n` (EC) or of the subgroup order `q` (DH; 0 when unknown).
    public var orderBits: Int { group.orderBitCount }
    /// The byte length of a shared secret: the field size (EC) or of `p` (DH), leading zeros kept.
    public var sharedSecretLength: Int { group.fieldByteCount }

    /// Parses a DER SubjectPublicKeyInfo (RFC 5280 §4.1.2.7). The public value is not validated
    /// here: call ``problem()``.
    ///
    /// - Throws: `CryptoError.invalidInput` for undecodable keys, `.unsupported` for other key types,
    ///   unknown curves, and explicit parameters that do not form a valid group.
    public init(subjectPublicKeyInfo der: [UInt8]) throws(CryptoError) {
        let spki: SubjectPublicKeyInfo
        do { spki = try SubjectPublicKeyInfo(encoded: der) } catch { throw .invalidInput("SubjectPublicKeyInfo: \(error)") }
        let oid = spki.algorithm.algorithm
        guard oid == SecurityProtocolOID.standardizedDomainParameters || oid == SecurityProtocolOID.ecPublicKey
            || oid == SecurityProtocolOID.dhPublicNumber || oid == SecurityProtocolOID.dhKeyAgreement
        else { throw .unsupported("key agreement with key type \(oid)") }
        let parameters: DomainParameters
        do { parameters = try spki.algorithm.domainParameters } catch { throw .invalidInput("domain parameters: \(error)") }
        let group: any KeyAgreementGroup
        do {
            group = try KeyAgreementGroups.make(parameters)
        } catch CryptoError.invalidInput(let what) {
            // Parsed, but not a valid group: a fault of the domain parameters, not of the encoding.
            throw .unsupported("domain parameters that fail validation (\(what))")
        } catch let error as CryptoError {
            throw error
        } catch {
            throw .invalidInput("domain parameters: \(error)")
        }
        var value = spki.subjectPublicKey
        // DH public keys are a DER INTEGER inside the BIT STRING (PKCS #3, X9.42).
        if group.keyAgreement == .dh, let integer = try? TLV.parse(value), integer.tag == 0x02 { value = integer.bytes }
        let explicit = oid != SecurityProtocolOID.standardizedDomainParameters && spki.algorithm.parameters?.first == 0x30
        self.init(group: group, explicit: explicit, encoded: value)
    }

    /// A public key on one of the standardized domain parameters (Doc 9303-11 §9.5.1: IDs 0-2 DH,
    /// 8-18 ECDH) from its wire encoding.
    public init(standardizedDomainParameterID id: Int, encodedPublicKey: [UInt8]) throws(CryptoError) {
        let group: any KeyAgreementGroup
        do { group = try KeyAgreementGroups.standardized(id) } catch let error as CryptoError { throw error } catch {
            throw .unsupported("standardized domain parameter ID \(id)")
        }
        self.init(group: group, explicit: false, encoded: encodedPublicKey)
    }

    /// A key on `group` from its wire encoding: EC points are stored uncompressed, DH values
    /// without leading zeros (values longer than p fail ``problem()``).
    init(group: any KeyAgreementGroup, explicit: Bool, encoded: [UInt8]) {
        self.group = group
        hasExplicitParameters = explicit
        switch group.keyAgreement {
        case .ecdh:
            if encoded.first == 0x02 || encoded.first == 0x03, let ec = group as? ECGroup,
               let uncompressed = try? ec.multiply(point: encoded, scalar: [1]) {
                encodedPublicKey = uncompressed
            } else {
                encodedPublicKey = encoded
            }
        case .dh:
            encodedPublicKey = MinimalBytes.unsigned(encoded)
        }
    }

    /// Another public key on the same domain parameters, from its wire encoding (the peer's
    /// ephemeral key). Not validated: call ``problem()``.
    public func publicKey(encoded: [UInt8]) throws(CryptoError) -> KeyAgreementPublicKey {
        guard algorithm == .ecdh || encoded.count <= sharedSecretLength else {
            throw .invalidInput("DH public value longer than p")
        }
        return KeyAgreementPublicKey(group: group, explicit: hasExplicitParameters, encoded: encoded)
    }

    /// Validates the key (Doc 9303-11 §9.6 / BSI TR-03111 §3.2.2): a point on the curve, not the
    /// identity, in the subgroup of order n; a DH value in (1, p-1) with `y^q = 1` when `q` is known.
    /// Explicit parameters that match no standardized curve or group are checked themselves (EC when
    /// the group is built; DH here, without `q` structurally only: PKCS #3 does not require a safe prime).
    ///
    /// - Returns: `nil` when the key is acceptable, else what is wrong with it.
    public func problem() -> KeyAgreementKeyProblem? {
        if !group.isStandardized, let dh = group as? DHGroup, (try? dh.checkParameters()) == nil {
            return .domainParametersInvalid
        }
        guard (try? group.validatePublicKey(encodedPublicKey)) != nil else { return .publicKeyInvalid }
        return nil
    }

    /// The SubjectPublicKeyInfo (DER), with the curve named or, when `explicitParameters`, spelled
    /// out (as many chips' DG14 keys are). DH keys are always explicit (X9.42 `dhpublicnumber`), and
    /// so are curves that have no name.
    public func subjectPublicKeyInfo(explicitParameters: Bool = false) throws(CryptoError) -> [UInt8] {
        do {
            let algorithm: AlgorithmIdentifier
            var key = encodedPublicKey
            if let ec = group as? ECGroup {
                if !explicitParameters, let curve = ec.standardCurve {
                    var namedCurve = DER.Serializer()
                    try namedCurve.serialize(curve.oid)
                    algorithm = AlgorithmIdentifier(
                        algorithm: SecurityProtocolOID.ecPublicKey, parameters: namedCurve.serializedBytes)
                } else {
                    algorithm = try .explicit(try ec.explicitParameters)
                }
            } else if let dh = group as? DHGroup {
                algorithm = try .explicit(dh.parameters)
                // A DER INTEGER: minimal, with a leading zero when the high bit is set.
                var digits = Array(key.drop { $0 == 0 })
                if digits.first.map({ $0 >= 0x80 }) ?? true { digits.insert(0, at: 0) }
                key = TLV.encode(tag: 0x02, value: digits)
            } else {
                throw CryptoError.unsupported("SubjectPublicKeyInfo of group \(group.name)")
            }
            return try SubjectPublicKeyInfo(algorithm: algorithm, subjectPublicKey: key).derEncoded()
        } catch let error as CryptoError {
            throw error
        } catch {
            throw .invalidInput("SubjectPublicKeyInfo encoding: \(error)")
        }
    }
}
