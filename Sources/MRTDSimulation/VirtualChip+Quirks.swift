public import MRTDCore
import MRTDProtocol

/// Behaviours of real chips found in public field reports (docs/field-quirks.md): each one a switch
/// of the virtual chip, of `mrtdctl read --simulate --sim-quirk NAME` and of `mrtdd --simulate
/// --sim-quirk NAME`, so that anyone can reproduce it.
public enum VirtualChipQuirk: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// T=0 style: every answer longer than ``VirtualChip/quirkPieceLength`` bytes (plain or protected)
    /// comes in pieces: the first piece and `61xx`, the rest fetched with GET RESPONSE (00 C0 00 00 Le).
    case respond61xx = "respond-61xx"
    /// Inside secure messaging, an extended-length command is verified (the chip's SSC advances) and
    /// answered with a bare, unprotected `6700`; the session goes on (gmrtd#457).
    case smBare6700Extended = "sm-bare-6700-extended"
    /// READ BINARY with Le = 00 (256) or 0000 (65536) is refused with `6B00`; an explicit Le works
    /// (NFCPassportReader#89), also on the plain read of EF.CardAccess.
    case le00Refused6B00 = "le00-6b00"
    /// A READ BINARY that reaches the end of the file answers `6282` with the last bytes
    /// (NFCPassportReader#91).
    case eof6282 = "eof-6282"
    /// EF.DIR and EF.ATR/INFO (master file) answer `6982` before access control and are readable
    /// after it (gmrtd#226); SELECT of the master file or of EF.DIR is refused with `6982` before
    /// access control (gmrtd#460, NZ). Also named `ef-dir-refused-6982`.
    case efDir6982BeforeAccess = "ef-dir-6982-before-access"
    /// SELECT of the master file or of EF.DIR refused with `6A81` (gmrtd#460, CN).
    case efDirRefused6A81 = "ef-dir-refused-6a81"
    /// SELECT of the master file or of EF.DIR refused with `6A86` (gmrtd#460, AU).
    case efDirRefused6A86 = "ef-dir-refused-6a86"
    /// SELECT of the master file or of EF.DIR refused with `6A87` (gmrtd#460, UA).
    case efDirRefused6A87 = "ef-dir-refused-6a87"
    /// INTERNAL AUTHENTICATE (Active Authentication) answered `6A88` (irmamobile#672: a UK passport
    /// without DG15).
    case aa6A88 = "aa-6a88"
    /// GET CHALLENGE works but BAC's EXTERNAL AUTHENTICATE answers `6A88`: the chip wants PACE
    /// (bettse/passy#3, NFCPassportReader#169).
    case bac6A88 = "bac-6a88"
    /// The chip announces extended length (ATR card capabilities) yet answers `6700` to every
    /// extended-length READ BINARY (gmrtd#410).
    case extendedAnnouncedRefused = "extended-announced-refused"
    /// Every READ BINARY takes 1.5 s to answer (NFCPassportReader#107, passport-reader#16).
    case slowRead1500ms = "slow-read-1500ms"
    /// PACE's mapping and key agreement (GENERAL AUTHENTICATE steps 2 and 3) take 4.5 s each, just
    /// inside the 5 s Doc 9303-10 B.11 allows an I-block (Kinegram eMRTD SDK 6a41463: a 2019 Italian
    /// ID takes over 1 s for them; AusweisApp 2.2.0: cards slow down after wrong CANs).
    case slowPACE4500ms = "slow-pace-4500ms"
    /// The first SELECT of the eMRTD application under secure messaging (after PACE) is answered with
    /// a plain `6999` (applet selection failed) and the session is gone; the next one, after a new
    /// PACE, works (selfxyz/self#785: a Swedish passport, `C=00A4040C07A0000002471001`, `SW = 0x6999:
    /// APPLET SELECT FAILED` from a protected SELECT).
    case selectAID6999 = "select-aid-6999"
    /// A wrong access key is refused with `6985` (conditions of use not satisfied) at BAC's
    /// EXTERNAL AUTHENTICATE and PACE's mutual authentication, not `6300` (selfxyz/self#770: a real
    /// passport given a mistyped document number, "BAC failed in MUTUAL AUTH (SW = 0x6985)").
    case wrongKey6985 = "wrong-key-6985"
    /// A wrong access key is refused with `6988` (SM data objects incorrect: the cryptogram's MAC),
    /// as the vsmartcard project's emulated ePassport does (`ePass.py`, `external_authenticate`).
    case wrongKey6988 = "wrong-key-6988"
    /// No short EF identifiers in the eMRTD application: a READ BINARY by SFI under secure
    /// messaging is answered with a plain `6A82` (the command verified, the SSC moved on, the
    /// session kept); SELECT then READ BINARY works.
    case sfiRefusedPlain6A82 = "sfi-refused-plain-6a82"
    /// A READ BINARY whose Le runs past the end of the file is refused with `6B00`, even at offset 0
    /// (ISO/IEC 7816-4 lets a chip refuse a range it cannot serve); an exact Le works.
    case readPastEnd6B00 = "read-past-end-6b00"
    /// MSE:Set AT without the parameter ID (DO'84') is refused with `6A87`, even with one PACEInfo
    /// (gmrtd/gmrtd#108: older Ukrainian passports; "PACE succeeds when MSE Set AT command is
    /// updated to include Tag x84 with the Parameter-Id").
    case paceParameterID6A87 = "pace-6a87-without-parameter-id"
    /// After ``VirtualChip/lockThreshold`` failed access attempts (BAC or PACE) the chip stops
    /// answering for good (passport-reader#10).
    case lockAfterFailedAccess = "lock-after-failed-access"

    public var description: String { rawValue }

    /// The quirk named `name` (case-insensitive), or nil.
    public init?(name: String) {
        let name = name.lowercased()
        self.init(rawValue: Self.aliases[name] ?? name)
    }

    /// Second names: `ef-dir-refused-6982` is the one quirk of the `ef-dir-refused-*` family that
    /// had a name before the family.
    public static let aliases = ["ef-dir-refused-6982": efDir6982BeforeAccess.rawValue]

    /// The status word SELECT of the master file or of EF.DIR is refused with (gmrtd#460), if any;
    /// `6982` only before access control.
    public var masterFileSelectRefusal: StatusWord? {
        switch self {
        case .efDir6982BeforeAccess: .securityStatusNotSatisfied
        case .efDirRefused6A81: .functionNotSupported
        case .efDirRefused6A86: .incorrectP1P2
        case .efDirRefused6A87: .lcInconsistentWithP1P2
        default: nil
        }
    }

    /// The status the chip refuses a wrong access key with, if this quirk changes it.
    public var wrongKeyRefusal: StatusWord? {
        switch self {
        case .wrongKey6985: .conditionsNotSatisfied
        case .wrongKey6988: .smDataObjectsIncorrect
        default: nil
        }
    }

    /// Every name, for help texts and error messages.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }
}

