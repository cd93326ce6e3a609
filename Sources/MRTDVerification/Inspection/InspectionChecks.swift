public import FoundationEssentials
public import MRTDCore
import MRTDCrypto

/// The consistency checks an inspection system runs beside passive authentication (BSI TR-03135
/// Part 1; the mapping to its requirements is in docs/verification.md): the signer's country
/// against DG1's issuing state, the document's expiry, DG1 against the access key, the structure
/// of DG1 and DG2, revocation, and deviation lists (Doc 9303-12 §10).
///
/// Every check gives `passed`, `failed`, `undetermined` or `notPerformed`. Reasons are stable codes;
/// details never carry MRZ values, names or keys.
public enum InspectionChecks {
    /// Stable reason codes of the checks.
    public enum Reason {
        public static let dg1Malformed = "dg1Malformed"
        public static let dg1CheckDigitInvalid = "dg1CheckDigitInvalid"
        public static let dg1FieldInvalid = "dg1FieldInvalid"
        public static let dg2Malformed = "dg2Malformed"
        public static let dg2NoFace = "dg2NoFace"
        /// DG3 (fingers) departs from Doc 9303-10 §4.7.3 (BSI TR-03105-5.1 LDS_D).
        public static let dg3Malformed = "dg3Malformed"
        /// DG4 (irises) departs from Doc 9303-10 §4.7.4 (BSI TR-03105-5.1 LDS_E).
        public static let dg4Malformed = "dg4Malformed"
        public static let dataGroupsNotRead = "dataGroupsNotRead"
        public static let dg1Unavailable = "dg1Unavailable"
        public static let documentExpired = "documentExpired"
        public static let expiryDateIncomplete = "expiryDateIncomplete"
        public static let canAccess = "canAccess"
        public static let noAccessKey = "noAccessKey"
        public static let mrzMismatch = "mrzMismatch"
        /// DG1 is not the MRZ of the data page (scanned or typed as printed): `checks.mrzMatch`.
        public static let dg1DiffersFromScannedMRZ = "dg1DiffersFromScannedMRZ"
        public static let signerNotVerified = "signerNotVerified"
        public static let countryMismatch = "countryMismatch"
        public static let issuingStateUnmapped = "issuingStateUnmapped"
        public static let certificateCountryMissing = "certificateCountryMissing"
        public static let dscRevoked = "dscRevoked"
        public static let revocationNotChecked = "revocationNotChecked"
        public static let crlOutdated = "crlOutdated"
        public static let activeAuthenticationKeyCompromised = "activeAuthenticationKeyCompromised"
    }

