public import MRTDCore
public import MRTDCrypto
import MRTDChipCrypto
import MRTDProtocol
import FoundationEssentials

/// How a virtual chip behaves: its files, its access key and the quirks real chips show.
public struct VirtualChipConfiguration: Sendable {
    /// The LDS1 files, content exactly as stored (tag, length, value).
    public var files: [LDSFile: [UInt8]]
    /// The MRZ key BAC must be run with.
    public var accessKey: MRZKey
    /// Whether the chip (and the in-process reader) take extended-length APDUs. Without, an extended
    /// APDU gets a plain 6700.
    public var extendedLength: Bool
    /// The largest READ BINARY Ne the chip serves; larger requests get 6700.
    public var maxReadLength: Int
    /// Answer 6700 to READ BINARY with Le = 00 / 0000 ("everything"), as some chips do.
    public var rejectsMaximumLe: Bool
    /// The status word for a READ BINARY that reaches the end of the file before Ne bytes:
    /// 6282 (ISO/IEC 7816-4) or 9000 (what many chips send).
    public var endOfFileStatus: StatusWord
    /// Whether the LDS2 application `A0000002472001` answers SELECT.
    public var lds2: Bool
    /// Whether BAC is offered; a PACE-only chip answers GET CHALLENGE with this status instead.
    public var bacRefusal: StatusWord?
    /// Files whose SELECT answers this status word instead of 9000 (6982 for EAC-protected groups).
    public var selectStatus: [LDSFile: StatusWord]
    /// Whether READ BINARY by short EF identifier (P1 = 80 | SFI) works; without, it answers 6A86.
    public var shortFileIdentifiers: Bool
    /// Zero-based exchange indices whose protected response gets a corrupted MAC.
    public var corruptMACAtExchange: Set<Int>
    /// The chip's random source (RND.IC, K.IC, PACE nonces and keys).
    public var random: any RandomSource
    /// PACE on the chip (`VirtualChip+PACE.swift`); nil for a BAC-only chip.
    public var pace: VirtualPACE?
    /// Chip Authentication and Active Authentication keys and faults (`VirtualChip+Authentication`).
    public var authentication: VirtualChipAuthentication?
    /// Behaviours of real chips from field reports (`VirtualChip+Quirks.swift`, docs/field-quirks.md);
    /// set them with ``with(quirks:)``.
    public var quirks: Set<VirtualChipQuirk> = []
    /// EAC Terminal Authentication (`VirtualChip+TerminalAuthentication`): DG3/DG4 only after TA.
    public var eac: VirtualEAC? = nil
    /// No access control (TR-03105-5.1 CFG.DFLT.PLAIN): every LDS1 file is served in plain; set
    /// ``bacRefusal`` too for a chip that has no BAC at all.
    public var plainAccess = false
    /// A READ BINARY whose Le runs past the end of the file is answered `6Cxx`, xx the bytes left
    /// (ISO/IEC 7816-4 §5.6: wrong Le field), not carried out.
    public var wrongLengthAnswers6Cxx = false
    /// The SELECT of the eMRTD (LDS1) application is refused with this status word.
    public var applicationSelectStatus: StatusWord? = nil
    /// The answer to BAC's EXTERNAL AUTHENTICATE carries this defect (`VirtualChip+Faults.swift`).
    public var bacAnswerDefect: BACAnswerDefect? = nil
    /// Every protected READ BINARY answer carries this defect (`VirtualChip+Faults.swift`).
    public var secureMessagingDefect: SecureMessagingDefect? = nil
    /// APDU sizes the chip enforces, as its EF.ATR/INFO states them (`VirtualChip+APDULimits`).
    public var apduLimits: VirtualAPDULimits? = nil

