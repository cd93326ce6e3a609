/// The verdict of one check of a read (passive, chip, active and terminal authentication, the
/// TR-03135 checks). The raw values are the result JSON's `result` strings, a contract.
public enum CheckResult: String, Sendable, Hashable, Codable, CaseIterable {
    case passed
    case failed
    case notPerformed
    /// Chip/Active Authentication and PACE-CAM: the chip proved it holds the key, but the file the key
    /// came from is not yet covered by a passing passive authentication (``AuthenticationVerdict``).
    case passedUnverifiedKey = "passed-unverified-key"
    /// The TR-03135 checks: the check ran but could not decide (no usable CRL for revocation, a country
    /// code with no ISO 3166 counterpart).
    case undetermined
}
