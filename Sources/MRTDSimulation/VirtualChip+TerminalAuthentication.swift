import MRTDChipCrypto
public import MRTDCore
import MRTDProtocol
public import MRTDVerification
import SwiftASN1

/// The chip side of EAC Terminal Authentication (BSI TR-03110-1 §4.4, TR-03110-3 §B.11): trust
/// points, a current date, and DG3 / DG4 released only after TA with a chain granting them.
public struct VirtualEAC: Sendable {
    /// The CVCA certificates the chip trusts (their CHRs go into EF.CVCA; their keys verify DVs).
    public var trustPoints: [CVCertificate]
    /// The chip's current date (TR-03110-1 §2.5): certificates expired at it are refused, and it
    /// moves forward with the effective date of accepted CVCA link and domestic DV certificates.
    public var currentDate: CVDate
    /// TEST ONLY (TR-03105-5.1 ISO7816_E_11): the `ID_PICC` the chip checks the TA signature against
    /// instead of the one its access control established (a chip holding another document number).
    public var chipIdentifierOverride: [UInt8]?
    /// TEST ONLY (ISO7816_E_12, E_13): how many bytes the TA GET CHALLENGE answers (8 as specified).
    public var challengeLength = 8
    /// Data groups besides DG3/DG4 that only a successful TA releases (ISO7816_E_26: DG11, DG12).
    public var protectedDataGroups: Set<Int> = []
    /// TEST ONLY: every PSO:Verify Certificate is refused with this status word (a chip that rejects
    /// the terminal's certificates; the emrtd-differential-harness case TC-TA-01: 6982).
    public var certificateRefusal: StatusWord?

    public init(trustPoints: [CVCertificate], currentDate: CVDate) {
        self.trustPoints = trustPoints
        self.currentDate = currentDate
    }

    /// EF.CVCA for these trust points.
    public var efCVCA: [UInt8] { TerminalAuthentication.efCVCA(trustPoints: trustPoints.map(\.holderReference)) }
}

/// The virtual chip's TA progress within one secure-messaging session.
struct VirtualEACState: Sendable {
    /// `ID_PICC` of the session (BAC: document number and check digit; PACE: Comp(PK_IC)).
    var chipIdentifier: [UInt8]?
    /// The terminal's ephemeral CA key and its algorithm (TA v1 binds to it).
    var caTerminalKey: [UInt8]?
    var caKeyAgreement: KeyAgreementAlgorithm = .ecdh
    /// The date as updated in this session.
    var currentDate: CVDate?
    /// Certificates accepted in this session, by CHR.
    var accepted: [String: CVCertificate] = [:]
    /// The key MSE:Set DST chose.
    var verifyingKey: String?
    /// The IS certificate MSE:Set AT chose, and its rights (AND over the chain).
    var terminal: CVCertificate?
    var rights: UInt8 = 0
    var challenge: [UInt8]?
    /// The data groups TA released.
    var granted: Set<Int> = []
    /// The trust points after CVCA link certificates updated them (nil: the configuration's). Kept
    /// across sessions: the update is permanent (TR-03110-1 §2.2.3 / TR-03110-3 §2.5).
    var updatedTrustPoints: [CVCertificate]?

    mutating func noteChipAuthentication(terminalKey: [UInt8], keyAgreement: KeyAgreementAlgorithm) {
        caTerminalKey = terminalKey
        caKeyAgreement = keyAgreement
    }

    mutating func reset() {
        let identifier = chipIdentifier, trustPoints = updatedTrustPoints
        self = VirtualEACState()
        chipIdentifier = identifier
        updatedTrustPoints = trustPoints
    }
}

extension VirtualChip {
    /// The data groups Terminal Authentication released (for tests).
    public var terminalAuthenticationGranted: Set<Int> { eacState.granted }

    /// The chip's trust points now: the configuration's, or as CVCA link certificates updated them.
    public var terminalTrustPoints: [CVCertificate] { eacState.updatedTrustPoints ?? configuration.eac?.trustPoints ?? [] }

    /// The contents of `file` as the chip holds it now: EF.CVCA follows the trust-point updates.
    func currentContents(_ file: LDSFile) -> [UInt8]? {
        if file == .cvca, let updated = eacState.updatedTrustPoints {
            return TerminalAuthentication.efCVCA(trustPoints: updated.map(\.holderReference))
        }
        return configuration.files[file]
    }

