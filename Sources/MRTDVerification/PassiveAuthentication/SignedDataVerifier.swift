import FoundationEssentials
import MRTDCore
import MRTDCrypto
import SwiftASN1

/// What a verified SignedData signature established.
struct SignerVerification: Sendable {
    /// The certificate whose key verified the signature.
    var signer: Certificate
    /// Whether the signer certificate came from the message (otherwise from the trust store).
    var signerFromMessage: Bool
    var scheme: SignatureScheme
    /// The SignerInfo's digest algorithm.
    var digest: DigestAlgorithm
    /// The verified eContent.
    var content: [UInt8]
    /// The signingTime attribute, if present.
    var signingTime: Date?
    var warnings: [String]
}

/// Verifies a CMS SignedData's one SignerInfo (RFC 5652 §5.4–§5.6) the way Doc 9303-11 §5.1.1
/// steps 1–2 require; the certificate chain is the trust store's job.
enum SignedDataVerifier {
    /// Parses the ContentInfo in `bytes`, mapping structure errors to ``PassiveAuthenticationReason/sodMalformed``.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(PAFailure) -> SignedData {
        do {
            return try SignedData(contentInfo: bytes)
        } catch SignedDataError.signatureMissing {
            throw PAFailure(.sodSignatureInvalid, "SignerInfo has no signature")
        } catch let error as AlgorithmError {
            throw PAFailure(.sodMalformed, "\(error)")
        } catch {
            throw PAFailure(.sodMalformed, "CMS SignedData: \(error)")
        }
    }

    /// Checks versions, algorithms, content type, signed attributes and the signature.
    ///
    /// - Parameters:
    ///   - externalSigners: certificates for a SignerInfo whose signer is not in the message
    ///     (Doc 9303-10 §4.6.2.1: the DSC may be omitted from the SOD and obtained elsewhere).
    ///   - toleratedContentTypes: other eContentTypes accepted in place of `expectedContentType`,
    ///     each with the warning that names the deviation (EF.SOD's legacy OIDs,
    ///     ``LDSSecurityObject/legacyContentTypes``); everything else about the message is checked alike.
    ///   - signerKeys: the trust store's kept signer keys (nil: the key is decoded).
    static func verify(
        _ signedData: SignedData, expectedContentType: ASN1ObjectIdentifier,
        toleratedContentTypes: [ASN1ObjectIdentifier: String] = [:],
        externalSigners: (SignerInfo.Identifier) -> [Certificate], signerKeys: SignerKeyCache? = nil,
        profile: VerificationProfile = .strict
    ) throws(PAFailure) -> SignerVerification {
        var warnings: [String] = []
        // Doc 9303-10 §4.6.2.1: SignedData version v3.
        guard signedData.version == 3 else {
            throw PAFailure(.sodMalformed, "SignedData version \(signedData.version), expected 3")
        }
        guard !signedData.digestAlgorithms.isEmpty else {
            throw PAFailure(.digestAlgorithmNotAllowed, "SignedData digestAlgorithms is empty")
        }
        for algorithm in signedData.digestAlgorithms {
            do { _ = try algorithm.digestAlgorithm() } catch {
                throw PAFailure(.digestAlgorithmNotAllowed, "SignedData digestAlgorithms: \(error)")
            }
        }
        if let tolerated = toleratedContentTypes[signedData.eContentType] {
            warnings.append(tolerated)
        } else if signedData.eContentType != expectedContentType {
            throw PAFailure(.sodContentTypeInvalid, "eContentType \(signedData.eContentType), expected \(expectedContentType)")
        }
        guard let content = signedData.eContent else { throw PAFailure(.sodMalformed, "eContent is absent") }
        guard let signerInfo = signedData.signerInfos.first else { throw PAFailure(.sodMalformed, "no SignerInfo") }
        if signedData.signerInfos.count > 1 { warnings.append("multipleSignerInfos") }

        // RFC 5652 §5.3: v1 with issuerAndSerialNumber, v3 with subjectKeyIdentifier. A mismatch is
        // tolerated (issued passports carry it) unless the profile is strict (TR-03105 LDS_H_84/85);
        // any other version is not (LDS_H_26/27).
        switch (signerInfo.version, signerInfo.sid) {
        case (1, .issuerAndSerialNumber), (3, .subjectKeyIdentifier): break
        case (1, _), (3, _):
            guard profile == .tolerateSODDeviations else {
                throw PAFailure(.sodMalformed, "SignerInfo version \(signerInfo.version) does not match its signer identifier (strict profile)")
            }
            warnings.append("signerInfoVersionMismatch")
        default: throw PAFailure(.sodMalformed, "SignerInfo version \(signerInfo.version)")
        }

        let digest: DigestAlgorithm
        do { digest = try signerInfo.digestAlgorithm.digestAlgorithm() } catch {
            throw PAFailure(.digestAlgorithmNotAllowed, "SignerInfo digestAlgorithm: \(error)")
        }
        let scheme: SignatureScheme
        do { scheme = try signerInfo.signatureAlgorithm.signatureScheme(defaultDigest: digest) } catch {
            throw PAFailure(.signatureAlgorithmNotAllowed, "SignerInfo signatureAlgorithm: \(error)")
        }

        // RFC 5652 §5.4: with signed attributes the signature covers them; contentType must be the
        // eContentType (§11.1) and messageDigest the hash of the eContent (§11.2).
        guard let signedBytes = signerInfo.signedAttributesForSignature else {
            throw PAFailure(.signedAttributesInvalid, "SignerInfo has no signed attributes")
        }
        guard let typeValues = signerInfo.signedAttributes[ASN1ObjectIdentifier.CMS.contentType], typeValues.count == 1,
              (try? typeValues[0].oid()) == signedData.eContentType
        else { throw PAFailure(.signedAttributesInvalid, "contentType attribute missing or not the eContentType") }
        guard let digestValues = signerInfo.signedAttributes[ASN1ObjectIdentifier.CMS.messageDigest], digestValues.count == 1,
              let messageDigest = try? digestValues[0].octetStringBytes()
        else { throw PAFailure(.signedAttributesInvalid, "messageDigest attribute missing") }
        guard messageDigest == digest.hash(content) else {
            throw PAFailure(.signedAttributesInvalid, "messageDigest is not the \(digest.rawValue) hash of the eContent")
        }
        var signingTime: Date?
        if let values = signerInfo.signedAttributes[ASN1ObjectIdentifier.CMS.signingTime], let value = values.first {
            signingTime = try? UTCDate.parseTime(value).date
        }

        var signerFromMessage = true
        var candidates = signedData.certificates.filter { matches($0, signerInfo.sid) }
        // A subjectKeyIdentifier that is not the DSC's extension but the SHA-1 of its key (RFC 5280
        // §4.2.1.2, method 1): it names that key all the same (gmrtd#441). Any other identifier that
        // names no certificate stays `dscNotFound` (TR-03105 LDS_H_28/29, RELIABILITY PA-CMS-04).
        var identifiedByKeyHash = false
        if candidates.isEmpty, case .subjectKeyIdentifier(let ski) = signerInfo.sid {
            candidates = signedData.certificates.filter { keyHashIdentifier(of: $0) == ski }
            identifiedByKeyHash = !candidates.isEmpty
        }
        if candidates.isEmpty {
            candidates = externalSigners(signerInfo.sid).filter { matches($0, signerInfo.sid) }
            signerFromMessage = false
        }
        guard !candidates.isEmpty else {
            if signedData.unparsableCertificates > 0 {
                throw PAFailure(.dscInvalid, "an embedded certificate does not parse (missing or malformed fields)")
            }
            throw PAFailure(.dscNotFound, "no certificate matches the SignerInfo's signer identifier")
        }
        guard !signerInfo.signature.isEmpty else { throw PAFailure(.sodSignatureInvalid, "empty signature") }
        for candidate in candidates {
            let key: PublicKey
            var deviations: [String] = []
            if case .rsaPKCS1v15 = scheme, let relabelled = pkcs1Key(ofPSSCertificate: candidate) {
                // OpenSSL holds an id-RSASSA-PSS key to PSS padding: the DSC's own modulus and
                // exponent, relabelled, check the v1.5 signature (selfxyz/self#1302).
                key = relabelled
                deviations.append(pkcs1SignatureByPSSKey)
            } else {
                do { key = try signerKeys?.key(of: candidate) ?? candidate.publicKey() } catch {
                    throw PAFailure(.dscInvalid, "signer public key: \(error)")
                }
            }
            let verified: Bool
            do { verified = try key.verify(signature: signerInfo.signature, message: signedBytes, scheme: scheme) } catch {
                throw PAFailure(.sodSignatureInvalid, "\(error)")
            }
            if verified {
                if identifiedByKeyHash { deviations.append(signerIdentifiedByKeyHash) }
                return SignerVerification(
                    signer: candidate, signerFromMessage: signerFromMessage, scheme: scheme, digest: digest,
                    content: content, signingTime: signingTime, warnings: warnings + deviations)
            }
        }
        throw PAFailure(.sodSignatureInvalid, "\(scheme) signature does not verify with the signer's key")
    }

    /// The warning of a signer whose subjectKeyIdentifier in the SignerInfo is the SHA-1 of its key
    /// (RFC 5280 §4.2.1.2 method 1) but not the certificate's own subjectKeyIdentifier extension.
    static let signerIdentifiedByKeyHash = "signerIdentifiedByKeyHash"

    /// RFC 5280 §4.2.1.2 method 1: the SHA-1 of the subjectPublicKey BIT STRING's value.
    static func keyHashIdentifier(of certificate: Certificate) -> [UInt8]? {
        guard let spki = try? SubjectPublicKeyInfo(encoded: Array(certificate.subjectPublicKeyInfo)) else { return nil }
        return DigestAlgorithm.sha1.hash(spki.subjectPublicKey)
    }

    /// The warning of a PKCS #1 v1.5 signature made with a key its certificate declares id-RSASSA-PSS.
    static let pkcs1SignatureByPSSKey = "pkcs1SignatureByPSSKey"

    /// The RSA key of a certificate whose SubjectPublicKeyInfo says `id-RSASSA-PSS` (RFC 4055 §1.2),
    /// relabelled `rsaEncryption` so that a PKCS #1 v1.5 signature can be checked with it; `nil` for
    /// any other certificate.
    ///
    /// Why: OpenSSL holds an id-RSASSA-PSS key to PSS padding, so a v1.5 signature made with it never
    /// verifies, yet Turkish ID cards sign their SOD so (selfxyz/self#1302). The modulus and exponent
    /// are the certificate's, unchanged: a signature is still accepted only if it verifies with the
    /// DSC's own key; what is waived is the key's restriction to PSS, and that is reported
    /// (``pkcs1SignatureByPSSKey``). Decoded here, outside the trust store's `SignerKeyCache`, so that the cache
    /// keeps holding the key as the certificate states it.
    static func pkcs1Key(ofPSSCertificate certificate: Certificate) -> PublicKey? {
        guard let spki = try? SubjectPublicKeyInfo(encoded: Array(certificate.subjectPublicKeyInfo)),
              spki.algorithm.algorithm == ASN1ObjectIdentifier.AlgorithmIdentifier.rsaPSS else { return nil }
        let relabelled = SubjectPublicKeyInfo(
            algorithm: AlgorithmIdentifier(algorithm: ASN1ObjectIdentifier.AlgorithmIdentifier.rsaEncryption, parameters: [0x05, 0x00]),
            subjectPublicKey: spki.subjectPublicKey)
        var serializer = DER.Serializer()
        guard (try? serializer.serialize(relabelled)) != nil else { return nil }
        return try? PublicKey(subjectPublicKeyInfo: serializer.serializedBytes)
    }


    /// RFC 5652 §5.3 SignerIdentifier matching; a v1/v3 mix-up is matched by whichever is present.
    static func matches(_ certificate: Certificate, _ sid: SignerInfo.Identifier) -> Bool {
        switch sid {
        case .issuerAndSerialNumber(let issuer, let serial):
            return certificate.issuer == issuer && normalizedSerial(certificate.serialNumber) == normalizedSerial(serial)
        case .subjectKeyIdentifier(let ski):
            return certificate.subjectKeyIdentifier == ski
        }
    }

    /// A serial number without redundant leading zero octets.
    static func normalizedSerial(_ serial: [UInt8]) -> ArraySlice<UInt8> {
        var slice = serial[...]
        while slice.count > 1, slice.first == 0, let second = slice.dropFirst().first, second & 0x80 == 0 {
            slice = slice.dropFirst()
        }
        return slice
    }
}