    /// DG1 (MRZ) and DG2 (biometric template) parse as their structures require (Doc 9303-10
    /// §4.7.1, §4.7.2); DG1's check digits hold and its fields keep their syntax (``MRZ/fieldErrors``).
    /// A DG2 without a face image fails (Doc 9303-10: the face is mandatory).
    /// DG3 and DG4, when read, must have the structure of §4.7.3 / §4.7.4 exactly.
    /// Returns the check and the data groups that failed. `parsed`: the read's data groups, parsed once.
    public static func dataGroupStructure(_ parsed: ParsedDataGroups) -> (check: ReadResult.Check, failed: [Int]) {
        var failed: [Int] = []
        var reasons: [String] = []
        var details: [String] = []
        var checked: [String] = []
        if let dg1 = parsed.dg1 {
            checked.append("DG1")
            do {
                // Doc 9303-3 §4.9 and §4.4-4.6: a signed MRZ whose check digits fail or whose fields
                // break their syntax is not trusted (the names of the fields only: no MRZ values).
                let mrz = try dg1.get().mrz
                let wrongDigits = mrz.checkDigits.filter { !$0.isValid }.map(\.field)
                let wrongFields = mrz.fieldErrors
                if !wrongDigits.isEmpty {
                    reasons.append(Reason.dg1CheckDigitInvalid)
                    details.append("DG1: wrong check digit in \(wrongDigits.joined(separator: ", "))")
                }
                if !wrongFields.isEmpty {
                    reasons.append(Reason.dg1FieldInvalid)
                    details.append("DG1: malformed MRZ field \(wrongFields.joined(separator: ", "))")
                }
                if !wrongDigits.isEmpty || !wrongFields.isEmpty { failed.append(1) }
            } catch {
                failed.append(1)
                reasons.append(Reason.dg1Malformed)
                details.append("DG1: \(error)")
            }
        }
        if let dg2 = parsed.dg2 {
            checked.append("DG2")
            do {
                if try dg2.get().faces.isEmpty {
                    failed.append(2)
                    reasons.append(Reason.dg2NoFace)
                    details.append("DG2: no face image")
                }
            } catch {
                failed.append(2)
                reasons.append(Reason.dg2Malformed)
                details.append("DG2: \(error)")
            }
        }
        // DG3 / DG4 when read (after Terminal Authentication): their biometric templates as
        // ``BiometricGroup/structureProblems(rawBytes:file:)`` found them (`ParsedDataGroups`).
        for number in [3, 4] {
            guard let problems = parsed.biometricStructureProblems[number] else { continue }
            checked.append("DG\(number)")
            if !problems.isEmpty {
                failed.append(number)
                reasons.append(number == 3 ? Reason.dg3Malformed : Reason.dg4Malformed)
                details.append(problems.joined(separator: "; "))
            }
        }
        if checked.isEmpty {
            return (ReadResult.Check(result: .notPerformed, reason: Reason.dataGroupsNotRead,
                                     detail: "neither DG1 nor DG2 was read"), [])
        }
        if failed.isEmpty {
            return (ReadResult.Check(result: .passed, detail: "\(checked.joined(separator: ", ")) well-formed"), [])
        }
        return (ReadResult.Check(result: .failed, reason: reasons.joined(separator: ","),
                                 detail: details.joined(separator: "; ")), failed)
    }

    /// EF.ATR/INFO, when the chip has one, parses as ISO/IEC 7816-4 §8.2.1.1 and §12.7.1 require
    /// (Doc 9303-10 §3.11): interindustry objects only where they belong, and extended length
    /// information `7F66` with both sizes (BSI TR-03105-5.1 LDS_K_03, LDS_K_04: failed).
    public static func atrInfo(_ file: [UInt8]?) -> ReadResult.Check? {
        guard let bytes = file else { return nil }
        do {
            let info = try ATRInfo(rawBytes: bytes)
            if let sizes = info.extendedLengthInfo {
                return ReadResult.Check(result: .passed, detail: "EF.ATR/INFO well-formed: command APDUs up to \(sizes.maxCommandLength) bytes, response APDUs up to \(sizes.maxResponseLength) bytes")
            }
            return ReadResult.Check(result: .passed, detail: "EF.ATR/INFO well-formed, without extended length information")
        } catch {
            return ReadResult.Check(result: .failed, reason: error.reason, detail: error.description)
        }
    }

    /// The document's date of expiry from DG1 against `date`: valid through the day it names (UTC).
    public static func documentExpiry(mrz: MRZ?, at date: Date) -> ReadResult.Check {
        guard let mrz else {
            return ReadResult.Check(result: .notPerformed, reason: Reason.dg1Unavailable, detail: "DG1 not read or not parsable")
        }
        guard let iso = mrz.dateOfExpiry.iso8601, let end = endOfDay(iso) else {
            return ReadResult.Check(result: .undetermined, reason: Reason.expiryDateIncomplete,
                                    detail: "DG1's date of expiry is not a complete calendar date")
        }
        if date >= end {
            return ReadResult.Check(result: .failed, reason: Reason.documentExpired,
                                    detail: "the document's date of expiry (DG1) has passed")
        }
        return ReadResult.Check(result: .passed, detail: "the document has not expired")
    }

