extension ReadResult {
    /// The warning (its stable first word) of a read whose chip gave no DG2, the portrait:
    /// `portraitMissing: the chip gave no DG2 (fileNotFound); ...`.
    public static let portraitMissing = "portraitMissing"
    /// The warning (its stable first word) of a chip that offers PACE, failed it, and was read with
    /// BAC (`access.fallback` says why): `paceFallback: PACE failed (...); ...`.
    public static let paceFallback = "paceFallback"
    /// A mandatory data group (DG1, DG2) was asked for and not given: the read is never `valid`.
    public static let mandatoryDataGroupMissing = "mandatoryDataGroupMissing"
    /// The warning (its stable first word) of a DG2 JPEG 2000 face followed by padding, handed out
    /// without it: `faceImagePadding: 64 bytes of padding ...`.
    public static let faceImagePadding = "faceImagePadding"

    /// Builds the result of a successful chip session from the files as read, parsing them here.
    public static func assemble(
        files: [LDSFile: [UInt8]], access: AccessInfo?, applications: ApplicationsInfo?,
        skipped: [SkippedFile], transport: TransportReport, durationMs: Double,
        checks: Checks = Checks()
    ) -> ReadResult {
        assemble(
            files: files, parsed: ParsedDataGroups(files: files), access: access, applications: applications,
            skipped: skipped, transport: transport, durationMs: durationMs, checks: checks)
    }

    /// Builds the result of a successful chip session from the files as read and their data groups
    /// as parsed once (`ParsedDataGroups`).
    ///
    /// Parsing problems in DG1 or DG2 do not fail the read: they become warnings, and the fields stay
    /// absent (RELIABILITY DG2-01: a broken face record leaves the rest intact).
    public static func assemble(
        files: [LDSFile: [UInt8]], parsed: ParsedDataGroups, access: AccessInfo?, applications: ApplicationsInfo?,
        skipped: [SkippedFile], transport: TransportReport, durationMs: Double,
        checks: Checks = Checks()
    ) -> ReadResult {
        var warnings: [String] = []
        var document: DocumentInfo?
        var face: FaceInfo?
        if let parsedDG1 = parsed.dg1 {
            do {
                let dg1 = try parsedDG1.get()
                document = DocumentInfo(mrz: dg1.mrz)
                if !dg1.mrz.hasValidCheckDigits {
                    let fields = dg1.mrz.checkDigits.filter { !$0.isValid }.map(\.field)
                    warnings.append("DG1: wrong MRZ check digit in \(fields.joined(separator: ", "))")
                }
            } catch {
                warnings.append("DG1: \(error)")
            }
        }
        if let parsedDG2 = parsed.dg2 {
            do {
                let dg2 = try parsedDG2.get()
                if let first = dg2.faces.first {
                    face = FaceInfo(mimeType: first.mimeType, width: first.width, height: first.height,
                                    size: first.imageData.count, encoding: dg2.encoding.rawValue)
                    if first.trailingPadding > 0 {
                        // NFCPassportReader 2.3.1: the image is handed out without the padding.
                        warnings.append("\(Self.faceImagePadding): \(first.trailingPadding) bytes of padding after the "
                                        + "JPEG 2000 image in DG2 are not part of the face handed out")
                    }
                } else {
                    warnings.append("DG2: no face image")
                }
            } catch {
                warnings.append("DG2: \(error)")
            }
        }
        if files[.dg(2)] == nil, let missing = skipped.first(where: { $0.file == LDSFile.dg(2).name }) {
            // NFCPassportReader#265: no portrait from a chip that lists DG2; the rest is kept.
            warnings.append("\(Self.portraitMissing): the chip gave no DG2 (\(missing.reason)); the result holds what it gave")
        }
        // Doc 9303-10 §4.6: DG1 and DG2 are mandatory in LDS1. A chip that was asked for one and did
        // not give it is never `valid` (TR-03105-5.1 ISO7816_C_01): what the signer signed is not all
        // there, and a chip that withholds its portrait must not pass as genuine with no face. The
        // warning is what the verdict (MRTDVerification's VerdictPolicy) goes by.
        let mandatory = [LDSFile.dg(1).name, LDSFile.dg(2).name]
        let withheld = skipped.filter { mandatory.contains($0.file) }.map(\.file)
        if !withheld.isEmpty {
            warnings.append("\(Self.mandatoryDataGroupMissing): \(withheld.joined(separator: ", ")) was not given; the read cannot be valid")
        }
        // The status is decided once every check is in (MRTDVerification: ReadResult.verify); until
        // then nothing is verified.
        var result = ReadResult(
            status: .unverified, access: access, applications: applications, document: document, face: face,
            checks: checks,
            dataGroupsRead: files.keys.sorted().map(\.name),
            dataGroupsSkipped: skipped, warnings: warnings, transport: transport, durationMs: durationMs)
        // DG3-DG16 (ReadResult+LDS.swift): parsed only when read; problems become warnings.
        result.apply(parsed.contents)
        return result
    }
}
