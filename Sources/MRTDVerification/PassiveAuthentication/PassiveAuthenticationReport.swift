public import FoundationEssentials
public import MRTDCore
public import MRTDCrypto

/// The outcome of passive authentication of one document.
public struct PassiveAuthenticationReport: Sendable {
    /// The verdict on one file's hash.
    public enum HashVerdict: String, Sendable, Codable {
        /// The file was read and its hash equals the SOD's (for EF.CardSecurity: its own signature verified).
        case valid
        /// The file was read and its hash differs (EF.CardSecurity: its signature or chain failed).
        case invalid
        /// The file was read, but the SOD has no hash for it.
        case missing
        /// The SOD has a hash for the file, but it was not read.
        case notRead
    }

    /// `passed`, `failed` or `notPerformed`.
    public var result: CheckResult
    /// Why it did not pass (`nil` when passed).
    public var reason: PassiveAuthenticationReason?
    /// Readable explanation of ``reason``.
    public var detail: String?
    /// The SOD signature scheme.
    public var signatureScheme: SignatureScheme?
    /// The LDSSecurityObject hash algorithm.
    public var digestAlgorithm: DigestAlgorithm?
    /// The document signer certificate (embedded or from the store).
    public var dsc: Certificate?
    /// The CSCA the DSC chains to.
    public var csca: Certificate?
    /// Whether the SOD signature and the DSC→CSCA chain verified (hash results aside).
    public var signatureAndChainValid: Bool
    /// Verdict per file: data groups, and EF.CardSecurity when it was read.
    public var fileHashes: [LDSFile: HashVerdict]
    /// Conditions that did not fail the check (stable codes).
    public var warnings: [String]
    /// The time verification was performed at.
    public var verifiedAt: Date
    /// The SOD's signingTime attribute (once its signature verified), if it has one: the best
    /// estimate of when the document was personalised (deviation lists' issuance periods).
    public var signingTime: Date?

    /// The data group hashes the LDSSecurityObject lists, by group number (set once the SOD's
    /// signature verified): what a withheld group of an evidence bundle is checked against.
    public var sodDataGroupHashes: [Int: [UInt8]] = [:]

    /// Whether passive authentication passed.
    public var passed: Bool { result == .passed }

    /// Whether `file` is covered by a valid SOD signature and chain and its hash matches: the
    /// condition to trust keys in DG14, DG15 or EF.CardSecurity (chip and active authentication
    /// prove nothing otherwise, Doc 9303-11 §6.1, §6.2).
    public func isAuthenticated(_ file: LDSFile) -> Bool {
        signatureAndChainValid && fileHashes[file] == .valid
    }

    init(result: CheckResult, reason: PassiveAuthenticationReason? = nil, detail: String? = nil, at date: Date) {
        self.result = result
        self.reason = reason
        self.detail = detail
        signatureAndChainValid = false
        fileHashes = [:]
        warnings = []
        verifiedAt = date
    }

    /// Records a failure unless an earlier one is already the reason.
    mutating func fail(_ failure: PAFailure) {
        guard result != .failed else { return }
        result = .failed
        reason = failure.reason
        detail = failure.detail
    }

    /// `checks.passiveAuthentication` of the result model.
    public var check: ReadResult.PassiveAuthenticationCheck {
        func info(_ certificate: Certificate?) -> ReadResult.CertificateInfo? {
            guard let certificate else { return nil }
            return ReadResult.CertificateInfo(
                subject: certificate.subject.description, issuer: certificate.issuer.description,
                serialNumber: certificate.serialNumberHex, notBefore: UTCDate.iso8601(certificate.notBefore),
                notAfter: UTCDate.iso8601(certificate.notAfter), country: certificate.subject.country,
                validAtVerification: certificate.isValid(at: verifiedAt))
        }
        var hashes: [String: String]?
        if !fileHashes.isEmpty {
            hashes = Dictionary(uniqueKeysWithValues: fileHashes.map { ($0.key.name, $0.value.rawValue) })
        }
        return ReadResult.PassiveAuthenticationCheck(
            result: result, reason: reason?.rawValue, detail: detail,
            signatureAlgorithm: signatureScheme?.description, digestAlgorithm: digestAlgorithm?.rawValue,
            dsc: info(dsc), csca: info(csca), dataGroupHashes: hashes, warnings: warnings.isEmpty ? nil : warnings)
    }
}

extension ReadResult {
    /// Sets `checks.passiveAuthentication` from `report`, and the status from the checks as they
    /// now are (``VerdictPolicy``). A failed read (`status: failed`) stays failed.
    public mutating func apply(_ report: PassiveAuthenticationReport) {
        checks.passiveAuthentication = report.check
        applyVerdict()
    }
}
