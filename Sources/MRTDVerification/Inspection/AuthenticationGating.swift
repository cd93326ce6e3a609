public import MRTDCore

extension ReadResult.Checks {
    /// Decides chip authentication (CA or PACE-CAM) and active authentication from passive
    /// authentication (Doc 9303-11 §6.1, §6.2): `passed` only when the SOD signature and chain are
    /// valid and the SOD hash of the key's file (DG14, EF.CardSecurity, DG15) matches; a mismatching
    /// hash fails the check (the key was substituted); otherwise `passed-unverified-key`.
    ///
    /// A verified SOD that signs DG15 says the chip holds an Active Authentication key: AA is then
    /// required, and when it did not run (DG15 not read) the check is `failed`
    /// (`activeAuthenticationRequired`), never a silent `notPerformed` (docs/verification.md).
    /// Shared by the read (MRTDProtocol) and offline evidence verification.
    public mutating func gate(
        by report: PassiveAuthenticationReport,
        requireActiveAuthentication requirement: ReadResult.ActiveAuthenticationRequirement = .whenSigned
    ) {
        chipAuthentication = Self.gate(chipAuthentication, keyFile: .dg(14), by: report)
        activeAuthentication = Self.gate(activeAuthentication, keyFile: .dg(15), by: report)
        let dg15 = report.fileHashes[.dg(15)]
        let required = requirement == .whenSigned && (dg15 == .valid || dg15 == .notRead)
        if report.signatureAndChainValid, required,
           activeAuthentication.result == CheckResult.notPerformed {
            activeAuthentication = ReadResult.Check(
                result: CheckResult.failed, reason: AuthenticationVerdict.activeAuthenticationRequired,
                keyFile: "DG15",
                detail: "the SOD signs DG15 (the chip has an Active Authentication key), yet Active Authentication did not run")
        }
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
