/// Why passive authentication did not pass: stable codes for `checks.passiveAuthentication.reason`.
/// Scripts match on the raw values; cases are added, never renamed.
public enum PassiveAuthenticationReason: String, Sendable, Codable, CaseIterable {
    /// No trust store was given: nothing can be verified (`notPerformed`).
    case noTrustStore
    /// EF.SOD was not read.
    case sodMissing
    /// EF.SOD is not a well-formed tag-77 CMS SignedData: wrong outer tag, lengths running past the
    /// bytes read, wrong SignedData / SignerInfo version, no SignerInfo (RFC 5652 §5, Doc 9303-10 §4.6.2).
    case sodMalformed
    /// eContentType is not id-icao-mrtd-security-ldsSecurityObject (or id-SecurityObject for
    /// EF.CardSecurity, id-icao-cscaMasterList for a master list).
    case sodContentTypeInvalid
    /// A digest algorithm that is disallowed (MD5) or unknown, or the digestAlgorithms list is empty.
    case digestAlgorithmNotAllowed
    /// A signature algorithm that is disallowed (MD5) or unknown, in the SignerInfo or a certificate.
    case signatureAlgorithmNotAllowed
    /// Signed attributes missing, contentType different from eContentType, or messageDigest not the
    /// hash of the eContent (RFC 5652 §5.4, §11.1, §11.2).
    case signedAttributesInvalid
    /// The SignerInfo signature does not verify with the document signer's key, or is missing.
    case sodSignatureInvalid
    /// No certificate matching the SignerInfo's sid, neither in the SOD nor in the trust store.
    case dscNotFound
    /// The document signer certificate is malformed (missing fields, GeneralizedTime before 2050,
    /// signatureAlgorithm differing from the TBSCertificate's signature field), not X.509 v3, without
    /// countryName in its issuer or subject, or without authorityKeyIdentifier keyIdentifier
    /// (Doc 9303-12 §7.1.1).
    case dscInvalid
    /// The document signer's keyUsage lacks digitalSignature, is not marked critical, or is absent.
    case dscKeyUsageInvalid
    /// The document signer's certificate signature does not verify with any matching CSCA key.
    case dscSignatureInvalid
    /// The document was signed (signingTime) outside the DSC's validity, or the DSC is not yet valid.
    case dscNotValidAtSigning
    /// No CSCA in the trust store matches the DSC's issuer / authority key identifier.
    case cscaNotFound
    /// The DSC's serial number is on a CRL issued by its CSCA.
    case dscRevoked
    /// The LDSSecurityObject does not parse: wrong version, illegal hash algorithm, data group
    /// number out of range (Doc 9303-10 §4.6.2.2).
    case ldsSecurityObjectInvalid
    /// A data group's hash differs from the one in the SOD.
    case dataGroupHashMismatch
    /// A data group was read that the SOD has no hash for.
    case dataGroupHashMissing
    /// EF.COM and the SOD list different data groups (Doc 9303-10 §4.6.1, TR-03105 LDS_H_90–92).
    case comSodMismatch
    /// EF.CardSecurity was read and does not verify (signature, signed attributes or chain), or
    /// does not sign the PACE parameters EF.CardAccess offered (TR-03110-3 §A.1.2).
    case cardSecurityInvalid
}

/// A failure with its stable code and a readable detail (never personal data).
struct PAFailure: Error, Sendable, Equatable {
    var reason: PassiveAuthenticationReason
    var detail: String

    init(_ reason: PassiveAuthenticationReason, _ detail: String) {
        self.reason = reason
        self.detail = detail
    }
}