extension VirtualChipConfiguration {
    /// This configuration with `quirks` switched on.
    public func with(quirks: Set<VirtualChipQuirk>) -> VirtualChipConfiguration {
        var config = self
        config.quirks.formUnion(quirks)
        if quirks.contains(.eof6282) { config.endOfFileStatus = .endOfFileReached }
        if quirks.contains(.extendedAnnouncedRefused) || quirks.contains(.smBare6700Extended) {
            config.extendedLength = true
        }
        if quirks.contains(.paceParameterID6A87) { config.pace?.requireParameterID = true }
        if quirks.contains(.efDir6982BeforeAccess) {
            if config.files[.atrInfo] == nil { config.files[.atrInfo] = VirtualChip.specimenATRInfo }
        }
        return config
    }
}

/// What the quirks remember between commands.
struct VirtualQuirkState {
    /// The rest of a `61xx` answer (data and final status word) waiting for GET RESPONSE.
    var pendingResponse: [UInt8]?
    /// Failed BAC/PACE authentications seen so far (never reset: the chip's own counter).
    var failedAccessAttempts = 0
    /// GET RESPONSE commands answered.
    var getResponses = 0
    /// Master-file reads refused before access control (`ef-dir-6982-before-access`).
    var refusedBeforeAccess = 0
    /// SELECT commands of the master file or EF.DIR refused (`ef-dir-refused-*`).
    var masterFileSelectsRefused = 0
    /// INTERNAL AUTHENTICATE commands refused (`aa-6a88`).
    var internalAuthenticatesRefused = 0
    /// PACE steps answered slowly (`slow-pace-4500ms`).
    var slowPACESteps = 0
    /// Protected SELECTs of the eMRTD application refused with `6999` (`select-aid-6999`).
    var applicationSelectsRefused = 0
    /// READ BINARY commands by short EF identifier refused in plain (`sfi-refused-plain-6a82`).
    var shortFileIdentifierReadsRefused = 0
    /// READ BINARY commands refused for a Le past the end of the file (`read-past-end-6b00`).
    var readsPastEndRefused = 0
}

