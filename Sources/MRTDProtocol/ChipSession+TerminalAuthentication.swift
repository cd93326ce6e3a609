import FoundationEssentials
import MRTDCore
import MRTDCrypto
import MRTDVerification

extension ChipSession {
    /// EAC Terminal Authentication right after Chip Authentication (BSI TR-03110-1 §4.4; Doc 9303-11
    /// §7.2: CA, then TA, then the EAC-protected groups): EF.CVCA names the chip's trust points, the
    /// terminal directory gives a chain to one of them, the chip checks the chain and the signature.
    ///
    /// A failure is the check's verdict and the read goes on (DG3/DG4 then end in `dataGroupsSkipped`);
    /// only transport and secure-messaging errors end the read.
    func runTerminalAuthentication(
        wanted: [LDSFile], authentication: SessionAuthentication, with reader: FileReader
    ) async throws -> TerminalAuthenticationCheck {
        guard let credentials = options.terminal else { return .notPerformed("noTerminalCredentials") }
        let eac = wanted.compactMap(\.dataGroupNumber).filter { $0 == 3 || $0 == 4 }
        guard !eac.isEmpty else {
            return .notPerformed(TerminalAuthenticationCheck.noEACDataGroupListed, detail: "EF.COM lists neither DG3 nor DG4")
        }
        guard authentication.chipAuthenticationOutcome != nil else {
            // TA version 1 signs the CA ephemeral key; without CA (failed, or PACE-CAM) there is none.
            return .notPerformed("chipAuthenticationNotPerformed")
        }
        guard chipIdentifier != nil else { return .notPerformed("chipIdentifierUnknown") }
        if let mismatch = TerminalAuthentication.efCVCALocationMismatch(in: authentication.securityInfos) {
            return .init(result: CheckResult.failed, reason: TerminalAuthenticationFailure.efCVCAInvalid.code, detail: mismatch)
        }
        let efCVCA: [UInt8]
        do {
            efCVCA = try await authentication.confirming { try await readRecovering(.cvca, with: reader) }
        } catch ProtocolError.fileNotFound, ProtocolError.fileAccessDenied {
            return .init(result: CheckResult.failed, reason: TerminalAuthenticationFailure.efCVCAInvalid.code,
                         detail: "EF.CVCA cannot be read")
        }
        let date = options.terminalDate ?? CVDate(Date())
        do {
            let trustPoints = try TerminalAuthentication.trustPoints(efCVCA: efCVCA)
            let chain = try credentials.chain(trustPoints: trustPoints, dataGroups: eac, date: date).get()
            // A fault during TA is recovered like one during a read: a new session (access, CA) and
            // TA from the start, signing that session's ID_PICC and CA key.
            let outcome = try await recovering(file: nil, offset: { nil }) {
                try await authentication.confirming { try await performTerminalAuthentication(chain) }
            }
            terminalChain = chain
            return .init(result: CheckResult.passed, chain: outcome.chain, algorithm: outcome.algorithm,
                         keySource: chain.key.source, grantedDataGroups: chain.grantedDataGroups)
        } catch ProtocolError.terminalAuthentication(let failure, let detail) {
            return .init(result: CheckResult.failed, reason: failure.code, detail: detail)
        } catch let error as TLVError {
            return .init(result: CheckResult.failed, reason: TerminalAuthenticationFailure.efCVCAInvalid.code,
                         detail: "EF.CVCA: \(error)")
        }
    }

    /// TA with `chain` on the current session: `ID_PICC` of this session's access protocol (the
    /// document number after BAC, Comp(ephemeral PACE key of the chip) after PACE) and the terminal's
    /// ephemeral key of this session's Chip Authentication (TR-03110-1 §4.4, TR-03110-3 §B.11).
    func performTerminalAuthentication(_ chain: TerminalChain) async throws -> TerminalAuthentication.Outcome {
        guard let ca = authentication?.chipAuthenticationOutcome, let chipIdentifier else {
            throw ProtocolError.terminalAuthentication(.signatureRejected, detail: "no Chip Authentication in this session")
        }
        return try await TerminalAuthentication.perform(
            channel: channel, chain: chain, chipIdentifier: chipIdentifier,
            terminalEphemeralKey: ca.terminalPublicKey, keyAgreement: ca.keyAgreement)
    }

    /// After a re-authentication (a recovered fault): TA again with the chain that passed, so DG3 and
    /// DG4 stay readable in the new session. A chip that refuses it now ends the recovery.
    func repeatTerminalAuthentication() async throws {
        guard let chain = terminalChain, let authentication else { return }
        _ = try await authentication.confirming { try await performTerminalAuthentication(chain) }
    }
}
