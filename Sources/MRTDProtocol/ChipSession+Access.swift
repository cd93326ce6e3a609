import MRTDCore
import MRTDCrypto

/// Access control: EF.CardAccess, then PACE or BAC according to ``AccessPolicy`` (Doc 9303-11 §4.2:
/// an inspection system reads EF.CardAccess first and uses PACE when the chip offers it).
extension ChipSession {
    struct OpenedChip {
        var access: ReadResult.AccessInfo
        var lds2: Bool
        var files: [LDSFile: [UInt8]]
        var warnings: [String]
        var chipAuthentication: ReadResult.Check?
        var established: Established
    }

    /// How the chip was opened: what a re-authentication repeats.
    enum Established {
        /// No access control (an unprotected chip: files in plain).
        case plain
        case bac
        /// PACE with these parameters; for PACE-CAM, what verified the chip's static key.
        case pace(PACEParameters, cardAccess: SecurityInfos?, cardSecurity: [UInt8]?, chipAuthentication: ReadResult.Check?)
    }

    /// Authenticates and selects the eMRTD application.
    func openChip() async throws -> OpenedChip {
        established = nil
        applicationSelected = false
        var files: [LDSFile: [UInt8]] = [:]
        var warnings: [String] = []
        let key = options.accessKey

        if options.access == .bac {
            return try await openWithBAC(files: files, warnings: warnings, fallback: nil)
        }

        // EF.CardAccess lives in the master file and is read in plain before any authentication;
        // a chip without it (6A82) simply has no PACE. Its own reader: what an old chip answers
        // outside any application says nothing of the reads under secure messaging.
        let mfReader = FileReader(channel: channel, configuration: options.reader)
        var securityInfos: SecurityInfos?
        var cardAccessProblem: ProtocolError?
        do {
            let bytes = try await mfReader.read(.cardAccess)
            files[.cardAccess] = bytes
            securityInfos = try SecurityInfos(derEncoded: bytes)
        } catch let error as SecurityInfosError {
            // RELIABILITY PACE-01: a broken EF.CardAccess aborts PACE; the policy decides what next.
            cardAccessProblem = .paceNotSupported("EF.CardAccess: \(error)")
        } catch ProtocolError.fileNotFound, ProtocolError.fileAccessDenied, ProtocolError.commandFailed {
            cardAccessProblem = .paceNotSupported("the chip has no EF.CardAccess")
        } catch let error as ProtocolError where error.isPACEProtocolFailure {
            // Older BAC chips answer reads outside an application in odd ways (6700 at every Le,
            // no data): treated as "no EF.CardAccess", noted, never fatal.
            warnings.append("EF.CardAccess could not be read (\(error.code)); treated as absent")
            cardAccessProblem = .paceNotSupported("the chip has no readable EF.CardAccess")
        }

        let parameters: PACEParameters
        do {
            if let cardAccessProblem { throw cardAccessProblem }
            parameters = try PACEParameters.strongest(in: securityInfos ?? SecurityInfos(infos: []))
        } catch let error as ProtocolError {
            guard options.access == .auto, case .mrz = key else { throw error }
            if securityInfos?.paceInfos.isEmpty ?? (cardAccessProblem != nil && files[.cardAccess] == nil) {
                // No PACE on offer: BAC is the protocol of this chip, not a fallback.
                return try await openWithBAC(files: files, warnings: warnings, fallback: nil)
            }
            return try await openWithBAC(files: files, warnings: warnings, fallback: error)
        }

        let outcome: PACE.Outcome
        do {
            outcome = try await PACE.perform(
                channel: channel, parameters: parameters, password: key.pacePassword, random: random)
        } catch let error as ProtocolError {
            channel.endSecureMessaging()
            guard options.access == .auto, case .mrz = key, error.isPACEProtocolFailure else { throw error }
            return try await openWithBAC(files: files, warnings: warnings, fallback: error)
        }

        chipIdentifier = TerminalAuthentication.compressed(
            outcome.chipEphemeralPublicKey, keyAgreement: parameters.paceProtocol.keyAgreement)
        // From here on a secure-messaging fault is recovered by running PACE again.
        established = .pace(parameters, cardAccess: securityInfos, cardSecurity: nil, chipAuthentication: nil)
        var chipAuthentication: ReadResult.Check?
        // EF.CardSecurity (master file, read under the new keys) after PACE with any mapping, when
        // the chip has it: passive authentication verifies it and that it signs the PACE parameters
        // EF.CardAccess offered (TR-03110-3 §A.1.2; TR-03105-5.1 LDS_H_93, LDS_J on CFG.DFLT.PACE).
        // For PACE-CAM it also holds the chip's static key; CA_IC must map it onto PK_map,IC
        // (Doc 9303-11 §4.4.3.5.2).
        var cardSecurity: [UInt8]?
        do {
            cardSecurity = try await recovering(file: .cardSecurity, offset: { nil }) { try await reader.read(.cardSecurity) }
            files[.cardSecurity] = cardSecurity
        } catch ProtocolError.fileNotFound, ProtocolError.fileAccessDenied, ProtocolError.commandFailed {
            if parameters.paceProtocol.mapping == .cam {
                warnings.append("EF.CardSecurity could not be read: chip authentication by PACE-CAM not verifiable")
            }
        } catch let error as ProtocolError where parameters.paceProtocol.mapping != .cam && Self.isFileProblem(error) {
            // Without PACE-CAM the file only adds a check: a chip that cannot serve it (a length it
            // cannot negotiate, a truncated answer) is read without it, never failed for it.
            warnings.append("EF.CardSecurity could not be read (\(error.code)); passive authentication goes on without it")
        }
        if parameters.paceProtocol.mapping == .cam {
            chipAuthentication = PACE.verifyChipAuthenticationMapping(
                outcome, cardSecurity: cardSecurity, cardAccess: securityInfos)
        }

        established = .pace(parameters, cardAccess: securityInfos, cardSecurity: files[.cardSecurity],
                            chipAuthentication: chipAuthentication)
        // EF.ATR/INFO after PACE, still in the master file: some chips refuse it before access
        // control (gmrtd#226), and none needs it earlier.
        // A secure-messaging fault on it is recovered as on any file (PACE again).
        if let atrInfo = try await recovering(file: .atrInfo, offset: { nil }, { try await self.readATRInfo() }) {
            files[.atrInfo] = atrInfo
        }
        let lds2 = try await recovering(file: nil, offset: { nil }) { try await selectApplications() }
        let proto = parameters.paceProtocol
        let access = ReadResult.AccessInfo(
            protocol: "PACE", password: key.passwordType, cipher: parameters.cipher.rawValue,
            mapping: proto.mapping.rawValue, keyAgreement: proto.keyAgreement.rawValue,
            domainParameters: outcome.domainParametersName, parameterId: parameters.parameterID)
        return OpenedChip(access: access, lds2: lds2, files: files, warnings: warnings,
                          chipAuthentication: chipAuthentication,
                          established: .pace(parameters, cardAccess: securityInfos, cardSecurity: files[.cardSecurity],
                                             chipAuthentication: chipAuthentication))
    }