    /// DG1's document number, date of birth and date of expiry against the MRZ key that opened the
    /// chip. With a CAN there is nothing to compare (`notPerformed`).
    public static func accessKeyMatch(mrz: MRZ?, accessKey: MRZKey?, password: String?) -> ReadResult.Check {
        if password == "CAN" {
            return ReadResult.Check(result: .notPerformed, reason: Reason.canAccess,
                                    detail: "the chip was opened with a CAN: no MRZ key to compare")
        }
        guard let accessKey else {
            return ReadResult.Check(result: .notPerformed, reason: Reason.noAccessKey, detail: "no MRZ access key (offline verification)")
        }
        guard let mrz else {
            return ReadResult.Check(result: .undetermined, reason: Reason.dg1Unavailable, detail: "DG1 not read or not parsable")
        }
        let fromChip = mrz.accessKey
        func normalized(_ s: String) -> String { s.uppercased().filter { $0 != "<" } }
        var differing: [String] = []
        if normalized(fromChip.documentNumber) != normalized(accessKey.documentNumber) { differing.append("documentNumber") }
        if fromChip.dateOfBirth != accessKey.dateOfBirth { differing.append("dateOfBirth") }
        if fromChip.dateOfExpiry != accessKey.dateOfExpiry { differing.append("dateOfExpiry") }
        if differing.isEmpty {
            return ReadResult.Check(result: .passed, detail: "DG1 matches the MRZ key used to open the chip")
        }
        return ReadResult.Check(result: .failed, reason: Reason.mrzMismatch,
                                detail: "DG1 differs from the MRZ key used to open the chip in: \(differing.joined(separator: ", "))")
    }

    /// `checks.mrzMatch`: DG1's MRZ against the MRZ of the data page, as a scanner read it or an
    /// operator typed it as printed, character for character (BSI TR-03105-5.1 LDS_B_11: a name on
    /// the chip that is not the page's is a forgery's mark). `nil` when no page MRZ was given. The
    /// detail names the fields that differ, never their values.
    public static func mrzMatch(page: MRZ?, chip: MRZ?) -> ReadResult.Check? {
        guard let page else { return nil }
        guard let chip else {
            return ReadResult.Check(result: .undetermined, reason: Reason.dg1Unavailable, detail: "DG1 not read or not parsable")
        }
        if chip.lines == page.lines {
            return ReadResult.Check(result: .passed, detail: "DG1 equals the MRZ of the data page")
        }
        var differing = ["format"]
        if page.format == chip.format {
            let fields: [(String, (MRZ) -> String)] = [
                ("documentCode", \.documentCode), ("issuingState", \.issuingState), ("documentNumber", \.documentNumber),
                ("primaryIdentifier", \.primaryIdentifier), ("secondaryIdentifier", \.secondaryIdentifier),
                ("nationality", \.nationality), ("dateOfBirth", \.dateOfBirth.raw), ("sex", \.sex),
                ("dateOfExpiry", \.dateOfExpiry.raw), ("optionalData", \.optionalData), ("optionalData2", { $0.optionalData2 ?? "" }),
            ]
            differing = fields.filter { $0.1(page) != $0.1(chip) }.map(\.0)
            if differing.isEmpty { differing = ["checkDigits"] }
        }
        return ReadResult.Check(result: .failed, reason: Reason.dg1DiffersFromScannedMRZ,
                                detail: "DG1 differs from the MRZ of the data page in: \(differing.joined(separator: ", "))")
    }

