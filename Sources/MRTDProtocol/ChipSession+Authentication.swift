public import MRTDCore
import MRTDCrypto

extension ChipAuthenticationParameters {
    /// Chooses what to run from DG14 (Doc 9303-11 §9.2.5, §9.2.6): the strongest supported
    /// ChipAuthenticationInfo whose key ID (if any) names a ChipAuthenticationPublicKeyInfo of the
    /// same algorithm; without ChipAuthenticationInfo the 3DES variant of the key's algorithm. The key
    /// ID goes into MSE whenever DG14 gives one (mandatory with several keys; with one key it is what
    /// real German passports get from other readers, see RealPassportChipAuthenticationTests).
    ///
    /// - Returns: `nil` when DG14 offers no Chip Authentication at all.
    /// - Throws: `ProtocolError.chipAuthentication` (`.securityInfosMalformed`, also for a
    ///   ChipAuthenticationInfo that does not parse; `.keyIDMismatch`).
    public static func select(from securityInfos: SecurityInfos) throws -> ChipAuthenticationParameters? {
        // A ChipAuthenticationInfo that does not parse (no version, a version other than 1 or 2:
        // TR-03105-5.1 LDS_F_06 / LDS_F_07) leaves the protocol unknown: no default is guessed for it.
        if let bad = securityInfos.unknown.first(where: { $0.problem != nil && ChipAuthenticationProtocol(oid: $0.protocolOID) != nil }) {
            throw ProtocolError.chipAuthentication(
                .securityInfosMalformed, detail: "ChipAuthenticationInfo \(bad.protocolOID) does not parse: \(bad.problem ?? "")")
        }
        let keys = securityInfos.chipAuthenticationPublicKeyInfos
        // TR-03110-3 §A.1.1.2 defines versions 1, 2 (and 3, CA version 3); a version beyond names no
        // protocol (TR-03105-5.1 LDS_F_06): such an info is ignored, and if it was the only one, no
        // default is guessed for it either.
        let defined = securityInfos.chipAuthenticationInfos.filter { (1...3).contains($0.version) }
        if defined.isEmpty, let undefined = securityInfos.chipAuthenticationInfos.first {
            throw ProtocolError.chipAuthentication(
                .securityInfosMalformed, detail: "ChipAuthenticationInfo version \(undefined.version) is not defined")
        }
        let infos = defined.filter { $0.chipAuthenticationProtocol != nil }
        guard !keys.isEmpty else {
            if infos.isEmpty { return nil }
            throw ProtocolError.chipAuthentication(.securityInfosMalformed, detail: "ChipAuthenticationInfo without a usable public key")
        }
        let several = keys.count > 1
        if infos.isEmpty {
            let key = keys[0]
            return ChipAuthenticationParameters(
                caProtocol: .tripleDESDefault(for: key.keyAgreement), version: 1, keyID: key.keyID,
                sendKeyID: key.keyID != nil, publicKeyInfo: key.subjectPublicKeyInfo)
        }
        let ordered = infos.sorted { ($0.chipAuthenticationProtocol?.cipher ?? .tripleDES) > ($1.chipAuthenticationProtocol?.cipher ?? .tripleDES) }
        for info in ordered {
            guard let caProtocol = info.chipAuthenticationProtocol else { continue }
            let key: ChipAuthenticationPublicKeyInfo?
            if let id = info.keyID {
                key = keys.first { $0.keyID == id }
            } else {
                key = several ? nil : keys.first
            }
            guard let key, key.keyAgreement == caProtocol.keyAgreement else { continue }
            return ChipAuthenticationParameters(
                caProtocol: caProtocol, version: info.version, keyID: key.keyID ?? info.keyID,
                sendKeyID: (key.keyID ?? info.keyID) != nil, publicKeyInfo: key.subjectPublicKeyInfo)
        }
        throw ProtocolError.chipAuthentication(
            .keyIDMismatch, detail: "no ChipAuthenticationInfo key ID matches a ChipAuthenticationPublicKeyInfo of its algorithm")
    }
}