    private func openWithBAC(
        files: [LDSFile: [UInt8]], warnings: [String], fallback: ProtocolError?
    ) async throws -> OpenedChip {
        guard case .mrz(let mrz) = options.accessKey else {
            throw fallback ?? ProtocolError.paceNotSupported(
                "the chip offers no PACE, and a CAN opens a document with PACE only")
        }
        chipIdentifier = TerminalAuthentication.chipIdentifier(mrz: mrz)
        // A BAC chip's master file has no access control (Doc 9303-10 §3.11): EF.ATR/INFO is read
        // in plain before the application is selected.
        var files = files
        files[.atrInfo] = try await readATRInfo()
        let lds2: Bool
        do {
            lds2 = try await selectApplications()
        } catch ProtocolError.notAnEMRTD(let status) where status == .securityStatusNotSatisfied && fallback != nil {
            // A chip that opens its application only after PACE (6982; TR-03105-5.1 unit ISO7816_G)
            // leaves the PACE error as the one to report, not "no eMRTD application".
            throw fallback ?? ProtocolError.notAnEMRTD(status)
        }
        do {
            try await BAC.perform(channel: channel, key: mrz, random: random)
        } catch ProtocolError.bacNotSupported(let sw) where fallback == nil {
            // A chip that refuses BAC and offers no PACE may be an unprotected one (the first
            // ePassports, Doc 9303's "plain" access; TR-03105-5.1 ISO7816_A_01): it is read in plain
            // when it serves EF.COM so. Passive authentication alone then decides the status.
            guard let com = try? await reader.read(.com) else { throw ProtocolError.bacNotSupported(sw) }
            files[.com] = com
            let access = ReadResult.AccessInfo(protocol: "none", password: "none", cipher: "none")
            return OpenedChip(access: access, lds2: lds2, files: files,
                              warnings: warnings + ["the chip has no access control: read in plain"],
                              chipAuthentication: nil, established: .plain)
        } catch let error as ProtocolError {
            // After a PACE failure, a chip without BAC leaves the PACE error as the one to report.
            if let fallback, case .bacNotSupported = error { throw fallback }
            throw error
        }
        var warnings = warnings
        var access = ReadResult.AccessInfo(protocol: "BAC", password: "MRZ", cipher: SMCipher.tripleDES.rawValue)
        if let fallback {
            let reason = "\(fallback.code): \(fallback.description)"
            access.fallback = .init(from: "PACE", to: "BAC", reason: reason)
            // Doc 9303-11 §4.2 allows the fallback; it is a downgrade a caller must see at the top of
            // the result (docs/pace.md): the warning's first word is stable.
            warnings.append("\(ReadResult.paceFallback): PACE failed (\(reason)); the chip was read with BAC, the weaker protocol")
        }
        return OpenedChip(access: access, lds2: lds2, files: files, warnings: warnings, chipAuthentication: nil,
                          established: .bac)
    }