    /// 6982 for DG3 / DG4 until TA released them (TR-03110-1 §4.4: access rights from the chain).
    func terminalAuthenticationRefusal(_ file: LDSFile) -> StatusWord? {
        guard let eac = configuration.eac, let n = file.dataGroupNumber, n == 3 || n == 4 || eac.protectedDataGroups.contains(n)
        else { return nil }
        return eacState.granted.contains(n) ? nil : .securityStatusNotSatisfied
    }

    /// MSE:Set DST, PSO:Verify Certificate, MSE:Set AT (TA), GET CHALLENGE and EXTERNAL
    /// AUTHENTICATE after it; `nil` for other commands.
    func handleTerminalAuthentication(_ command: CommandAPDU) -> ResponseAPDU? {
        guard let eac = configuration.eac, secureMessaging != nil else { return nil }
        switch (command.ins, command.p1, command.p2) {
        case (0x22, 0x81, 0xB6): return setDST(command, eac)
        case (0x2A, 0x00, 0xBE): return verifyCertificate(command, eac)
        case (0x22, 0x81, 0xA4): return setAT(command)
        case (0x84, 0x00, 0x00) where eacState.terminal != nil: return challenge(command)
        case (0x82, 0x00, 0x00) where eacState.challenge != nil: return externalAuthenticate(command)
        default: return nil
        }
    }

    private func reference(_ command: CommandAPDU) -> String? {
        guard let tlv = try? TLV.parse(command.data, expecting: 0x83) else { return nil }
        return String(decoding: tlv.value, as: UTF8.self)
    }

    private func setDST(_ command: CommandAPDU, _ eac: VirtualEAC) -> ResponseAPDU {
        // TA runs after Chip Authentication (TR-03110-1 §4.4 for EAC1 eMRTDs).
        guard eacState.caTerminalKey != nil else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
        guard let name = reference(command) else { return ResponseAPDU(statusWord: .incorrectData) }
        guard terminalTrustPoints.contains(where: { $0.holderReference == name }) || eacState.accepted[name] != nil else {
            return ResponseAPDU(statusWord: .referencedDataNotFound)
        }
        eacState.verifyingKey = name
        return ResponseAPDU(statusWord: .success)
    }

    private func verifyCertificate(_ command: CommandAPDU, _ eac: VirtualEAC) -> ResponseAPDU {
        if let refusal = eac.certificateRefusal { return ResponseAPDU(statusWord: refusal) }
        guard let name = eacState.verifyingKey else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
        eacState.verifyingKey = nil
        guard let certificate = try? CVCertificate(rawBytes: TLV.encode(tag: 0x7F21, value: command.data)) else {
            return ResponseAPDU(statusWord: .incorrectData)
        }
        let trustPoint = terminalTrustPoints.first { $0.holderReference == name }
        guard let issuer = trustPoint ?? eacState.accepted[name], certificate.authorityReference == name else {
            return ResponseAPDU(statusWord: .authenticationFailed)
        }
        // The domain parameters come from the CVCA the chain started at.
        let domain = issuer.publicKey.hasDomainParameters ? issuer.publicKey
            : eacState.accepted.values.first { $0.publicKey.hasDomainParameters }?.publicKey
                ?? terminalTrustPoints.first { $0.publicKey.hasDomainParameters }?.publicKey
        guard Self.chipVerifies(signature: certificate.signature, over: certificate.body, key: issuer.publicKey, domain: domain) else {
            return ResponseAPDU(statusWord: .authenticationFailed)
        }
        // Role order: CVCA link → DV → IS, never back up (TR-03110-3 §C.4).
        let order: [CVCertificate.Role: Int] = [.cvca: 0, .dvDomestic: 1, .dvForeign: 1, .terminal: 2]
        guard order[certificate.role]! >= order[issuer.role]!, certificate.role != .cvca || issuer.role == .cvca,
              certificate.role == .cvca || order[certificate.role]! == order[issuer.role]! + 1
        else { return ResponseAPDU(statusWord: .authenticationFailed) }
        let date = eacState.currentDate ?? eac.currentDate
        guard certificate.expirationDate >= date else { return ResponseAPDU(statusWord: .authenticationFailed) }
        if certificate.role == .terminal {
            guard certificate.effectiveDate <= date else { return ResponseAPDU(statusWord: .authenticationFailed) }
        } else if certificate.role != .dvForeign, certificate.effectiveDate > date {
            eacState.currentDate = certificate.effectiveDate
        }
        let issuerRights = issuer.accessRights.last ?? 0
        let rights = (certificate.accessRights.last ?? 0) & 0x03 & (trustPoint != nil ? issuerRights : eacState.rights)
        eacState.rights = rights
        eacState.accepted[certificate.holderReference] = certificate
        if certificate.role == .cvca { updateTrustPoint(with: certificate) }
        return ResponseAPDU(statusWord: .success)
    }