/// Chip and Active Authentication inside a chip session: DG14 is read first, CA runs right after it
/// and every later command uses the CA keys; AA runs once all files are read (Doc 9303-11 §6, §7.2).
final class SessionAuthentication {
    private let channel: ChipChannel
    private let random: any RandomSource
    private(set) var checks = ReadResult.Checks(
        chipAuthentication: .notPerformed("noDG14"), activeAuthentication: .notPerformed("noDG15"))
    private(set) var warnings: [String] = []
    private(set) var securityInfos: SecurityInfos?
    /// CA switched keys and no protected exchange has confirmed them yet.
    private var awaitingConfirmation = false
    /// The Chip Authentication that switched the keys, repeated after a re-authentication.
    private var performedParameters: ChipAuthenticationParameters?
    /// The DG14 Chip Authentication that ran (Terminal Authentication signs its ephemeral key).
    private(set) var chipAuthenticationOutcome: ChipAuthenticationOutcome?

    /// The caller's Active Authentication challenge; nil: drawn from `random`.
    private let activeAuthenticationChallenge: [UInt8]?

    init(channel: ChipChannel, random: any RandomSource, activeAuthenticationChallenge: [UInt8]? = nil) {
        self.channel = channel
        self.random = random
        self.activeAuthenticationChallenge = activeAuthenticationChallenge
    }

    /// The files in reading order: DG14 first (Doc 9303-11 §7.2: CA before reading further groups).
    static func readingOrder(_ files: [LDSFile]) -> [LDSFile] {
        files.filter { $0 == .dg(14) } + files.filter { $0 != .dg(14) }
    }

    /// Runs `body` (one file read); while the CA keys await confirmation, a secure-messaging failure
    /// means the chip did not answer under them (RELIABILITY CA-02): it ends the session.
    func confirming<T>(_ body: () async throws -> T) async throws -> T {
        guard awaitingConfirmation else { return try await body() }
        do {
            let value = try await body()
            awaitingConfirmation = false
            return value
        } catch let error as ProtocolError where Self.isSecureMessagingFailure(error) {
            throw ProtocolError.chipAuthentication(
                .keyConfirmationFailed, detail: "the chip did not answer under the new session keys (\(error.code))")
        } catch {
            awaitingConfirmation = false
            throw error
        }
    }

    /// Chip Authentication with the key of `dg14` (unless `alreadyAuthenticated`, e.g. by PACE-CAM).
    /// A failure before the keys switched is reported in the check and the read goes on under the
    /// old keys, with a warning; it is never reported as a pass.
    func chipAuthentication(dg14: [UInt8], alreadyAuthenticated: Bool = false) async throws {
        do {
            securityInfos = try SecurityInfos(dg14: dg14)
        } catch {
            checks.chipAuthentication = .init(result: CheckResult.failed,
                                              reason: ChipAuthenticationFailure.securityInfosMalformed.code, keyFile: "DG14")
            warnings.append("DG14: \(error)")
            return
        }
        guard !alreadyAuthenticated else { return }
        do {
            guard let securityInfos, let parameters = try ChipAuthenticationParameters.select(from: securityInfos) else {
                checks.chipAuthentication = .notPerformed("notSupported")
                return
            }
            let outcome = try await ChipAuthentication.perform(channel: channel, parameters: parameters, random: random)
            awaitingConfirmation = true
            performedParameters = parameters
            chipAuthenticationOutcome = outcome
            let domain = outcome.domainName ?? "\(outcome.fieldBits)-bit explicit"
            checks.chipAuthentication = .init(
                result: CheckResult.passedUnverifiedKey, reason: "keyFileUnverified: DG14",
                protocol: outcome.caProtocol.name + (outcome.version == 2 ? " v2" : ""),
                keyAgreement: "\(outcome.keyAgreement.rawValue) \(domain)", keyFile: "DG14")
        } catch ProtocolError.chipAuthentication(let failure, let detail) {
            // Without secure messaging nothing more can be read: the failure is the read's result.
            guard channel.secureMessaging != nil else { throw ProtocolError.chipAuthentication(failure, detail: detail) }
            checks.chipAuthentication = .init(result: CheckResult.failed, reason: failure.code, keyFile: "DG14")
            warnings.append("Chip Authentication failed (\(failure.code)): \(detail); "
                + "the files after it were read under the previous session keys")
        }
    }

