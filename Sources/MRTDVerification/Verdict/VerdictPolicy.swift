public import MRTDCore

/// The one place that decides a result's `status` from its checks (docs/verification.md, "The
/// verdict"): each check states, per result, its effect on the status; the status is the worst
/// effect (``verdict(on:)``). The live read (`DocumentReader`), `mrtdctl verify` and `mrtdctl verify-evidence` all end
/// in ``ReadResult/applyVerdict(_:)``, so one document gets one verdict on every path.
///
/// Modelled on swift-certificates' `VerifierPolicy`: the rules are values, listed in one table that
/// docs/verification.md shows (``markdownTable``; `VerdictPolicyTests` keeps the two the same).
public struct VerdictPolicy: Sendable {
    /// What a check's outcome does to the status. Ordered: the worst effect of all checks decides.
    public enum Effect: Int, Sendable, Comparable, CustomStringConvertible {
        /// Leaves the status as it is.
        case none
        /// At most `unverified`: something could not be decided, or was tolerated.
        case unverified
        /// `invalid`: the document or its chip failed a check.
        case invalid

        public static func < (a: Effect, b: Effect) -> Bool { a.rawValue < b.rawValue }
        public var description: String {
            switch self {
            case .none: "—"
            case .unverified: "`unverified`"
            case .invalid: "`invalid`"
            }
        }
    }

    /// The checks of a result (`checks.*`), and the two conditions of a read that are not checks.
    public enum Subject: String, Sendable, CaseIterable {
        case passiveAuthentication, chipAuthentication, activeAuthentication, terminalAuthentication
        case dataGroupStructure, accessKeyMatch, mrzMatch, issuingCountry, documentExpiry, revocation, atrInfo
        /// DG1 or DG2 asked for and not given (the warning `mandatoryDataGroupMissing`).
        case mandatoryDataGroups
        /// Passive authentication passed, yet no data group read was verified against the SOD.
        case dataGroupCoverage
    }

    /// One rule: a check's result (and, when given, its reason's stable first word) and the effect.
    public struct Rule: Sendable {
        public var subject: Subject
        public var result: CheckResult
        /// nil: any reason. Otherwise the rule applies when the check's reason starts with one of these.
        public var reasons: [String]?
        public var effect: Effect
        /// Why, in words (shown in docs/verification.md).
        public var why: String

        public init(_ subject: Subject, _ result: CheckResult, reasons: [String]? = nil, _ effect: Effect, _ why: String) {
            self.subject = subject
            self.result = result
            self.reasons = reasons
            self.effect = effect
            self.why = why
        }

        func matches(_ subject: Subject, _ result: CheckResult, reason: String?) -> Bool {
            guard subject == self.subject, result == self.result else { return false }
            guard let reasons else { return true }
            let word = reason.map(VerdictPolicy.firstWord) ?? ""
            return reasons.contains(word)
        }
    }

    /// The rules, first match wins (a rule with reasons before the general rule of the same result).
    /// A check whose result no rule names has no effect.
    public var rules: [Rule]

    public init(rules: [Rule]) {
        self.rules = rules
    }

    /// Terminal Authentication failures that are the terminal's own (BSI TR-03135-1 Table 5.21: TA
    /// is undetermined when the inspection system lacks the certificates or key for the chip): the
    /// chip was never put to the test, so its genuineness is not in question, yet the inspection
    /// asked for is incomplete.
    public static let terminalSideFailures = [
        ErrorCode.terminalTrustPointUnknown, .terminalDVNotUnderTrustPoint, .terminalCertificateExpired,
        .terminalCertificateNotYetValid, .terminalCertificateRoleInvalid, .terminalKeyUnavailable,
    ].map(\.rawValue)