    /// A CVCA link certificate verified with a trust point makes its key a trust point
    /// (TR-03110-3 §2.5, "trust point update"): the chip keeps two, the newest and the one before, and
    /// EF.CVCA names them (TR-03110-3 §A.6.2.1).
    private func updateTrustPoint(with link: CVCertificate) {
        var points = terminalTrustPoints.filter { $0.holderReference != link.holderReference }
        points.append(link)
        eacState.updatedTrustPoints = Array(points.suffix(2))
    }

    private func setAT(_ command: CommandAPDU) -> ResponseAPDU {
        guard let name = reference(command) else { return ResponseAPDU(statusWord: .incorrectData) }
        guard let certificate = eacState.accepted[name], certificate.role == .terminal,
              certificate.terminalTypeOID == CVCertificate.inspectionSystemOID
        else { return ResponseAPDU(statusWord: .referencedDataNotFound) }
        eacState.terminal = certificate
        return ResponseAPDU(statusWord: .success)
    }

    private func challenge(_ command: CommandAPDU) -> ResponseAPDU {
        let length = configuration.eac?.challengeLength ?? 8
        guard command.ne == 8, let r = try? configuration.drawRandom(length) else { return ResponseAPDU(statusWord: .wrongLength) }
        eacState.challenge = r
        return ResponseAPDU(data: r, statusWord: .success)
    }

    private func externalAuthenticate(_ command: CommandAPDU) -> ResponseAPDU {
        guard let challenge = eacState.challenge, let terminal = eacState.terminal,
              let chipIdentifier = configuration.eac?.chipIdentifierOverride ?? eacState.chipIdentifier, let caKey = eacState.caTerminalKey
        else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
        eacState.challenge = nil  // one attempt per challenge
        let domain = eacState.accepted.values.first { $0.publicKey.hasDomainParameters }?.publicKey
            ?? terminalTrustPoints.first { $0.publicKey.hasDomainParameters }?.publicKey
        guard let input = try? ChipTerminalAuthentication.signatureInput(
            chipIdentifier: chipIdentifier, challenge: challenge, terminalKey: caKey, ellipticCurve: eacState.caKeyAgreement == .ecdh),
              Self.chipVerifies(signature: command.data, over: input, key: terminal.publicKey, domain: domain)
        else { return ResponseAPDU(statusWord: .authenticationFailed) }
        eacState.granted = Set([3, 4].filter { n in eacState.rights & (n == 3 ? 0x01 : 0x02) != 0 })
            .union(configuration.eac?.protectedDataGroups ?? [])
        return ResponseAPDU(statusWord: .success)
    }
}

extension VirtualChip {
    /// The chip's own check (`MRTDChipCrypto`) of a TA signature with a CV certificate's key; EC keys
    /// of DV and IS certificates take the curve from `domain` (their CVCA's key).
    static func chipVerifies(signature: [UInt8], over message: [UInt8], key: CVPublicKey, domain: CVPublicKey?) -> Bool {
        let elements = key.elements
        let chipKey: ChipTerminalAuthentication.Key
        if let point = elements[0x86] {
            let source = key.hasDomainParameters ? key : domain
            guard let parameters = source?.elements, let p = parameters[0x81], let a = parameters[0x82], let b = parameters[0x83],
                  let g = parameters[0x84], let r = parameters[0x85]
            else { return false }
            chipKey = .ec(domain: .curve(p: p, a: a, b: b, generator: g, order: r, cofactor: parameters[0x87] ?? [1]), point: point)
        } else {
            guard let n = elements[0x81], let e = elements[0x82] else { return false }
            chipKey = .rsa(modulus: n, exponent: e)
        }
        return ChipTerminalAuthentication.verify(algorithmOID: key.algorithmOID.description, key: chipKey, message: message, signature: signature)
    }
}
