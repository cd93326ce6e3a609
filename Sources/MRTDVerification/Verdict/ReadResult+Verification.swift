public import FoundationEssentials
public import MRTDCore

extension ReadResult {
    /// Where the Active Authentication requirement of a signed DG15 applies (docs/verification.md,
    /// rule 3): for a live read, an evidence bundle and a dump with the read's own record
    /// (`result.json`), where AA could have run; not for files alone (`mrtdctl verify` of files
    /// without that record, a bare EF.SOD), which carry no AA at all.
    public enum ActiveAuthenticationRequirement: Sendable {
        /// The SOD signs DG15 (read or not): AA must have passed.
        case whenSigned
        /// Files alone (no record of the read): AA is not judged.
        case none
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

    /// Sets `status` (and `statusDetail`, what it covers) from the checks, by `policy` (the one rule
    /// book: ``VerdictPolicy``). A failed read stays `failed`.
    public mutating func applyVerdict(_ policy: VerdictPolicy = .standard) {
        let verdict = policy.verdict(on: self)
        status = verdict.status
        statusDetail = verdict.detail
    }
}

extension ReadResult.Checks {
    /// Offline (`verify-evidence`, `verify` of a dump): Chip Authentication, PACE-CAM and Terminal
    /// Authentication cannot be re-checked without the chip, so what the reader reports of them is
    /// taken one way only: a failure the reader saw stays a failure (a verifier never upgrades a
    /// failed step to passed), a pass stays unproven (`notVerifiableOffline`). So the offline verdict
    /// is never more lenient than the live one on these steps (docs/verification.md).
    public mutating func takeReaderReported(
        chipAuthentication reader: ReadResult.Check?, terminalAuthentication readerTA: TerminalAuthenticationCheck?
    ) {
        if let reader {
            var check = ReadResult.Check.notPerformed(EvidenceVerification.Reason.notVerifiableOffline)
            if reader.result == .failed {
                check = ReadResult.Check(result: .failed, reason: reader.reason)
            }
            check.protocol = reader.protocol
            check.keyAgreement = reader.keyAgreement
            check.keyFile = reader.keyFile
            check.detail = reader.result == .failed
                ? "the reader reported Chip Authentication failed; a failure is kept offline"
                : "the reader reported \(reader.result.rawValue); a Chip Authentication or PACE-CAM transcript "
                    + "can be replayed by whoever holds it, so it proves nothing offline (docs/verification.md)"
            chipAuthentication = check
        } else {
            chipAuthentication = .notPerformed("notInEvidence")
        }
        if let readerTA, readerTA.result != .passed {
            var check = readerTA
            check.detail = "reported by the reader (Terminal Authentication cannot be re-checked offline)"
                + (readerTA.detail.map { ": \($0)" } ?? "")
            terminalAuthentication = check
        }
    }
}