    /// The default policy: BSI TR-03105 Part 5.1's expected results, and TR-03135-1 Table 5.2 (the
    /// document's result is failed when any check failed, undetermined when one could not be decided).
    public static let standard = VerdictPolicy(rules: [
        Rule(.passiveAuthentication, .failed, .invalid,
             "the SOD, its signer or a data group's hash failed (Doc 9303-11 §5.1)"),
        Rule(.passiveAuthentication, .undetermined, .unverified,
             "a failure that a verified deviation list tolerates (Doc 9303-12 §10): explained, not authenticated"),
        Rule(.passiveAuthentication, .notPerformed, .unverified, "no trust store: nothing authenticated the data"),
        Rule(.dataGroupCoverage, .failed, .unverified,
             "the SOD verified, but no data group read was checked against it"),
        Rule(.mandatoryDataGroups, .failed, .invalid,
             "DG1 or DG2 was asked for and withheld (Doc 9303-10 §4.6; TR-03105 ISO7816_C_01)"),
        Rule(.chipAuthentication, .failed, reasons: ["cardSecurityMissing"], .none,
             "PACE-CAM ran, but the chip gave no EF.CardSecurity to check its key against: noted, not decisive"),
        Rule(.chipAuthentication, .failed, .invalid,
             "the chip did not prove the key of DG14 / EF.CardSecurity: not shown genuine (Doc 9303-11 §6.2)"),
        Rule(.activeAuthentication, .failed, .invalid,
             "a bad signature, a wrong trailer, an unknown algorithm, a refusal, or a signed DG15 and no AA: a possible clone (Doc 9303-11 §6.1)"),
        Rule(.terminalAuthentication, .failed, reasons: [ErrorCode.terminalRightsExcludeDataGroups.rawValue], .none,
             "the terminal is authorised for none of the groups asked for: the inspection it may do is complete, DG3/DG4 skipped (TR-03105 ISO7816_E_14..16: successful)"),
        Rule(.terminalAuthentication, .failed, reasons: terminalSideFailures, .unverified,
             "asked for, and the terminal lacked valid certificates or its key for this chip (TR-03135-1 Table 5.21: undetermined): the inspection is incomplete"),
        Rule(.terminalAuthentication, .failed, .invalid,
             "asked for, and the chip refused a valid chain or signature, or its EF.CVCA is invalid (TR-03105 ISO7816_E, LDS_G: inspection failed)"),
        Rule(.terminalAuthentication, .notPerformed, reasons: [TerminalAuthenticationCheck.noEACDataGroupListed], .none,
             "the chip lists no DG3/DG4 to open: TA does not apply to it (TR-03135-1 Table 5.21: not supported)"),
        Rule(.terminalAuthentication, .notPerformed, .unverified,
             "asked for, and it could not run (no Chip Authentication to bind it to): the inspection is incomplete"),
        Rule(.terminalAuthentication, .undetermined, .unverified, "asked for and not decided"),
        Rule(.dataGroupStructure, .failed, .invalid, "signed data that does not parse as its data group (Doc 9303-10 §4.7)"),
        Rule(.dataGroupStructure, .undetermined, .unverified, "a structure defect a verified deviation list tolerates"),
        Rule(.accessKeyMatch, .failed, .invalid, "DG1 is not the MRZ that opened the chip"),
        Rule(.accessKeyMatch, .undetermined, .unverified,
             "DG1 could not be compared, or a verified deviation list tolerates the difference"),
        Rule(.mrzMatch, .failed, .invalid, "DG1 is not the MRZ printed on the data page (TR-03105 LDS_B_11)"),
        Rule(.issuingCountry, .failed, .invalid, "signed by another State's signer"),
        Rule(.revocation, .failed, .invalid, "the document signer is revoked"),
        Rule(.atrInfo, .failed, .invalid, "EF.ATR/INFO is malformed (TR-03105 LDS_K)"),
        Rule(.documentExpiry, .failed, .none,
             "the chip is genuine; the headline says `valid (document expired)` and the warning `documentExpired` names it: accepting an expired document is the relying party's policy"),
    ])

    /// The verdict on `result`: its status, and in words what the status covers.
    public struct Verdict: Sendable, Equatable {
        public var status: ReadResult.Status
        public var detail: String
    }

    /// The effect of every rule that applies to `result`: the check, its reason's stable first word
    /// (empty when it has none) and the effect; rules of no effect are left out.
    public func effects(of result: ReadResult) -> [(subject: Subject, reason: String, effect: Effect)] {
        Self.observations(of: result).compactMap { subject, check in
            guard let rule = rules.first(where: { $0.matches(subject, check.result, reason: check.reason) }),
                  rule.effect != .none else { return nil }
            return (subject, check.reason.map(Self.firstWord) ?? "", rule.effect)
        }
    }