extension VirtualChip {
    /// With `respond-61xx`, the largest piece the chip returns in its first answer.
    public static let quirkPieceLength = 128
    /// With `lock-after-failed-access`, failed access attempts before the chip goes mute.
    public static let lockThreshold = 3
    /// With `slow-read-1500ms`, the time each READ BINARY takes.
    public static let slowReadDelay = Duration.milliseconds(1500)
    /// With `slow-pace-4500ms`, the time PACE's mapping and key agreement steps each take.
    public static let slowPACEDelay = Duration.milliseconds(4500)
    /// A small EF.ATR/INFO (Doc 9303-10 §3.11.3): extended length info, max 0x0800 bytes each way.
    static let specimenATRInfo: [UInt8] = [0x7F, 0x66, 0x08, 0x02, 0x02, 0x08, 0x00, 0x02, 0x02, 0x08, 0x00]

    /// Whether the chip has stopped answering (`lock-after-failed-access`).
    public var isLocked: Bool {
        configuration.quirks.contains(.lockAfterFailedAccess) && quirkState.failedAccessAttempts >= Self.lockThreshold
    }

    /// Failed access attempts counted so far.
    public var failedAccessAttempts: Int { quirkState.failedAccessAttempts }

    /// Master-file reads refused with 6982 before access control (`ef-dir-6982-before-access`).
    public var refusedBeforeAccess: Int { quirkState.refusedBeforeAccess }

    /// SELECT commands of the master file or EF.DIR refused so far (`ef-dir-refused-*`).
    public var masterFileSelectsRefused: Int { quirkState.masterFileSelectsRefused }

    /// INTERNAL AUTHENTICATE commands refused so far (`aa-6a88`).
    public var internalAuthenticatesRefused: Int { quirkState.internalAuthenticatesRefused }

    /// Protected SELECTs of the eMRTD application refused with `6999` so far (`select-aid-6999`).
    public var applicationSelectsRefused: Int { quirkState.applicationSelectsRefused }

    /// READ BINARY commands by short EF identifier refused in plain so far (`sfi-refused-plain-6a82`).
    public var shortFileIdentifierReadsRefused: Int { quirkState.shortFileIdentifierReadsRefused }

    /// READ BINARY commands refused for a Le past the end of the file so far (`read-past-end-6b00`).
    public var readsPastEndRefused: Int { quirkState.readsPastEndRefused }

    /// PACE steps answered slowly so far (`slow-pace-4500ms`).
    public var slowPACESteps: Int { quirkState.slowPACESteps }

    /// GET RESPONSE commands answered so far (`respond-61xx`).
    public var getResponsesAnswered: Int { quirkState.getResponses }

    /// The answer to `bytes` as the chip gives it on the air: nil when the chip does not answer
    /// at all (locked), after the delay of a slow chip.
    public func respond(to bytes: [UInt8], injecting fault: VirtualChipFault? = nil) async -> [UInt8]? {
        if isLocked { return nil }
        if configuration.quirks.contains(.slowRead1500ms), bytes.count >= 4, bytes[1] == 0xB0 || bytes[1] == 0xB1 {
            try? await Task.sleep(for: Self.slowReadDelay)
        }
        // GENERAL AUTHENTICATE with a mapping (81) or ephemeral key (83) object: steps 2 and 3.
        if configuration.quirks.contains(.slowPACE4500ms), bytes.count >= 8, bytes[1] == 0x86, bytes[0] & 0x0C == 0,
           let data = try? CommandAPDU(bytes: bytes).data, data.count > 2, data[0] == 0x7C,
           let inner = try? TLV.parse(data, expecting: 0x7C).children().first, inner.tag == 0x81 || inner.tag == 0x83 {
            quirkState.slowPACESteps += 1
            try? await Task.sleep(for: Self.slowPACEDelay)
        }
        return process(bytes, injecting: fault)
    }

    /// The refusal a quirk gives `command` instead of the chip's answer, or nil: SELECT of the master
    /// file (P1 00 with `3F00` or no data) or of EF.DIR (`2F00`) with `ef-dir-refused-*`, INTERNAL
    /// AUTHENTICATE with `aa-6a88`.
    func quirkRefusal(_ command: CommandAPDU) -> ResponseAPDU? {
        if command.ins == 0x88, configuration.quirks.contains(.aa6A88) {
            quirkState.internalAuthenticatesRefused += 1
            return ResponseAPDU(statusWord: .referencedDataNotFound)
        }
        let masterFile = command.p1 == 0x00 && (command.data.isEmpty || command.data == [0x3F, 0x00])
        let efDir = (command.p1 == 0x00 || command.p1 == 0x02) && command.data == [0x2F, 0x00]
        guard command.ins == 0xA4, masterFile || efDir else { return nil }
        let refusal = configuration.quirks.lazy.compactMap { quirk -> StatusWord? in
            if quirk == .efDir6982BeforeAccess && self.secureMessaging != nil { return nil }
            return quirk.masterFileSelectRefusal
        }.first
        guard let refusal else { return nil }
        quirkState.masterFileSelectsRefused += 1
        return ResponseAPDU(statusWord: refusal)
    }

