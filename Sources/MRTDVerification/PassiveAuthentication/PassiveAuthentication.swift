public import FoundationEssentials
public import MRTDCore
import MRTDCrypto

/// Passive authentication (Doc 9303-11 §5.1, Doc 9303-12): SOD signature, DSC to CSCA chain and data
/// group hashes. Runs offline on raw file bytes; never depends on the protocol layer.
///
/// Order (TR-03105 LDS_H_69): the signature and hashes are verified over the bytes as read,
/// before and independently of any parsing of data group contents.
public enum PassiveAuthentication {
    /// Verifies the files of one document.
    ///
    /// - Parameters:
    ///   - files: the files exactly as read (`.sod` required; `.com`, data groups and
    ///     `.cardSecurity` as available).
    ///   - trustStore: the CSCAs to trust; `nil` gives `notPerformed` (`noTrustStore`).
    ///   - date: the verification time (certificate validity is reported against it).
    public static func verify(
        files: [LDSFile: [UInt8]], trustStore: TrustStore?, at date: Date = Date()
    ) -> PassiveAuthenticationReport {
        guard let trustStore else {
            var report = PassiveAuthenticationReport(result: .notPerformed, reason: .noTrustStore,
                                                     detail: "no trust store configured", at: date)
            for file in files.keys where file.dataGroupNumber != nil { report.fileHashes[file] = .notRead }
            return report
        }
        var report = PassiveAuthenticationReport(result: .passed, at: date)
        guard let sod = files[.sod] else {
            report.fail(PAFailure(.sodMissing, "EF.SOD was not read"))
            return report
        }
        do throws(PAFailure) {
            // Doc 9303-10 §4.6.2: EF.SOD is tag 77 around a ContentInfo; bounded by the bytes read.
            let outer: (tag: UInt8, content: ArraySlice<UInt8>)
            do { outer = try BERExtent.contents(sod[...]) } catch {
                throw PAFailure(.sodMalformed, "EF.SOD: \(error)")
            }
            guard outer.tag == 0x77 else {
                throw PAFailure(.sodMalformed, "EF.SOD starts with tag \(String(outer.tag, radix: 16)), expected 77")
            }
            let contentInfo: ArraySlice<UInt8>
            do { contentInfo = outer.content.prefix(try BERExtent.elementLength(outer.content)) } catch {
                throw PAFailure(.sodMalformed, "SOD ContentInfo: \(error)")
            }
            if contentInfo.count != outer.content.count { report.warnings.append("sodTrailingBytes") }

            let signedData = try SignedDataVerifier.parse(contentInfo)
            let signer = try SignedDataVerifier.verify(
                signedData, expectedContentType: LDSSecurityObject.oid,
                toleratedContentTypes: LDSSecurityObject.legacyContentTypes,
                externalSigners: { trustStore.documentSigners(matching: $0) }, signerKeys: trustStore.signerKeys,
                profile: trustStore.verificationProfile)
            report.signatureScheme = signer.scheme
            report.dsc = signer.signer
            report.signingTime = signer.signingTime
            report.warnings += signer.warnings
            if !signer.signerFromMessage { report.warnings.append("dscFromTrustStore") }

            let securityObject = try parseSecurityObject(signer.content, profile: trustStore.verificationProfile, report: &report)
            report.sodDataGroupHashes = securityObject.hashesByDataGroup
            let chain = try trustStore.verifyChain(of: signer.signer, role: .documentSigner, at: date,
                                                   signingTime: signer.signingTime)
            report.csca = chain.anchor.certificate
            report.warnings += chain.warnings
            report.signatureAndChainValid = true

            try checkHashes(securityObject, files: files, report: &report)
        } catch {
            report.fail(error)
        }
        if let cardSecurity = files[.cardSecurity] {
            let verdict = verifyCardSecurity(cardSecurity, trustStore: trustStore, at: date)
            report.fileHashes[.cardSecurity] = verdict.failure == nil ? .valid : .invalid
            if let failure = verdict.failure {
                report.fail(PAFailure(.cardSecurityInvalid, "EF.CardSecurity: \(failure.reason.rawValue): \(failure.detail)"))
            } else if let cardAccess = files[.cardAccess].flatMap({ try? SecurityInfos(derEncoded: $0) }),
                      let signed = verdict.securityInfos.flatMap({ try? SecurityInfos(derEncoded: $0) }) {
                // EF.CardAccess is not signed: the PACE parameters it offered must be the ones the
                // issuer signed in EF.CardSecurity (TR-03110-3 §A.1.2; TR-03105-5.1 LDS_J_02, J_03).
                let missing = cardAccess.paceParametersMissing(from: signed)
                if !missing.isEmpty {
                    report.fileHashes[.cardSecurity] = .invalid
                    report.fail(PAFailure(.cardSecurityInvalid,
                        "EF.CardSecurity does not sign EF.CardAccess's \(missing.joined(separator: ", "))"))
                }
            }
        }
        return report
    }

    /// The verdict on a stand-alone EF.CardSecurity (BSI TR-03110-3 §A.1.2.5: SignedData over
    /// SecurityInfos, eContentType id-SecurityObject, signed by a document signer).
    public struct CardSecurityVerdict: Sendable {
        /// Why it failed; `nil` when the signature and chain verified.
        public var reason: PassiveAuthenticationReason? { failure?.reason }
        /// Readable explanation.
        public var detail: String? { failure?.detail }
        var failure: PAFailure?
        /// The document signer and CSCA, as far as they were established.
        public var dsc: Certificate?
        public var csca: Certificate?
        /// The verified SecurityInfos bytes (the eContent).
        public var securityInfos: [UInt8]?
        public var warnings: [String] = []
    }