    /// Reads EF.ATR/INFO (master file, SFI 01; Doc 9303-10 §3.11) with one READ BINARY and sizes the
    /// following APDUs by its extended length information. Absent (6A82), refused or malformed, it
    /// is reported (``ReadResult/atrInfo``) and the read goes on; only a lost link ends it (and is
    /// recovered as any other).
    func readATRInfo() async throws -> [UInt8]? {
        atrInfoWarnings = []
        // In plain (a BAC chip's master file, before BAC) a reader of its own, as for EF.CardAccess.
        let reader = channel.secureMessaging == nil ? FileReader(channel: channel, configuration: options.reader) : self.reader
        let bytes: [UInt8]
        do {
            if options.reader.useShortFileIdentifiers {
                bytes = try await reader.readFile(.atrInfo, shortFileID: LDSFile.atrInfo.shortFileID)
            } else {
                bytes = try await reader.read(.atrInfo)
            }
        } catch ProtocolError.fileNotFound {
            atrInfo = .init(status: "absent", statusWord: StatusWord.fileNotFound.hex)
            return nil
        } catch ProtocolError.fileAccessDenied(_, let sw) {
            atrInfo = .init(status: "refused", statusWord: sw.hex)
            return nil
        } catch ProtocolError.commandFailed(_, let sw) {
            atrInfo = .init(status: "refused", statusWord: sw.hex)
            return nil
        } catch let error as ProtocolError {
            if case .transport = error { throw error }
            if case .cancelled = error { throw error }
            if channel.secureMessaging == nil, case .pace = established { throw error }
            atrInfo = .init(status: "unreadable")
            atrInfoWarnings.append("EF.ATR/INFO could not be read (\(error.code)); APDUs sized by the reader alone")
            return nil
        }
        var report = ReadResult.ATRInfoReport(status: "read")
        do {
            let info = try ATRInfo(rawBytes: bytes)
            report.objects = info.tags.map { String($0, radix: 16, uppercase: true) }
            report.maxCommandLength = info.maxCommandLength
            report.maxResponseLength = info.maxResponseLength
            report.cardCapabilities = info.cardCapabilities?.hex
            if let sizes = info.extendedLengthInfo {
                channel.applyChipLimits(maxCommandLength: sizes.maxCommandLength, maxResponseLength: sizes.maxResponseLength)
                report.applied = true
                channel.noteAdjustment("EF.ATR/INFO: APDUs sized by the chip's extended length information (command ≤ \(sizes.maxCommandLength), response ≤ \(sizes.maxResponseLength) bytes)")
            }
        } catch {
            // Reported by the atrInfo check; the sizes of a malformed file are not used.
            atrInfoWarnings.append("EF.ATR/INFO: \(error); APDUs sized by the reader alone")
        }
        atrInfo = report
        return bytes
    }

    /// Probes LDS2 (optional) and selects the LDS1 eMRTD application.
    private func selectApplications() async throws -> Bool {
        var lds2 = false
        if options.probeLDS2 {
            lds2 = try await channel.selectApplication(ApplicationID.lds2) == .success
        }
        let selected = try await channel.selectApplication(ApplicationID.lds1)
        guard selected == .success else { throw ProtocolError.notAnEMRTD(selected) }
        applicationSelected = true
        return lds2
    }
}

extension ChipSession {
    /// A failure to read one file that leaves the session as it was: not a lost link or secure
    /// messaging (recovery's faults, which end the read when recovery cannot overcome them), nor a
    /// cancellation.
    static func isFileProblem(_ error: ProtocolError) -> Bool {
        if case .cancelled = error { return false }
        return RecoveryPolicy.fault(of: error) == nil
    }
}

extension ProtocolError {
    /// A PACE failure that is the protocol's, not the password's or the link's: `auto` retries it
    /// with BAC.
    public var isPACEProtocolFailure: Bool {
        switch self {
        case .transport, .cancelled, .wrongPassword, .accessDenied: return false
        default: return true
        }
    }
}
