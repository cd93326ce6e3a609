import MRTDCore
import MRTDVerification

extension ReadResult.Checks {
    /// Decides chip authentication (CA or PACE-CAM) and active authentication from passive
    /// authentication (Doc 9303-11 §6.1, §6.2): `passed` only when the SOD signature and chain are
    /// valid and the SOD hash of the key's file (DG14, EF.CardSecurity, DG15) matches; a mismatching
    /// hash fails the check (the key was substituted); otherwise `passed-unverified-key`.
    mutating func gate(by report: PassiveAuthenticationReport) {
        chipAuthentication = Self.gate(chipAuthentication, keyFile: .dg(14), by: report)
        activeAuthentication = Self.gate(activeAuthentication, keyFile: .dg(15), by: report)
    }

    private static func gate(
        _ check: ReadResult.Check, keyFile defaultFile: LDSFile, by report: PassiveAuthenticationReport
    ) -> ReadResult.Check {
        // CA names DG14, PACE-CAM EF.CardSecurity, AA DG15.
        let file = check.keyFile.flatMap(LDSFile.init(name:)) ?? defaultFile
        let hashValid: Bool?
        switch report.fileHashes[file] {
        case .valid?: hashValid = true
        case .invalid?: hashValid = false
        default: hashValid = nil
        }
        return AuthenticationVerdict.gated(
            check, keyFileHashValid: hashValid, passiveAuthenticationPassed: report.signatureAndChainValid)
    }
}
