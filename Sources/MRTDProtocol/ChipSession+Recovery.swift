import MRTDCore
import MRTDCrypto

/// Recovery inside a chip session (``RecoveryPolicy``; docs/reliability.md).
///
/// Bytes are only ever kept after secure messaging verified them (the MAC is checked before a
/// response is used); a resumed file continues at the first byte not yet verified. Passive
/// authentication checks the final files afterwards, so bytes torn across two sessions or two chips
/// end as `invalid`, never `valid`.
extension ChipSession {
    /// Reads `file`, resuming after a recovered fault at the last verified offset. A plain 6982
    /// inside secure messaging on an optional group (EAC-protected DG3/DG4 on many chips) kills the
    /// session: the session is re-established and the group reported as not accessible.
    func readRecovering(_ file: LDSFile, with reader: FileReader) async throws -> [UInt8] {
        var partial: [UInt8] = []
        return try await recovering(file: file, offset: { partial.count }) {
            do {
                return try await reader.read(file, resumingFrom: partial)
            } catch ProtocolError.unprotectedResponse(.securityStatusNotSatisfied)
                where (file.dataGroupNumber ?? 0) > 2 && established != nil {
                // Optional groups only: EF.COM, EF.SOD, DG1 and DG2 are never access-protected, so a
                // plain 6982 there is a lost session like any other (recovered below).
                channel.noteRecovery("securityStatusNotSatisfied", file: file, offset: partial.count,
                                     detail: "6982 without secure messaging: re-authenticating, \(file.name) skipped")
                try await recovering(file: nil, offset: { nil }) { try await reauthenticate(afterReconnect: false) }
                throw ProtocolError.fileAccessDenied(file, .securityStatusNotSatisfied)
            } catch {
                if let interrupted = reader.interrupted, interrupted.file == file { partial = interrupted.bytes }
                throw error
            }
        }
    }

    /// Runs `body`, recovering from link and secure-messaging faults as the policy allows, and
    /// running it again (a file read resumes where it stopped).
    ///
    /// With `opening`, `body` opens the chip from the start: only link faults are handled there (by
    /// reconnecting, without re-authenticating); faults after the access protocol are recovered inside.
    func recovering<T>(file: LDSFile?, offset: () -> Int?, opening: Bool = false, _ body: () async throws -> T) async throws -> T {
        let policy = options.recovery
        var retriedSecureMessaging = false
        while true {
            do {
                return try await body()
            } catch let error as ProtocolError {
                guard let fault = RecoveryPolicy.fault(of: error) else { throw error }
                guard clock.now - started < policy.deadline else { throw error }
                let at = offset()
                let place = file.map { " \($0.name) at offset \(at ?? 0)" } ?? ""
                switch fault {
                case .secureMessaging:
                    // Before the chip is open there is no session to re-establish safely.
                    guard !opening, established != nil, !retriedSecureMessaging,
                          secureMessagingRecoveries < policy.maxSecureMessagingRecoveries else { throw error }
                    retriedSecureMessaging = true
                    secureMessagingRecoveries += 1
                    channel.noteRecovery(error.code, file: file, offset: at,
                                         detail: "\(error.description): session keys dropped, re-authenticating, retrying\(place) once")
                    try await reestablish(after: error, fault: .secureMessaging)
                case .link:
                    guard connect != nil, reconnects < policy.maxReconnects else { throw error }
                    channel.noteRecovery(error.code, file: file, offset: at,
                                         detail: "\(error.description): reconnecting, re-authenticating, resuming\(place)")
                    if opening { established = nil }
                    try await reestablish(after: error, fault: .link)
                }
            }
        }
    }

    /// Re-establishes a session: a reconnection for a link fault (repeated while attempts and time
    /// remain), a re-authentication for a secure-messaging fault.
    private func reestablish(after error: ProtocolError, fault: RecoveryPolicy.Fault) async throws {
        let policy = options.recovery
        var fault = fault
        var lastError = error
        while true {
            // A cancelled read (job cancelled, timed out, daemon stopping) starts no new attempt.
            if Task.isCancelled { throw ProtocolError.cancelled }
            if fault == .secureMessaging {
                do {
                    try await reauthenticate(afterReconnect: false)
                    return
                } catch let failure as ProtocolError where RecoveryPolicy.fault(of: failure) == .link && connect != nil {
                    // The card went away during the re-authentication: reconnect instead.
                    fault = .link
                    lastError = failure
                } catch {
                    // The fault that started it explains the failure best; what the attempt met is listed.
                    let failure = (error as? ProtocolError) ?? .transport(.serviceFailure("\(error)"))
                    channel.noteRecovery("reauthenticationFailed", detail: "re-authentication failed (\(failure.code)); giving up")
                    // A lost link or a cancellation says more than the fault that started it.
                    switch failure {
                    case .cancelled, .transport(.cardRemoved), .transport(.timeout), .transport(.readerUnavailable): throw failure
                    default: throw lastError
                    }
                }
            }
            guard reconnects < policy.maxReconnects, clock.now - started < policy.deadline else { throw lastError }
            reconnects += 1
            do {
                channel.replaceTransport(try await connectWithinDeadline())
                // Before the chip was first opened, the caller opens it again from the start.
                if established != nil { try await reauthenticate(afterReconnect: true) }
                return
            } catch let failure as ProtocolError where RecoveryPolicy.fault(of: failure) == .link {
                channel.noteRecovery("reconnectFailed", detail: "attempt \(reconnects) of \(policy.maxReconnects): \(failure.description)")
                lastError = failure
                if policy.reconnectDelay > .zero { try? await Task.sleep(for: policy.reconnectDelay) }
            }
        }
    }

