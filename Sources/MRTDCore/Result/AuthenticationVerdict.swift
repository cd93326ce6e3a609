/// The verdict rule for Chip Authentication, PACE-CAM and Active Authentication (Doc 9303-11 §6,
/// ARCHITECTURE pitfalls): a chip that proves possession of a key proves nothing unless that key
/// is itself covered by a passing passive authentication. Until then the check says
/// `passed-unverified-key`, never a bare `passed`.
public enum AuthenticationVerdict {
    /// Active Authentication's reason when the verified SOD signs DG15 and AA did not run.
    public static let activeAuthenticationRequired = "activeAuthenticationRequired"

    /// Turns a `passed-unverified-key` check into `passed` only when passive authentication passed
    /// and the hash of the key's file (DG14, EF.CardSecurity, DG15) was verified against the SOD.
    ///
    /// - Parameters:
    ///   - check: a CA, CAM or AA check as the session reported it.
    ///   - keyFileHashValid: `true` when the SOD hash of the key's file matched, `false` when it did
    ///     not (the key was substituted: the check fails), `nil` when it was not checked.
    ///   - passiveAuthenticationPassed: whether passive authentication (SOD signature and chain) passed.
    /// - Returns: the check with its result and reason decided; other results pass through unchanged.
    public static func gated(
        _ check: ReadResult.Check, keyFileHashValid: Bool?, passiveAuthenticationPassed: Bool
    ) -> ReadResult.Check {
        guard check.result == .passedUnverifiedKey || check.result == .passed else { return check }
        var gated = check
        let file = check.keyFile ?? "key file"
        switch (keyFileHashValid, passiveAuthenticationPassed) {
        case (false?, _):
            gated.result = .failed
            gated.reason = "keyFileHashMismatch: \(file)"
        case (true?, true):
            gated.result = .passed
            gated.reason = nil
        case (true?, false):
            gated.result = .passedUnverifiedKey
            gated.reason = "passiveAuthenticationNotPassed: \(file)"
        case (nil, _):
            gated.result = .passedUnverifiedKey
            gated.reason = "keyFileUnverified: \(file)"
        }
        return gated
    }
}