    /// How this chip refuses a wrong BAC cryptogram or PACE token: `6300`, or the quirk's status.
    var wrongKeyRefusal: StatusWord {
        configuration.quirks.lazy.compactMap(\.wrongKeyRefusal).first ?? .authenticationFailed
    }

    /// The plain refusal a quirk gives a command received under secure messaging that keeps the
    /// session, or nil: a READ BINARY by short EF identifier in the eMRTD application with
    /// `sfi-refused-plain-6a82`.
    func quirkPlainRefusalKeepingSession(_ command: CommandAPDU) -> ResponseAPDU? {
        guard configuration.quirks.contains(.sfiRefusedPlain6A82), command.ins == 0xB0, command.p1 & 0x80 != 0,
              application == .lds1 else { return nil }
        quirkState.shortFileIdentifierReadsRefused += 1
        return ResponseAPDU(statusWord: .fileNotFound)
    }

    /// With `read-past-end-6b00`, whether a READ BINARY of `length` bytes at `offset` of a file of
    /// `size` bytes is refused.
    func quirkRefusesReadPastEnd(offset: Int, length: Int, size: Int) -> Bool {
        guard configuration.quirks.contains(.readPastEnd6B00), offset + length > size else { return false }
        quirkState.readsPastEndRefused += 1
        return true
    }

    /// The plain refusal a quirk gives a command received under secure messaging, which ends the
    /// session, or nil: the first SELECT of the eMRTD application with `select-aid-6999`.
    func quirkRefusalUnderSecureMessaging(_ command: CommandAPDU) -> ResponseAPDU? {
        guard configuration.quirks.contains(.selectAID6999), command.ins == 0xA4, command.p1 == 0x04,
              command.data == ApplicationID.lds1, quirkState.applicationSelectsRefused == 0 else { return nil }
        quirkState.applicationSelectsRefused += 1
        return ResponseAPDU(statusWord: StatusWord(rawValue: 0x6999))
    }

    /// GET RESPONSE (ISO/IEC 7816-4 §11.6.1) for a pending `61xx` answer; nil when `bytes` is not one.
    func quirkGetResponse(_ bytes: [UInt8]) -> [UInt8]? {
        guard configuration.quirks.contains(.respond61xx) || !configuration.extendedLength, bytes.count == 5,
              bytes[0] & 0xF0 == 0, bytes[1] == 0xC0, bytes[2] == 0, bytes[3] == 0 else { return nil }
        guard let pending = quirkState.pendingResponse else {
            return ResponseAPDU(statusWord: .conditionsNotSatisfied).bytes
        }
        quirkState.getResponses += 1
        let le = bytes[4] == 0 ? 256 : Int(bytes[4])
        let body = pending.dropLast(2)
        let piece = Array(body.prefix(le))
        let rest = Array(body.dropFirst(le))
        if rest.isEmpty {
            quirkState.pendingResponse = nil
            return piece + pending.suffix(2)
        }
        quirkState.pendingResponse = rest + pending.suffix(2)
        return piece + [0x61, UInt8(min(rest.count, 256) & 0xFF)]
    }

    /// The answer as a T=0 chip gives it (`respond-61xx`): long answers in pieces.
    func quirkPieces(_ answer: [UInt8]) -> [UInt8] {
        quirkState.pendingResponse = nil
        guard configuration.quirks.contains(.respond61xx), answer.count - 2 > Self.quirkPieceLength else { return answer }
        let body = answer.dropLast(2)
        let rest = Array(body.dropFirst(Self.quirkPieceLength))
        quirkState.pendingResponse = rest + answer.suffix(2)
        return Array(body.prefix(Self.quirkPieceLength)) + [0x61, UInt8(min(rest.count, 256) & 0xFF)]
    }

    /// Counts a failed access attempt (a wrong BAC cryptogram or PACE token).
    func quirkNoteAccess(ins: UInt8, status: StatusWord) {
        guard ins == 0x82 || ins == 0x86 else { return }
        if status.sw1 == 0x63 || status == .securityStatusNotSatisfied || status == wrongKeyRefusal {
            quirkState.failedAccessAttempts += 1
        }
    }
}