    /// A fresh link from `connect`, waiting no longer than the deadline allows.
    private func connectWithinDeadline() async throws -> any APDUTransport {
        guard let connect else { throw ProtocolError.transport(.cardRemoved) }
        let remaining = options.recovery.deadline - (clock.now - started)
        guard remaining > .zero else { throw ProtocolError.transport(.timeout) }
        // `connect` is cancelled when the deadline passes, and when the read itself is cancelled
        // (it must honour cancellation): the attempt is an unstructured task, which does not
        // inherit the read's cancellation by itself.
        let attempt = Task { try await connect() }
        let timer = Task {
            try? await Task.sleep(for: remaining)
            attempt.cancel()
        }
        defer { timer.cancel() }
        do {
            return try await withTaskCancellationHandler {
                try await attempt.value
            } onCancel: {
                attempt.cancel()
            }
        } catch let error as ProtocolError {
            throw error
        } catch let error as TransportError {
            throw ProtocolError.transport(error)
        } catch is CancellationError {
            throw Task.isCancelled ? ProtocolError.cancelled : ProtocolError.transport(.timeout)
        } catch {
            // A reader backend's own error (no card yet, reader gone): worth another attempt.
            throw ProtocolError.transport(.readerUnavailable("reconnecting: \(error)"))
        }
    }

    /// Opens the chip again the way it was opened: new keys, new send sequence counter
    /// (Doc 9303-11 §9.8: an SM session is never resumed), then Chip Authentication again if it ran.
    ///
    /// Without a reconnection the chip may still hold the old session: its answer to the first plain
    /// command is then 6987/6988 (it drops the session), and that command is sent once more.
    func reauthenticate(afterReconnect: Bool) async throws {
        channel.endSecureMessaging()
        guard let established else { return }
        switch established {
        case .plain:
            let sw = try await channel.selectApplication(ApplicationID.lds1)
            guard sw == .success else { throw ProtocolError.notAnEMRTD(sw) }
        case .bac:
            guard case .mrz(let mrz) = options.accessKey else {
                throw ProtocolError.paceNotSupported("a CAN opens a document with PACE only")
            }
            var sw = try await channel.selectApplication(ApplicationID.lds1)
            if sw.isSecureMessagingError { sw = try await channel.selectApplication(ApplicationID.lds1) }
            guard sw == .success else { throw ProtocolError.notAnEMRTD(sw) }
            try await BAC.perform(channel: channel, key: mrz, random: random)
        case .pace(let parameters, let cardAccess, let cardSecurity, let camCheck):
            let outcome: PACE.Outcome
            do {
                outcome = try await PACE.perform(
                    channel: channel, parameters: parameters, password: options.accessKey.pacePassword, random: random)
            } catch ProtocolError.paceSetupRefused(let sw) where sw.isSecureMessagingError {
                outcome = try await PACE.perform(
                    channel: channel, parameters: parameters, password: options.accessKey.pacePassword, random: random)
            }
            // TR-03110-1 §4.4: after PACE, ID_PICC is Comp() of this session's ephemeral chip key.
            chipIdentifier = TerminalAuthentication.compressed(
                outcome.chipEphemeralPublicKey, keyAgreement: parameters.paceProtocol.keyAgreement)
            if parameters.paceProtocol.mapping == .cam, let camCheck {
                // The chip must prove the same static key again: a different chip ends the read.
                let check = PACE.verifyChipAuthenticationMapping(outcome, cardSecurity: cardSecurity, cardAccess: cardAccess)
                guard check.result == camCheck.result else {
                    throw ProtocolError.authenticationFailed("PACE-CAM after re-authentication: \(check.reason ?? check.result.rawValue)")
                }
            }
            if applicationSelected {
                let sw = try await channel.selectApplication(ApplicationID.lds1)
                guard sw == .success else { throw ProtocolError.notAnEMRTD(sw) }
            }
        }
        try await authentication?.repeatChipAuthentication()
        // The new session knows nothing of the TA that released DG3/DG4 in the old one (TR-03110-1
        // §4.4: access rights hold for one session): run it again with the chain that passed.
        try await repeatTerminalAuthentication()
    }
}
