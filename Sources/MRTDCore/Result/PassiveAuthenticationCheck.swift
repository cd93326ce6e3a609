extension ReadResult {
    /// `checks.passiveAuthentication`: the verdict of passive authentication (Doc 9303-11 §5.1)
    /// and what it was based on. Same `result` / `reason` shape as ``Check``, plus details.
    public struct PassiveAuthenticationCheck: Sendable, Equatable, Codable {
        /// `passed`, `failed` or `notPerformed`.
        public var result: CheckResult
        /// A stable code: `sodSignatureInvalid`, `cscaNotFound`, `dscRevoked`,
        /// `dataGroupHashMismatch`, `noTrustStore`, … (`PassiveAuthenticationReason`).
        public var reason: String?
        /// A readable explanation of `reason` (no personal data).
        public var detail: String?
        /// The SOD signature scheme as used: `ECDSA-SHA256`, `RSA-PSS-SHA256-salt32`, …
        public var signatureAlgorithm: String?
        /// The LDSSecurityObject hash algorithm: `SHA-256`, …
        public var digestAlgorithm: String?
        /// The document signer certificate.
        public var dsc: CertificateInfo?
        /// The CSCA (or link certificate) the DSC chains to.
        public var csca: CertificateInfo?
        /// Per file (`DG1`, `DG14`, `EF_CardSecurity`): `valid`, `invalid`, `missing` (read, but the
        /// SOD has no hash for it) or `notRead` (the SOD has a hash, the file was not read).
        public var dataGroupHashes: [String: String]?
        /// Stable codes of conditions that did not fail the check: `dscExpired`,
        /// `revocationNotChecked`, `testTrustAnchor`, …
        public var warnings: [String]?

        public init(
            result: CheckResult, reason: String? = nil, detail: String? = nil, signatureAlgorithm: String? = nil,
            digestAlgorithm: String? = nil, dsc: CertificateInfo? = nil, csca: CertificateInfo? = nil,
            dataGroupHashes: [String: String]? = nil, warnings: [String]? = nil
        ) {
            self.result = result
            self.reason = reason
            self.detail = detail
            self.signatureAlgorithm = signatureAlgorithm
            self.digestAlgorithm = digestAlgorithm
            self.dsc = dsc
            self.csca = csca
            self.dataGroupHashes = dataGroupHashes
            self.warnings = warnings
        }

        /// Not performed, for `reason` (`noTrustStore`, …).
        public static func notPerformed(_ reason: String) -> PassiveAuthenticationCheck {
            PassiveAuthenticationCheck(result: .notPerformed, reason: reason)
        }
    }

    /// Identity and validity of a certificate in a result.
    public struct CertificateInfo: Sendable, Equatable, Codable {
        /// RFC 4514 style (`CN=CSCA-GERMANY,OU=BSI,O=bund,C=DE`).
        public var subject: String
        public var issuer: String
        /// Upper-case hex.
        public var serialNumber: String
        /// ISO 8601 UTC.
        public var notBefore: String
        public var notAfter: String
        /// The subject's countryName.
        public var country: String?
        /// Whether the certificate was within its validity at verification time.
        public var validAtVerification: Bool

        public init(
            subject: String, issuer: String, serialNumber: String, notBefore: String, notAfter: String,
            country: String?, validAtVerification: Bool
        ) {
            self.subject = subject
            self.issuer = issuer
            self.serialNumber = serialNumber
            self.notBefore = notBefore
            self.notAfter = notAfter
            self.country = country
            self.validAtVerification = validAtVerification
        }
    }
}
