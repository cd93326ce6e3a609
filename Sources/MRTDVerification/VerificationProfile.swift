/// How literally passive authentication applies the letter of the specifications where issued
/// documents are known to deviate (docs/verification.md, "Verification profiles").
///
/// - `standard` (the default): such a deviation is verified all the same and reported as a warning.
/// - `strict`: it fails, as BSI TR-03105 Part 5.1 expects of a conformance test object.
public enum VerificationProfile: String, Sendable, Codable, CaseIterable {
    case standard
    case strict
}