    public init(
        files: [LDSFile: [UInt8]], accessKey: MRZKey, extendedLength: Bool = true,
        maxReadLength: Int? = nil, rejectsMaximumLe: Bool = false,
        endOfFileStatus: StatusWord = .endOfFileReached, lds2: Bool = false, bacRefusal: StatusWord? = nil,
        selectStatus: [LDSFile: StatusWord] = [:], shortFileIdentifiers: Bool = true,
        corruptMACAtExchange: Set<Int> = [],
        random: any RandomSource = SystemRandom(), pace: VirtualPACE? = nil
    ) {
        self.files = files
        self.accessKey = accessKey
        self.extendedLength = extendedLength
        self.maxReadLength = maxReadLength ?? (extendedLength ? 65_536 : 256)
        self.rejectsMaximumLe = rejectsMaximumLe
        self.endOfFileStatus = endOfFileStatus
        self.lds2 = lds2
        self.bacRefusal = bacRefusal
        self.selectStatus = selectStatus
        self.shortFileIdentifiers = shortFileIdentifiers
        self.corruptMACAtExchange = corruptMACAtExchange
        self.random = random
        self.pace = pace
    }
}

/// A chip in software: the eMRTD application with BAC and 3DES secure messaging over a file system.
///
/// It is also the in-process reader (`APDUTransport`): the protocol code talks to it exactly as it
/// talks to PC/SC or libnfc. Its cryptography on the protocol path (secure messaging, key
/// derivation, BAC, PACE, Chip and Active Authentication) is `MRTDChipCrypto`, never the reader's
/// own code (scripts/check-deps): a fault on either side breaks the session.
public actor VirtualChip: APDUTransport {
    public nonisolated let capabilities: TransportCapabilities
    public let configuration: VirtualChipConfiguration

    enum Application { case none, lds1, lds2 }
    var application = Application.none
    var selected: LDSFile?
    private var rndIC: [UInt8]?
    var secureMessaging: ChipSecureMessaging?
    /// PACE in progress (`VirtualChip+PACE.swift`).
    var paceState = VirtualPACEState()
    /// Chip/Active Authentication progress (`VirtualChip+Authentication`).
    var authenticationState = VirtualChipAuthenticationState()
    /// What the quirks remember (`VirtualChip+Quirks.swift`).
    var quirkState = VirtualQuirkState()
    /// Terminal Authentication progress (`VirtualChip+TerminalAuthentication`).
    var eacState = VirtualEACState()
    /// Exchanges handled so far.
    public private(set) var exchangeCount = 0
    /// Command chaining in progress, and commands refused for their size (`VirtualChip+APDULimits`).
    var chainState = VirtualChainState()
    var limitRefusals = 0

    public init(configuration: VirtualChipConfiguration) {
        self.configuration = configuration
        capabilities = configuration.extendedLength ? .extended : .shortOnly
    }

    /// Whether secure messaging is established (for tests).
    public var isAuthenticated: Bool { secureMessaging != nil }

    public func transmit(_ command: [UInt8]) async throws -> [UInt8] {
        // A locked chip (`lock-after-failed-access`) does not answer: the reader times out.
        guard let answer = await respond(to: command) else { throw TransportError.timeout }
        return answer
    }

    /// Handles one command APDU and returns the response APDU, status word included; `fault` makes
    /// the chip misbehave on this exchange (`VirtualChip+Faults.swift`).
    public func process(_ bytes: [UInt8], injecting fault: VirtualChipFault? = nil) -> [UInt8] {
        defer { exchangeCount += 1 }
        if let answer = quirkGetResponse(bytes) { return answer }
        return shortOnlyPieces(quirkPieces(processCommand(bytes, injecting: fault)))
    }

    private func processCommand(_ bytes: [UInt8], injecting fault: VirtualChipFault?) -> [UInt8] {
        let index = exchangeCount
        if let answer = answer(to: bytes, injecting: fault) { return answer }
        guard let command = try? CommandAPDU(bytes: bytes) else {
            return ResponseAPDU(statusWord: .wrongLength).bytes
        }
        let quirks = configuration.quirks
        // ISO/IEC 7816-3 §12.1.3: an extended-length APDU has 00 where a short one has Lc or Le.
        let extended = bytes.count >= 7 && bytes[4] == 0x00
        if extended {
            guard configuration.extendedLength else { return ResponseAPDU(statusWord: .wrongLength).bytes }
        }
        if let refusal = commandLengthRefusal(bytes) { return refusal }
        // gmrtd#410: extended length announced, refused in fact.
        let refuseExtended = extended && quirks.contains(.extendedAnnouncedRefused) && (command.ins == 0xB0 || command.ins == 0xB1)
        guard var sm = secureMessaging else {
            if refuseExtended { return ResponseAPDU(statusWord: .wrongLength).bytes }
            let response = handle(command)
            quirkNoteAccess(ins: command.ins, status: response.statusWord)
            return response.bytes
        }
        guard command.cla & 0x0C == 0x0C,
              let unwrapped = sm.unwrapCommand(cla: command.cla, ins: command.ins, p1: command.p1, p2: command.p2, data: command.data)
        else {
            // ISO/IEC 7816-4 §10: an SM error ends the session; the answer is plain.
            dropSession()
            return ResponseAPDU(statusWord: .smDataObjectsIncorrect).bytes
        }
        let plain = CommandAPDU(
            cla: unwrapped.cla, ins: unwrapped.ins, p1: unwrapped.p1, p2: unwrapped.p2, data: unwrapped.data, ne: unwrapped.ne)
        if let refusal = quirkRefusalUnderSecureMessaging(plain) {
            dropSession()
            return refusal.bytes
        }
        if let refusal = quirkPlainRefusalKeepingSession(plain) {
            secureMessaging = sm  // the command was verified: the SSC moved on
            return refusal.bytes
        }
        if extended && quirks.contains(.smBare6700Extended) && (plain.ins == 0xB0 || plain.ins == 0xB1) {
            // gmrtd#457: the command was verified (the SSC moved on), the answer is a bare 6700 and
            // the session goes on.
            secureMessaging = sm
            return ResponseAPDU(statusWord: .wrongLength).bytes
        }
        let response: ResponseAPDU
        if case .status(let sw) = fault {
            response = ResponseAPDU(statusWord: sw)  // the command is not carried out
        } else if refuseExtended {
            response = ResponseAPDU(statusWord: .wrongLength)
        } else {
            response = handle(plain)
        }
        quirkNoteAccess(ins: plain.ins, status: response.statusWord)
        guard secureMessaging != nil else { return response.bytes }
        do {
            let defect = plain.ins == 0xB0 || plain.ins == 0xB1 ? configuration.secureMessagingDefect : nil
            var wrapped = try sm.wrapResponse(
                data: response.data, sw1: response.statusWord.sw1, sw2: response.statusWord.sw2, oddINS: plain.ins & 1 == 1,
                omitting: defect?.omitted ?? [], alterCryptogram: defect == .alteredCryptogram)
            secureMessaging = sm
            if configuration.corruptMACAtExchange.contains(index) || fault == .corruptMAC {
                wrapped[wrapped.count - 3] ^= 0x01
            }
            if let next = secureMessagingAfterResponse(to: plain.ins) {
                secureMessaging?.wipe()
                secureMessaging = next
            }
            return wrapped
        } catch {
            dropSession()
            return ResponseAPDU(statusWord: .noPreciseDiagnosis).bytes
        }
    }

    /// A reset (ISO/IEC 7816-3 §6.2.2, or the field switched off and on): the chip forgets the
    /// selected application and file, its challenge and its secure-messaging session.
    public func reset() {
        dropSession()
        application = .none
        selected = nil
        rndIC = nil
    }

    func dropSession() {
        eacState.reset()
        secureMessaging?.wipe()
        secureMessaging = nil
    }

    private func handle(_ piece: CommandAPDU) -> ResponseAPDU {
        guard let command = assembled(piece) else { return ResponseAPDU(statusWord: .success) }
        if let answer = responseLengthRefusal(command) { return answer }
        if let answer = quirkRefusal(command) { return answer }
        if let answer = paceConformanceRefusal(command) { return answer }
        if let answer = handleAuthentication(command) { return answer }
        if let answer = handleTerminalAuthentication(command) { return answer }
        switch command.ins {
        case 0xA4: return select(command)
        case 0x84: return getChallenge(command)
        case 0x82: return externalAuthenticate(command)
        case 0x22 where command.p1 == 0xC1 && command.p2 == 0xA4: return paceSetAT(command)
        case 0x86 where paceState.inProgress: return paceGeneralAuthenticateWithConformanceFaults(command)
        case 0xB0, 0xB1: return limitedAnswer(readBinary(command), to: command)
        default: return ResponseAPDU(statusWord: .instructionNotSupported)
        }
    }

    private func select(_ command: CommandAPDU) -> ResponseAPDU {
        switch command.p1 {
        case 0x04:
            paceState.reset()
            if command.data == ApplicationID.lds1, let refusal = configuration.applicationSelectStatus {
                return ResponseAPDU(statusWord: refusal)
            }
            if command.data == ApplicationID.lds1 {
                application = .lds1
                selected = nil
                return ResponseAPDU(statusWord: .success)
            }
            if command.data == ApplicationID.lds2 && configuration.lds2 {
                application = .lds2
                selected = nil
                return ResponseAPDU(statusWord: .success)
            }
            return ResponseAPDU(statusWord: .fileNotFound)
        case 0x02, 0x00:
            guard application == .lds1, command.data.count == 2 else {
                return ResponseAPDU(statusWord: .fileNotFound)
            }
            guard secureMessaging != nil || configuration.plainAccess else {
                return ResponseAPDU(statusWord: .securityStatusNotSatisfied)
            }
            let fid = UInt16(command.data[0]) << 8 | UInt16(command.data[1])
            return selectEF { $0.fileID == fid }
        default:
            return ResponseAPDU(statusWord: .incorrectP1P2)
        }
    }

    /// Makes the LDS1 EF matching `predicate` current, or says why not.
    private func selectEF(where predicate: (LDSFile) -> Bool) -> ResponseAPDU {
        guard let file = configuration.files.keys.first(where: { predicate($0) && !$0.isInMasterFile }) else {
            return ResponseAPDU(statusWord: .fileNotFound)
        }
        if let status = configuration.selectStatus[file] { return ResponseAPDU(statusWord: status) }
        if let refusal = terminalAuthenticationRefusal(file) { return ResponseAPDU(statusWord: refusal) }
        selected = file
        return ResponseAPDU(statusWord: .success)
    }

    private func getChallenge(_ command: CommandAPDU) -> ResponseAPDU {
        if let refusal = configuration.bacRefusal { return ResponseAPDU(statusWord: refusal) }
        guard application == .lds1 else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
        guard command.ne == 8 else { return ResponseAPDU(statusWord: .wrongLength) }
        guard let challenge = try? configuration.random.randomBytes(8) else {
            return ResponseAPDU(statusWord: .noPreciseDiagnosis)
        }
        rndIC = challenge
        return ResponseAPDU(data: challenge, statusWord: .success)
    }

    /// The chip side of BAC mutual authentication (Doc 9303-11 §4.3.4.2).
    private func externalAuthenticate(_ command: CommandAPDU) -> ResponseAPDU {
        guard let rndIC else { return ResponseAPDU(statusWord: .conditionsNotSatisfied) }
        self.rndIC = nil  // one attempt per challenge
        // bettse/passy#3, NFCPassportReader#169: a chip that wants PACE refuses BAC here.
        if configuration.quirks.contains(.bac6A88) { return ResponseAPDU(statusWord: .referencedDataNotFound) }
        guard command.data.count == 40 else { return ResponseAPDU(statusWord: .wrongLength) }
        guard var bac = try? ChipBAC(mrzInformation: configuration.accessKey.mrzInformation) else {
            return ResponseAPDU(statusWord: .noPreciseDiagnosis)
        }
        defer { bac.wipe() }
        guard var terminal = try? bac.check(command.data, rndIC: rndIC) else {
            return ResponseAPDU(statusWord: wrongKeyRefusal)
        }
        if case .status(let sw)? = configuration.bacAnswerDefect { return ResponseAPDU(statusWord: sw) }
        if configuration.bacAnswerDefect == .wrongEcho { terminal.rndIFD[0] ^= 0x01 }
        guard let kIC = try? configuration.random.randomBytes(16),
              var opened = try? bac.answer(rndIC: rndIC, terminal: terminal, kIC: kIC)
        else { return ResponseAPDU(statusWord: .noPreciseDiagnosis) }
        if configuration.bacAnswerDefect == .corruptMAC { opened.response[opened.response.count - 1] ^= 0x01 }
        // The answer itself travels in plain (this command came in plain); protection starts with
        // the next command.
        secureMessaging = opened.session
        eacState.chipIdentifier = TerminalAuthentication.chipIdentifier(mrz: configuration.accessKey)
        return ResponseAPDU(data: opened.response, statusWord: .success)
    }

    private func readBinary(_ command: CommandAPDU) -> ResponseAPDU {
        if command.ins == 0xB0 && command.p1 & 0x80 != 0 {
            // READ BINARY with a short EF identifier selects the EF first (ISO/IEC 7816-4 §11.3.3).
            guard configuration.shortFileIdentifiers, command.p1 & 0x60 == 0 else {
                return ResponseAPDU(statusWord: .incorrectP1P2)
            }
            if application == .none {
                // The master file: EF.CardAccess (plain) and EF.CardSecurity (after PACE).
                let selection = selectMasterFileEF(shortFileID: command.p1 & 0x1F)
                guard selection.statusWord == .success else { return selection }
            } else {
                guard application == .lds1 else { return ResponseAPDU(statusWord: .fileNotFound) }
                guard secureMessaging != nil || configuration.plainAccess else {
                    return ResponseAPDU(statusWord: .securityStatusNotSatisfied)
                }
                let sfi = command.p1 & 0x1F
                let selection = selectEF { $0.shortFileID == sfi }
                guard selection.statusWord == .success else { return selection }
            }
        }
        guard let file = selected, let content = currentContents(file) else {
            return ResponseAPDU(statusWord: .conditionsNotSatisfied)
        }
        guard let ne = command.ne else { return ResponseAPDU(statusWord: .wrongLength) }
        if ne > configuration.maxReadLength { return ResponseAPDU(statusWord: .wrongLength) }
        if configuration.rejectsMaximumLe && (ne == 256 || ne == 65_536) {
            return ResponseAPDU(statusWord: .wrongLength)
        }
        if configuration.quirks.contains(.le00Refused6B00) && (ne == 256 || ne == 65_536) {
            return ResponseAPDU(statusWord: .wrongParametersOffset)  // NFCPassportReader#89
        }
        let offset: Int
        var wrapperOverhead = 0
        if command.ins == 0xB0 {
            offset = command.p1 & 0x80 != 0 ? Int(command.p2) : Int(command.p1) << 8 | Int(command.p2)
        } else {
            guard let tlv = try? TLV.parse(command.data, expecting: 0x54), (1...3).contains(tlv.value.count) else {
                return ResponseAPDU(statusWord: .incorrectData)
            }
            offset = tlv.value.reduce(0) { $0 << 8 | Int($1) }
            wrapperOverhead = 4
        }
        guard offset < content.count else { return ResponseAPDU(statusWord: .wrongParametersOffset) }
        if quirkRefusesReadPastEnd(offset: offset, length: ne - wrapperOverhead, size: content.count) {
            return ResponseAPDU(statusWord: .wrongParametersOffset)
        }
        let left = content.count - offset
        if configuration.wrongLengthAnswers6Cxx, command.ins == 0xB0, ne > left, left < 256 {
            return ResponseAPDU(statusWord: StatusWord(rawValue: 0x6C00 | UInt16(left)))
        }
        let count = min(max(0, ne - wrapperOverhead), content.count - offset)
        let chunk = Array(content[offset..<(offset + count)])
        let data = command.ins == 0xB0 ? chunk : TLV.encode(tag: 0x53, value: chunk)
        let status: StatusWord = count < ne - wrapperOverhead ? configuration.endOfFileStatus : .success
        return ResponseAPDU(data: data, statusWord: status)
    }
}
