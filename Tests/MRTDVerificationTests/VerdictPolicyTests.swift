import Foundation
import MRTDCore
import MRTDTesting
import MRTDVerification
import Testing

/// The one verdict policy (docs/verification.md, "The verdict"): the table the page shows is the
/// policy's own, and each rule decides the status as it says.
@Suite struct VerdictPolicyTests {
    @Test func theVerificationPageShowsThePolicysOwnTable() throws {
        if let mismatch = try GeneratedDocSection.mismatch(
            page: "docs/verification.md", section: "verdict-table", expected: VerdictPolicy.standard.markdownTable + "\n") {
            Issue.record("\(mismatch)")
        }
    }

    /// A result whose passive authentication passed over DG1 and DG2, every other check absent.
    static func authentic() -> ReadResult {
        var result = ReadResult(status: .unverified)
        result.checks.passiveAuthentication = .init(result: .passed, dataGroupHashes: ["DG1": "valid", "DG2": "valid"])
        result.checks.chipAuthentication = .notPerformed("noDG14")
        result.checks.activeAuthentication = .notPerformed("noDG15")
        return result
    }

    static func status(_ change: (inout ReadResult) -> Void) -> ReadResult.Status {
        var result = authentic()
        change(&result)
        result.applyVerdict()
        return result.status
    }

    @Test func aFailedSecurityStepIsNeverValid() {
        #expect(Self.status { _ in } == .valid)
        #expect(Self.status { $0.checks.activeAuthentication = .init(result: .failed, reason: "activeAuthenticationSignatureInvalid: bad") } == .invalid)
        #expect(Self.status { $0.checks.activeAuthentication = .init(result: .failed, reason: AuthenticationVerdict.activeAuthenticationRequired) } == .invalid)
        #expect(Self.status { $0.checks.chipAuthentication = .init(result: .failed, reason: "keyMismatch") } == .invalid)
        #expect(Self.status { $0.checks.passiveAuthentication.result = .failed } == .invalid)
        #expect(Self.status { $0.checks.passiveAuthentication.result = .notPerformed } == .unverified)
        #expect(Self.status { $0.checks.passiveAuthentication.dataGroupHashes = ["DG1": "notRead"] } == .unverified)
        #expect(Self.status { $0.warnings = ["mandatoryDataGroupMissing: DG2 was not given"] } == .invalid)
        // PACE-CAM left unverifiable by a withheld EF.CardSecurity: noted, not decisive.
        #expect(Self.status { $0.checks.chipAuthentication = .init(result: .failed, reason: "cardSecurityMissing") } == .valid)
    }

    @Test(arguments: [
        (ErrorCode.terminalSignatureRejectedByChip, ReadResult.Status.invalid), (.terminalCertificateRejectedByChip, .invalid),
        (.terminalEFCVCAInvalid, .invalid), (.terminalCertificateSignatureInvalid, .invalid),
        (.terminalTrustPointUnknown, .unverified), (.terminalCertificateExpired, .unverified), (.terminalKeyUnavailable, .unverified),
        (.terminalDVNotUnderTrustPoint, .unverified), (.terminalCertificateNotYetValid, .unverified),
        (.terminalCertificateRoleInvalid, .unverified), (.terminalRightsExcludeDataGroups, .valid),
    ])
    func terminalAuthenticationAskedForAndFailedIsDecidedByWhoFailed(_ reason: ErrorCode, _ expected: ReadResult.Status) {
        #expect(Self.status { $0.checks.terminalAuthentication = .init(result: .failed, reason: reason.rawValue) } == expected)
    }

    @Test func terminalAuthenticationNotAskedForOrNotApplicableChangesNothing() {
        #expect(Self.status { $0.checks.terminalAuthentication = nil } == .valid)
        #expect(Self.status { $0.checks.terminalAuthentication = .notPerformed(TerminalAuthenticationCheck.noEACDataGroupListed) } == .valid)
        #expect(Self.status { $0.checks.terminalAuthentication = .notPerformed("chipAuthenticationNotPerformed") } == .unverified)
        #expect(Self.status { $0.checks.terminalAuthentication = .init(result: .passed) } == .valid)
    }

    @Test func anExpiredDocumentOrAPACEFallbackKeepsTheStatusAndSaysSo() {
        var result = Self.authentic()
        result.checks.documentExpiry = .init(result: .failed, reason: "documentExpired")
        result.access = .init(protocol: "BAC", password: "MRZ", cipher: "3DES",
                              fallback: .init(from: "PACE", to: "BAC", reason: "paceFailed: 6FFF"))
        result.applyVerdict()
        #expect(result.status == .valid)
        #expect(result.statusDetail == "authentic: passive authentication passed; document expired; opened with BAC after PACE failed")
    }

    @Test func theDetailNamesWhatDecidedAnInvalidOrUnverifiedStatus() {
        var result = Self.authentic()
        result.checks.activeAuthentication = .init(result: .failed, reason: "activeAuthenticationRefused 6982")
        result.checks.terminalAuthentication = .init(result: .failed, reason: ErrorCode.terminalTrustPointUnknown.rawValue)
        result.applyVerdict()
        #expect(result.status == .invalid)
        #expect(result.statusDetail == "failed: activeAuthentication (activeAuthenticationRefused)")
        result.checks.activeAuthentication = .notPerformed("noDG15")
        result.applyVerdict()
        #expect(result.status == .unverified)
        #expect(result.statusDetail == "not verified: terminalAuthentication (terminalTrustPointUnknown)")
    }

    @Test func aFailedReadStaysFailed() {
        var result = Self.authentic()
        result.status = .failed
        result.error = .init(code: .cardRemoved, message: "removed")
        result.applyVerdict()
        #expect(result.status == .failed)
        #expect(result.statusDetail == "the read did not complete (cardRemoved)")
    }
}