    /// Verifies EF.CardSecurity: its signature and its signer's chain to a CSCA in `trustStore`.
    public static func verifyCardSecurity(_ bytes: [UInt8], trustStore: TrustStore, at date: Date = Date()) -> CardSecurityVerdict {
        var verdict = CardSecurityVerdict()
        do throws(PAFailure) {
            let bounded: ArraySlice<UInt8>
            do { bounded = bytes.prefix(try BERExtent.elementLength(bytes[...])) } catch {
                throw PAFailure(.sodMalformed, "\(error)")
            }
            let signedData = try SignedDataVerifier.parse(bounded)
            let signer = try SignedDataVerifier.verify(
                signedData, expectedContentType: SecurityProtocolOID.securityObject,
                externalSigners: { trustStore.documentSigners(matching: $0) }, signerKeys: trustStore.signerKeys,
                profile: trustStore.verificationProfile)
            verdict.dsc = signer.signer
            let chain = try trustStore.verifyChain(of: signer.signer, role: .documentSigner, at: date,
                                                   signingTime: signer.signingTime)
            verdict.csca = chain.anchor.certificate
            verdict.securityInfos = signer.content
            verdict.warnings = signer.warnings + chain.warnings
        } catch {
            verdict.failure = error
        }
        return verdict
    }

    /// Doc 9303-10 §4.6.2.2: version v0 or v1 (v1 exactly when ldsVersionInfo is present), a
    /// permitted hash algorithm, data group numbers 1…16 each at most once.
    /// A v1 object without ldsVersionInfo is reported (`ldsVersionInfoMissing`), or refused under the
    /// strict profile (TR-03105 LDS_H_88).
    private static func parseSecurityObject(
        _ content: [UInt8], profile: VerificationProfile, report: inout PassiveAuthenticationReport
    ) throws(PAFailure) -> LDSSecurityObject {
        let securityObject: LDSSecurityObject
        do { securityObject = try LDSSecurityObject(derEncoded: content) } catch {
            throw PAFailure(.ldsSecurityObjectInvalid, "\(error)")
        }
        guard let digest = DigestAlgorithm(oid: securityObject.hashAlgorithmOID) else {
            throw PAFailure(.ldsSecurityObjectInvalid, "hash algorithm \(securityObject.hashAlgorithmOID) is not allowed")
        }
        if securityObject.version == 0, securityObject.ldsVersion != nil {
            throw PAFailure(.ldsSecurityObjectInvalid, "ldsVersionInfo present in a v0 LDSSecurityObject")
        }
        if securityObject.version == 1, securityObject.ldsVersion == nil {
            guard profile == .tolerateSODDeviations else {
                throw PAFailure(.ldsSecurityObjectInvalid, "v1 LDSSecurityObject without ldsVersionInfo (strict profile)")
            }
            report.warnings.append("ldsVersionInfoMissing")
        }
        report.digestAlgorithm = digest
        return securityObject
    }

    /// Doc 9303-11 §5.1.1 step 4: hash every data group read and compare; TR-03105 LDS_H_44–46,
    /// 90–92: every data group read must have a hash, and EF.COM must list the same groups as the SOD.
    private static func checkHashes(
        _ securityObject: LDSSecurityObject, files: [LDSFile: [UInt8]], report: inout PassiveAuthenticationReport
    ) throws(PAFailure) {
        guard let digest = report.digestAlgorithm else { return }
        let hashes = securityObject.hashesByDataGroup
        var mismatched: [String] = []
        var missing: [String] = []
        for (file, bytes) in files {
            guard let number = file.dataGroupNumber else { continue }
            guard let expected = hashes[number] else {
                report.fileHashes[file] = .missing
                missing.append(file.name)
                continue
            }
            let valid = digest.hash(bytes) == expected
            report.fileHashes[file] = valid ? .valid : .invalid
            if !valid { mismatched.append(file.name) }
        }
        for number in hashes.keys where files[.dg(number)] == nil { report.fileHashes[.dg(number)] = .notRead }
        if !report.fileHashes.values.contains(.valid) { report.warnings.append("noDataGroupVerified") }

        if !mismatched.isEmpty {
            throw PAFailure(.dataGroupHashMismatch, "hash mismatch: \(mismatched.sorted().joined(separator: ", "))")
        }
        if !missing.isEmpty {
            throw PAFailure(.dataGroupHashMissing, "no hash in the SOD for \(missing.sorted().joined(separator: ", "))")
        }
        if let com = files[.com] {
            guard let listed = try? EFCOM(rawBytes: com).dataGroups else {
                throw PAFailure(.comSodMismatch, "EF.COM does not parse, so its data group list cannot be compared")
            }
            let fromCOM = Set(listed.compactMap(\.dataGroupNumber))
            let fromSOD = Set(hashes.keys)
            if fromCOM != fromSOD {
                let onlyCOM = fromCOM.subtracting(fromSOD).sorted().map { "DG\($0)" }
                let onlySOD = fromSOD.subtracting(fromCOM).sorted().map { "DG\($0)" }
                throw PAFailure(.comSodMismatch, "only in EF.COM: [\(onlyCOM.joined(separator: ", "))], only in SOD: [\(onlySOD.joined(separator: ", "))]")
            }
        } else {
            report.warnings.append("comNotRead")
        }
    }
}
