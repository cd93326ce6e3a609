public import FoundationEssentials
public import MRTDCore

extension ReadResult {
    /// Where the Active Authentication requirement of a signed DG15 applies (docs/verification.md,
    /// rule 3): always for a live read and an evidence bundle, where AA could have run; for a dump
    /// (`mrtdctl verify`) only when the dump holds DG15 itself, so a bare EF.SOD still verifies.
    public enum ActiveAuthenticationRequirement: Sendable {
        /// The SOD signs DG15 (read or not): AA must have passed.
        case whenSigned
        /// DG15 was given and verified: AA must have passed.
        case whenDG15Given
    }

    /// The verification every path runs after the files are in (the live read, `mrtdctl verify`,
    /// `mrtdctl verify-evidence`): passive authentication's check, chip and active authentication
    /// gated by it, the TR-03135 inspection checks and deviation lists, and then the status, decided
    /// by ``VerdictPolicy`` alone.
    ///
    /// - Parameters:
    ///   - report: passive authentication of the files.
    ///   - parsed: the files' data groups, parsed once.
    ///   - accessKey: the MRZ key that opened the chip, if one did (or `verify --mrz-key`).
    ///   - pageMRZ: the data page's MRZ, if given (`checks.mrzMatch`).
    ///   - trustStore: supplies the deviation lists.
    ///   - activeAuthentication: where a signed DG15 requires Active Authentication.
    public mutating func verify(
        report: PassiveAuthenticationReport, parsed: ParsedDataGroups, accessKey: MRZKey?, pageMRZ: MRZ? = nil,
        trustStore: TrustStore?, activeAuthentication: ActiveAuthenticationRequirement = .whenSigned,
        at date: Date = Date(), policy: VerdictPolicy = .standard
    ) {
        checks.passiveAuthentication = report.check
        checks.gate(by: report, requireActiveAuthentication: activeAuthentication)
        applyInspectionChecks(
            parsed: parsed, report: report, accessKey: accessKey, pageMRZ: pageMRZ, trustStore: trustStore, at: date,
            policy: policy)
    }

    /// Sets `status` from the checks, by `policy` (the one rule book: ``VerdictPolicy``). A failed
    /// read stays `failed`.
    public mutating func applyVerdict(_ policy: VerdictPolicy = .standard) {
        status = policy.status(of: self)
    }
}
