/// How literally passive authentication applies the letter of the specifications where issued
/// documents are known to deviate (docs/verification.md, "Verification profiles").
///
/// - `strict` (the default): a SignerInfo version that does not fit its signer identifier, a v1
///   LDSSecurityObject without LDSVersionInfo, or a DSC without a field Doc 9303-12 §7.1.1 makes
///   mandatory fails passive authentication, as BSI TR-03105 Part 5.1 expects (LDS_H_48, 49, 53,
///   60-62, 84, 85, 88). Known deviations of real issuers are tolerated by their deviation lists.
/// - `tolerate-sod-deviations`: those deviations verify all the same, each named in a warning
///   (`signerInfoVersionMismatch`, `ldsVersionInfoMissing`, `dscNonConforming: ...`). Named
///   `standard` before it stopped being the default; that name is still read.
public enum VerificationProfile: String, Sendable, Codable, CaseIterable {
    case strict
    case tolerateSODDeviations = "tolerate-sod-deviations"

    /// The profile's name, or `standard` (its former name) for `tolerate-sod-deviations`.
    public init?(rawValue: String) {
        switch rawValue {
        case "strict": self = .strict
        case "tolerate-sod-deviations", "standard": self = .tolerateSODDeviations
        default: return nil
        }
    }
}