    /// The document signer's and CSCA's countryName against DG1's issuing state (Doc 9303-3 codes
    /// mapped to ISO 3166-1 alpha-2 by ``IssuingStateCode``). Only a signer whose signature and
    /// chain verified is compared.
    public static func issuingCountry(mrz: MRZ?, report: PassiveAuthenticationReport?) -> ReadResult.Check {
        guard let report, report.signatureAndChainValid, let dsc = report.dsc, let csca = report.csca else {
            return ReadResult.Check(result: .notPerformed, reason: Reason.signerNotVerified,
                                    detail: "no document signer verified by passive authentication")
        }
        guard let mrz else {
            return ReadResult.Check(result: .undetermined, reason: Reason.dg1Unavailable, detail: "DG1 not read or not parsable")
        }
        let state = mrz.issuingState
        guard let expected = IssuingStateCode.alpha2(forICAO: state) else {
            return ReadResult.Check(result: .undetermined, reason: Reason.issuingStateUnmapped,
                                    detail: "issuing state \(state) has no ISO 3166 country to compare with")
        }
        guard let dscCountry = dsc.subject.country, let cscaCountry = csca.subject.country else {
            return ReadResult.Check(result: .undetermined, reason: Reason.certificateCountryMissing,
                                    detail: "the DSC or CSCA has no countryName")
        }
        if dscCountry == expected, cscaCountry == expected {
            return ReadResult.Check(result: .passed, detail: "issuing state \(state) = \(expected), DSC and CSCA country \(expected)")
        }
        return ReadResult.Check(result: .failed, reason: Reason.countryMismatch,
                                detail: "issuing state \(state) (\(expected)), but DSC country \(dscCountry) and CSCA country \(cscaCountry)")
    }

    /// Revocation of the DSC, from passive authentication's CRL check.
    public static func revocation(report: PassiveAuthenticationReport?) -> ReadResult.Check {
        guard let report, report.result != .notPerformed else {
            return ReadResult.Check(result: .notPerformed, reason: "noTrustStore", detail: "passive authentication not performed")
        }
        if report.reason == .dscRevoked {
            return ReadResult.Check(result: .failed, reason: Reason.dscRevoked, detail: report.detail)
        }
        guard report.signatureAndChainValid else {
            return ReadResult.Check(result: .notPerformed, reason: Reason.signerNotVerified,
                                    detail: "the document signer's chain did not verify, so revocation was not looked up")
        }
        if report.warnings.contains("revocationNotChecked") {
            return ReadResult.Check(result: .undetermined, reason: Reason.revocationNotChecked,
                                    detail: "no CRL signed by the document's CSCA is loaded")
        }
        if report.warnings.contains("crlOutdated") {
            return ReadResult.Check(result: .undetermined, reason: Reason.crlOutdated,
                                    detail: "the DSC is not on the CSCA's CRL, but the CRL is past its nextUpdate")
        }
        return ReadResult.Check(result: .passed, detail: "the DSC is not on its CSCA's current CRL")
    }

    /// The end (exclusive) of the UTC day `yyyy-mm-dd`.
    static func endOfDay(_ iso: String) -> Date? {
        let parts = iso.split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3 else { return nil }
        return UTCDate.date(year: parts[0], month: parts[1], day: parts[2], hours: 0, minutes: 0, seconds: 0)
            .addingTimeInterval(86400)
    }
}

extension ReadResult {
    /// Runs the TR-03135 checks and deviation lists over a result whose passive authentication
    /// check is in, then decides the status by `policy` (``VerdictPolicy``: the one rule book).
    /// A check failure that a matching, verified deviation explains, leaving the rest of the evidence
    /// intact, is *tolerated*: the check becomes `undetermined` (its reason kept, the deviation named
    /// in its detail and in a warning), which the policy reads as `unverified`, never `valid`
    /// (BSI TR-03135-1: a listed defect makes the check undetermined, not failed).
    /// A failed read (`status: failed`) is left untouched.
    ///
    /// - Parameters:
    ///   - accessKey: the MRZ key the chip was opened with, if it was opened with one.
    ///   - pageMRZ: the data page's MRZ (scanned, or typed as printed), if given: `checks.mrzMatch`.
    ///   - trustStore: supplies the deviation lists.
    public mutating func applyInspectionChecks(
        files: [LDSFile: [UInt8]], report: PassiveAuthenticationReport?, accessKey: MRZKey?, pageMRZ: MRZ? = nil,
        trustStore: TrustStore?, at date: Date = Date()
    ) {
        applyInspectionChecks(
            parsed: ParsedDataGroups(files: files), report: report, accessKey: accessKey, pageMRZ: pageMRZ,
            trustStore: trustStore, at: date)
    }