    /// The verdict on `result`. The status: `failed` stays `failed` (the read did not complete);
    /// otherwise the worst effect, and `valid` only when passive authentication passed. The detail:
    /// the checks that made the status what it is (with their reasons), and beside a `valid` what a
    /// caller should still know (an expired document, a PACE to BAC downgrade); never personal data.
    public func verdict(on result: ReadResult) -> Verdict {
        if result.status == .failed {
            return Verdict(status: .failed, detail: "the read did not complete" + (result.error.map { " (\($0.code.rawValue))" } ?? ""))
        }
        let effects = effects(of: result)
        func named(_ effect: Effect) -> String {
            effects.filter { $0.effect == effect }
                .map { $0.reason.isEmpty ? $0.subject.rawValue : "\($0.subject.rawValue) (\($0.reason))" }
                .joined(separator: ", ")
        }
        switch effects.map(\.effect).max() ?? .none {
        case .invalid:
            return Verdict(status: .invalid, detail: "failed: " + named(.invalid))
        case .unverified:
            return Verdict(status: .unverified, detail: "not verified: " + named(.unverified))
        case .none where result.checks.passiveAuthentication.result != .passed:
            return Verdict(status: .unverified,
                           detail: "not verified: passive authentication \(result.checks.passiveAuthentication.result.rawValue)")
        case .none:
            var covers = ["authentic: passive authentication passed"]
            if result.checks.chipAuthentication.result == .passed { covers.append("chip authenticated") }
            if result.checks.activeAuthentication.result == .passed { covers.append("active authentication passed") }
            if result.checks.terminalAuthentication?.result == .passed { covers.append("terminal authenticated") }
            var notes: [String] = []
            if result.checks.documentExpiry?.result == .failed { notes.append("document expired") }
            if let fallback = result.access?.fallback { notes.append("opened with \(fallback.to) after \(fallback.from) failed") }
            return Verdict(status: .valid, detail: covers.joined(separator: ", ") + (notes.isEmpty ? "" : "; " + notes.joined(separator: "; ")))
        }
    }

    /// Each check of the result as (subject, result, reason); checks a result does not have are left
    /// out (Terminal Authentication is present only when it was asked for).
    static func observations(of result: ReadResult) -> [(Subject, (result: CheckResult, reason: String?))] {
        let c = result.checks
        var list: [(Subject, (result: CheckResult, reason: String?))] = [
            (.passiveAuthentication, (c.passiveAuthentication.result, c.passiveAuthentication.reason)),
            (.chipAuthentication, (c.chipAuthentication.result, c.chipAuthentication.reason)),
            (.activeAuthentication, (c.activeAuthentication.result, c.activeAuthentication.reason)),
        ]
        let optional: [(Subject, ReadResult.Check?)] = [
            (.dataGroupStructure, c.dataGroupStructure), (.accessKeyMatch, c.accessKeyMatch), (.mrzMatch, c.mrzMatch),
            (.issuingCountry, c.issuingCountry), (.documentExpiry, c.documentExpiry), (.revocation, c.revocation),
            (.atrInfo, c.atrInfo),
        ]
        for (subject, check) in optional {
            if let check { list.append((subject, (check.result, check.reason))) }
        }
        if let ta = c.terminalAuthentication { list.append((.terminalAuthentication, (ta.result, ta.reason))) }
        if result.warnings.contains(where: { $0.hasPrefix(ReadResult.mandatoryDataGroupMissing) }) {
            list.append((.mandatoryDataGroups, (.failed, ReadResult.mandatoryDataGroupMissing)))
        }
        if c.passiveAuthentication.result == .passed, !(c.passiveAuthentication.dataGroupHashes ?? [:]).values.contains("valid") {
            list.append((.dataGroupCoverage, (.failed, "noDataGroupVerified")))
        }
        return list
    }

    /// A reason's stable first word: `activeAuthenticationSignatureInvalid: …` → the code, `a,b` → `a`.
    static func firstWord(_ reason: String) -> String {
        String(reason.prefix { $0.isLetter || $0.isNumber })
    }

    /// The table docs/verification.md shows, generated from ``rules``.
    public var markdownTable: String {
        var lines = ["| check | result | reason | effect on `status` | why |", "|---|---|---|---|---|"]
        for rule in rules {
            let reasons = rule.reasons.map { $0.map { "`\($0)`" }.joined(separator: ", ") } ?? "any"
            lines.append("| `\(rule.subject.rawValue)` | `\(rule.result.rawValue)` | \(reasons) | \(rule.effect) | \(rule.why) |")
        }
        return lines.joined(separator: "\n")
    }
}