    /// Runs Chip Authentication again after a re-authentication (TR-03110 / RELIABILITY "Tag lost":
    /// the later files must be read under CA keys as before). A failure ends the read.
    func repeatChipAuthentication() async throws {
        guard let parameters = performedParameters else { return }
        // Terminal Authentication signs this session's ephemeral key, not the first one's.
        chipAuthenticationOutcome = try await ChipAuthentication.perform(channel: channel, parameters: parameters, random: random)
        awaitingConfirmation = true
    }

    /// Confirms pending CA keys with a harmless protected command when no file read did.
    func confirmChipAuthenticationKeys() async throws {
        guard awaitingConfirmation else { return }
        // Any protected answer confirms the keys; its status word does not matter here.
        _ = try await confirming { try await channel.selectFile(.com) }
    }

    /// Active Authentication with DG15's key; the ECDSA hash comes from DG14's ActiveAuthenticationInfo.
    func activeAuthentication(dg15: [UInt8]) async throws {
        try await confirmChipAuthenticationKeys()
        let key: ActiveAuthenticationPublicKey
        do {
            key = try ActiveAuthenticationPublicKey(dg15: dg15)
        } catch {
            checks.activeAuthentication = .init(result: CheckResult.failed, reason: "activeAuthenticationKeyInvalid", keyFile: "DG15")
            warnings.append("DG15: \(error)")
            return
        }
        let info = securityInfos?.activeAuthenticationInfos.first
        let digest = info.flatMap { DigestAlgorithm(ecdsaSignatureAlgorithmOID: $0.signatureAlgorithm) }
        if let info, key.keyType == .ec, digest == nil {
            // An ActiveAuthenticationInfo that names no ECDSA algorithm this reader knows: the chip's
            // signature cannot be checked as the chip says it is made, and guessing a hash would let an
            // identifier that names nothing pass (TR-03105-5.1 ISO7816_F_09).
            checks.activeAuthentication = .init(
                result: CheckResult.failed, reason: "activeAuthenticationAlgorithmUnknown: \(info.signatureAlgorithm)",
                protocol: "id-AA", keyFile: "DG15")
            return
        }
        do {
            let outcome = try await ActiveAuthentication.perform(
                channel: channel, publicKey: key, ecdsaDigest: digest, random: random, challenge: activeAuthenticationChallenge)
            let v = outcome.verification
            let algorithm = [v.algorithm, v.digest?.rawValue, v.signatureFormat].compactMap { $0 }.joined(separator: " ")
            var check: ReadResult.Check = v.isValid
                ? .init(result: CheckResult.passedUnverifiedKey, reason: "keyFileUnverified: DG15",
                        protocol: "id-AA", algorithm: algorithm, keyFile: "DG15")
                : .init(result: CheckResult.failed, reason: "activeAuthenticationSignatureInvalid: \(v.failure ?? "")",
                        protocol: "id-AA", algorithm: algorithm, keyFile: "DG15")
            // What was signed and the signature: evidence a third party can check (docs/evidence.md).
            check.challenge = outcome.challenge.hex
            check.challengeSource = activeAuthenticationChallenge == nil ? "reader" : "caller"
            check.signature = outcome.signature.hex
            checks.activeAuthentication = check
        } catch ProtocolError.commandFailed(_, let sw) {
            checks.activeAuthentication = .init(result: CheckResult.failed, reason: "activeAuthenticationRefused \(sw)",
                                                protocol: "id-AA", keyFile: "DG15")
        }
        // A secure-messaging fault is thrown: the session recovers it like any other (a new session,
        // AA again); one that recovery cannot overcome ends in ``activeAuthenticationLost(_:)``.
    }

    /// All files are read; a chip that breaks secure messaging during AA even after recovery fails
    /// AA (and so the inspection), not the read.
    func activeAuthenticationLost(_ error: ProtocolError) {
        checks.activeAuthentication = .init(result: CheckResult.failed, reason: "activeAuthenticationSessionLost: \(error.code)",
                                            protocol: "id-AA", keyFile: "DG15")
    }

    static func isSecureMessagingFailure(_ error: ProtocolError) -> Bool {
        switch error {
        case .secureMessagingMACInvalid, .secureMessagingObjectMissing, .secureMessagingMalformed, .unprotectedResponse: true
        default: false
        }
    }
}