    /// The same, on the read's data groups as parsed once (`ParsedDataGroups`).
    public mutating func applyInspectionChecks(
        parsed: ParsedDataGroups, report: PassiveAuthenticationReport?, accessKey: MRZKey?, pageMRZ: MRZ? = nil,
        trustStore: TrustStore?, at date: Date = Date(), policy: VerdictPolicy = .standard
    ) {
        guard status != .failed else { return }
        let mrz = parsed.mrz
        let structure = InspectionChecks.dataGroupStructure(parsed)
        checks.dataGroupStructure = structure.check
        checks.documentExpiry = InspectionChecks.documentExpiry(mrz: mrz, at: date)
        checks.accessKeyMatch = InspectionChecks.accessKeyMatch(mrz: mrz, accessKey: accessKey, password: access?.password)
        checks.mrzMatch = InspectionChecks.mrzMatch(page: pageMRZ, chip: mrz)
        checks.issuingCountry = InspectionChecks.issuingCountry(mrz: mrz, report: report)
        checks.revocation = InspectionChecks.revocation(report: report)
        checks.atrInfo = InspectionChecks.atrInfo(parsed.atrInfo)

        var matches: [DeviationMatch] = []
        if let report, let trustStore, !trustStore.deviationLists.isEmpty {
            matches = DeviationMatcher(report: report, mrz: mrz, structureFailures: structure.failed, checks: checks)
                .matches(in: trustStore.deviationLists)
        }
        checks.deviations = matches.isEmpty ? nil : matches
        if matches.contains(where: { $0.type == DeviationList.DeviationType.aaKeyCompromised.rawValue && $0.effect == "notTolerated" }) {
            checks.activeAuthentication.result = CheckResult.failed
            checks.activeAuthentication.reason = InspectionChecks.Reason.activeAuthenticationKeyCompromised
        }
        for match in matches {
            warnings.append("deviation \(match.type)\(match.affects.map { " (\($0))" } ?? ""): \(match.effect): \(match.explanation)")
        }
        if checks.documentExpiry?.result == .failed { warnings.append(InspectionChecks.Reason.documentExpired) }

        // A failure every matching deviation of it tolerates becomes undetermined; one that any
        // deviation does not tolerate stays failed.
        let notTolerated = Set(matches.filter { $0.effect == "notTolerated" }.compactMap(\.check))
        for match in matches where match.effect == "tolerated" {
            guard let check = match.check, !notTolerated.contains(check) else { continue }
            let note = "tolerated by deviation \(match.type) (\(match.source))"
            switch check {
            case "passiveAuthentication" where checks.passiveAuthentication.result == .failed:
                checks.passiveAuthentication.result = .undetermined
                checks.passiveAuthentication.detail = [checks.passiveAuthentication.detail, note].compactMap { $0 }.joined(separator: "; ")
            case "dataGroupStructure": checks.dataGroupStructure = Self.tolerated(checks.dataGroupStructure, note)
            case "accessKeyMatch": checks.accessKeyMatch = Self.tolerated(checks.accessKeyMatch, note)
            default: break
            }
        }
        applyVerdict(policy)
    }

    /// A failed check a deviation tolerates: `undetermined`, its reason kept, the deviation named.
    private static func tolerated(_ check: Check?, _ note: String) -> Check? {
        guard var check, check.result == .failed else { return check }
        check.result = .undetermined
        check.detail = [check.detail, note].compactMap { $0 }.joined(separator: "; ")
        return check
    }
}
