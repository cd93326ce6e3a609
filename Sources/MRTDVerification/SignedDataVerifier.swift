import FoundationEssentials
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
    ///   - signerKeys: the trust store's kept signer keys (nil: the key is decoded).
    static func verify(
        _ signedData: SignedData, expectedContentType: String,
        externalSigners: (SignerInfo.Identifier) -> [Certificate], signerKeys: SignerKeyCache? = nil
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
        guard signedData.eContentType == expectedContentType else {
            throw PAFailure(.sodContentTypeInvalid, "eContentType \(signedData.eContentType), expected \(expectedContentType)")
        }
        guard let content = signedData.eContent else { throw PAFailure(.sodMalformed, "eContent is absent") }
        guard let signerInfo = signedData.signerInfos.first else { throw PAFailure(.sodMalformed, "no SignerInfo") }
        if signedData.signerInfos.count > 1 { warnings.append("multipleSignerInfos") }

        // RFC 5652 §5.3: v1 with issuerAndSerialNumber, v3 with subjectKeyIdentifier. A mismatch is
        // tolerated (TR-03105 LDS_H_84/85), any other version is not (LDS_H_26/27).
        switch (signerInfo.version, signerInfo.sid) {
        case (1, .issuerAndSerialNumber), (3, .subjectKeyIdentifier): break
        case (1, _), (3, _): warnings.append("signerInfoVersionMismatch")
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
        guard let typeValues = signerInfo.signedAttributes[OID.contentType], typeValues.count == 1,
              (try? typeValues[0].oid()) == signedData.eContentType
        else { throw PAFailure(.signedAttributesInvalid, "contentType attribute missing or not the eContentType") }
        guard let digestValues = signerInfo.signedAttributes[OID.messageDigest], digestValues.count == 1,
              let messageDigest = try? digestValues[0].octetStringBytes()
        else { throw PAFailure(.signedAttributesInvalid, "messageDigest attribute missing") }
        guard messageDigest == digest.hash(content) else {
            throw PAFailure(.signedAttributesInvalid, "messageDigest is not the \(digest.rawValue) hash of the eContent")
        }
        var signingTime: Date?
        if let values = signerInfo.signedAttributes[OID.signingTime], let value = values.first {
            signingTime = try? UTCDate.parseTime(value).date
        }

        var signerFromMessage = true
        var candidates = signedData.certificates.filter { matches($0, signerInfo.sid) }
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
            do { key = try signerKeys?.key(of: candidate) ?? candidate.publicKey() } catch {
                throw PAFailure(.dscInvalid, "signer public key: \(error)")
            }
            let verified: Bool
            do { verified = try key.verify(signature: signerInfo.signature, message: signedBytes, scheme: scheme) } catch {
                throw PAFailure(.sodSignatureInvalid, "\(error)")
            }
            if verified {
                return SignerVerification(
                    signer: candidate, signerFromMessage: signerFromMessage, scheme: scheme, digest: digest,
                    content: content, signingTime: signingTime, warnings: warnings)
            }
        }
        throw PAFailure(.sodSignatureInvalid, "\(scheme) signature does not verify with the signer's key")
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
