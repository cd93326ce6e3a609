public import FoundationEssentials
public import MRTDCore
import MRTDCrypto

/// Re-verifies an evidence bundle from its bytes alone (docs/evidence.md): passive authentication
/// of the carried files against the verifier's own trust, the withheld groups' hashes against the
/// verified SOD, and the Active Authentication signature over the expected challenge with DG15's
/// key. The reader's verdict in the bundle is never taken on trust.
public enum EvidenceVerification {
    /// Reasons of `checks.activeAuthentication` particular to evidence.
    public enum Reason {
        /// `expectedChallenge` differs from the bundle's challenge (or the bundle has no AA).
        public static let challengeMismatch = ErrorCode.challengeMismatch.rawValue
        /// AA is in the bundle, DG15 (its key) is not.
        public static let keyWithheld = "activeAuthenticationKeyWithheld"
        /// The bundle's signature does not verify over its challenge.
        public static let signatureInvalid = "activeAuthenticationSignatureInvalid"
        /// A withheld group's stated hash is not the SOD's.
        public static let withheldHashMismatch = "withheldHashMismatch"
        /// Chip Authentication and PACE-CAM are proved to the reader only (replayable transcripts).
        public static let notVerifiableOffline = "notVerifiableOffline"
    }

    /// Verifies `bundle` and reports it in the result model, as `mrtdctl verify` does a dump.
    ///
    /// - Parameters:
    ///   - trustStore: the verifier's CSCAs; nil: passive authentication is `notPerformed`.
    ///   - expectedChallenge: the challenge the relying party issued; when given, the bundle's must
    ///     equal it (`challengeMismatch` otherwise).
    /// - Returns: `status` `valid` only when passive authentication passed and every carried proof
    ///   (withheld hashes, AA, the expected challenge) verified; `invalid` when any failed.
    public static func verify(
        _ bundle: EvidenceBundle, trustStore: TrustStore?, expectedChallenge: [UInt8]? = nil, at date: Date = Date()
    ) throws(EvidenceError) -> ReadResult {
        let start = ContinuousClock.now
        let files = try bundle.fileBytes()
        let withheld = try bundle.withheldHashes()
        var report = PassiveAuthentication.verify(files: files, trustStore: trustStore, at: date)
        // A withheld group: the stated hash must be the verified SOD's own.
        var withheldFailures: [String] = []
        for (number, (digest, hash)) in withheld.sorted(by: { $0.key < $1.key }) where report.signatureAndChainValid {
            let file = LDSFile.dg(number)
            if report.digestAlgorithm == digest, report.sodDataGroupHashes[number] == hash {
                continue
            }
            withheldFailures.append(file.name)
            report.fileHashes[file] = .invalid
        }
        let parsed = ParsedDataGroups(files: files)
        var result = ReadResult.assemble(
            files: files, parsed: parsed, access: nil, applications: nil, skipped: [], transport: TransportReport(), durationMs: 0)
        result.checks.activeAuthentication = activeAuthentication(
            bundle.activeAuthentication, files: files, expectedChallenge: expectedChallenge)
        result.checks.takeReaderReported(
            chipAuthentication: bundle.chipAuthentication, terminalAuthentication: bundle.verdict.checks.terminalAuthentication)
        // The same verification as a live read: PA's check, AA gated by it (a signed DG15 requires
        // AA), the inspection checks, and the status by the one policy.
        result.verify(report: report, parsed: parsed, accessKey: nil, trustStore: trustStore, at: date)
        if !withheldFailures.isEmpty {
            result.checks.passiveAuthentication.result = .failed
            result.checks.passiveAuthentication.reason = Reason.withheldHashMismatch
            result.checks.passiveAuthentication.detail =
                "the hash stated for withheld \(withheldFailures.joined(separator: ", ")) is not the SOD's"
        }
        if report.signatureAndChainValid {
            var hashes = result.checks.passiveAuthentication.dataGroupHashes ?? [:]
            for number in withheld.keys where !withheldFailures.contains(LDSFile.dg(number).name) {
                hashes[LDSFile.dg(number).name] = "withheld"
            }
            result.checks.passiveAuthentication.dataGroupHashes = hashes.isEmpty ? nil : hashes
        }
        // A challenge the relying party expected and the chip did not sign fails AA whatever the key.
        if result.checks.activeAuthentication.reason == Reason.challengeMismatch {
            result.checks.activeAuthentication.result = CheckResult.failed
        }
        result.applyVerdict()
        let elapsed = ContinuousClock.now - start
        result.durationMs = (Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
        return result
    }

    /// The AA check: the signature over a bundle's or a dump's challenge with DG15's key (the ECDSA
    /// hash from DG14's ActiveAuthenticationInfo when DG14 is carried), and the expected challenge.
    public static func activeAuthentication(
        _ evidence: EvidenceBundle.ActiveAuthenticationEvidence?, files: [LDSFile: [UInt8]], expectedChallenge: [UInt8]?
    ) -> ReadResult.Check {
        guard let aa = evidence,
              let challenge = [UInt8](hex: aa.challenge), let signature = [UInt8](hex: aa.signature) else {
            if expectedChallenge != nil {
                return ReadResult.Check(
                    result: CheckResult.failed, reason: Reason.challengeMismatch, protocol: "id-AA", keyFile: "DG15",
                    detail: "a challenge was expected and the bundle holds no Active Authentication")
            }
            return .notPerformed(files[.dg(15)] == nil ? "noDG15" : "notInEvidence")
        }
        var check = ReadResult.Check(result: CheckResult.failed, protocol: "id-AA", keyFile: "DG15")
        check.challenge = challenge.hex
        check.challengeSource = aa.challengeSource
        check.signature = signature.hex
        if let expectedChallenge, expectedChallenge != challenge {
            check.reason = Reason.challengeMismatch
            check.detail = "the chip signed \(challenge.hex), not the expected challenge \(expectedChallenge.hex)"
            return check
        }
        guard let dg15 = files[.dg(15)] else {
            check.reason = Reason.keyWithheld
            check.detail = "DG15 (the Active Authentication key) is not in the bundle"
            return check
        }
        let key: ActiveAuthenticationPublicKey
        do {
            key = try ActiveAuthenticationPublicKey(dg15: dg15)
        } catch {
            check.reason = "activeAuthenticationKeyInvalid"
            return check
        }
        let digest = files[.dg(14)].flatMap { try? SecurityInfos(dg14: $0) }?.activeAuthenticationInfos.first
            .flatMap { DigestAlgorithm(ecdsaSignatureAlgorithmOID: $0.signatureAlgorithm) }
        guard let verification = try? key.verify(challenge: challenge, signature: signature, ecdsaDigest: digest) else {
            check.reason = Reason.signatureInvalid
            return check
        }
        check.algorithm = [verification.algorithm, verification.digest?.rawValue, verification.signatureFormat]
            .compactMap { $0 }.joined(separator: " ")
        guard verification.isValid else {
            check.reason = "\(Reason.signatureInvalid): \(verification.failure ?? "")"
            return check
        }
        check.result = CheckResult.passedUnverifiedKey
        check.reason = "keyFileUnverified: DG15"
        return check
    }
}
