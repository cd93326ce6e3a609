public import MRTDCore
import MRTDCrypto

/// The terminal's end of the link to one chip: sends commands through the transport, wraps them in
/// secure messaging once a session is open, and counts what crosses the wire.
///
/// Not thread-safe by design: one session per reader, driven by one task.
public final class ChipChannel {
    /// The link to the chip; replaced when the reader reconnects after a lost card
    /// (``replaceTransport(_:)``).
    public private(set) var transport: any APDUTransport
    /// The open secure-messaging session, if any.
    public private(set) var secureMessaging: SecureMessaging?
    /// What has crossed the wire so far.
    public private(set) var report = TransportReport()
    /// The chip's own APDU sizes, from EF.ATR/INFO's extended length information (Doc 9303-10
    /// §3.11, ISO/IEC 7816-4 §12.7.1): whole command and response APDUs, in bytes.
    public private(set) var chipLimits: (maxCommandLength: Int, maxResponseLength: Int)?
    /// Whether command chaining was noted in the adjustments already.
    private var notedCommandChaining = false

    public init(transport: any APDUTransport) {
        self.transport = transport
    }

    deinit {
        secureMessaging?.wipe()
    }

    /// What one exchange may carry: the reader's capabilities (``transport``), narrowed to the chip's
    /// sizes once EF.ATR/INFO gave them (``chipLimits``).
    public var capabilities: TransportCapabilities {
        var caps = transport.capabilities
        if let chipLimits {
            caps.maxCommandLength = min(caps.maxCommandLength, chipLimits.maxCommandLength)
            caps.maxResponseLength = min(caps.maxResponseLength, chipLimits.maxResponseLength)
            // A chip whose largest APDUs fit the short forms has no use for extended length.
            if caps.maxCommandLength <= Self.maxShortCommandLength && caps.maxResponseLength <= 258 {
                caps.extendedLength = false
            }
        }
        return caps
    }

    /// The longest short command APDU: header, Lc, 255 data bytes, Le (ISO/IEC 7816-3 §12.1.3).
    public static let maxShortCommandLength = 261

    /// Sizes every following APDU by the chip's limits (EF.ATR/INFO), on top of the reader's.
    public func applyChipLimits(maxCommandLength: Int, maxResponseLength: Int) {
        chipLimits = (maxCommandLength, maxResponseLength)
    }

    /// Starts protecting every following command with `session`.
    public func startSecureMessaging(_ session: SecureMessaging) {
        secureMessaging?.wipe()
        secureMessaging = session
    }

    /// Wipes the session keys and returns to plain commands.
    public func endSecureMessaging() {
        secureMessaging?.wipe()
        secureMessaging = nil
    }

    /// Continues over a fresh link (the card was reconnected): the old session's keys are wiped, and
    /// the report goes on counting.
    public func replaceTransport(_ transport: any APDUTransport) {
        endSecureMessaging()
        self.transport = transport
    }

    /// Notes a recovery (shown in `transport.recoveries`); `exchange` defaults to the last exchange.
    public func noteRecovery(_ kind: String, file: LDSFile? = nil, offset: Int? = nil, exchange: Int? = nil, detail: String) {
        report.recoveries.append(.init(
            kind: kind, file: file?.name, offset: offset, exchange: exchange ?? max(0, report.apdus - 1), detail: detail))
    }

    /// Notes an adjustment the reader made (shown in `transport.adjustments`).
    public func noteAdjustment(_ text: String) {
        report.adjustments.append(text)
    }

    /// Records a READ BINARY's outcome for the transport report.
    func noteRead(bytes: Int, extended: Bool) {
        report.readBinaryCommands += 1
        report.maxReadLength = max(report.maxReadLength, bytes)
        if extended { report.extendedLength = true }
    }

    func noteFile(bytes: Int) {
        report.fileBytes += bytes
    }

    /// Sends one command, protected when secure messaging is on, and returns the (unprotected) answer.
    ///
    /// - Throws: `ProtocolError`. A response that fails the secure-messaging checks ends the session:
    ///   its keys are wiped before the error propagates.
    public func send(_ command: CommandAPDU, forceExtended: Bool = false, shortAnswer: Bool = false) async throws -> ResponseAPDU {
        if Task.isCancelled { throw ProtocolError.cancelled }
        if try needsChaining(command, forceExtended: forceExtended, shortAnswer: shortAnswer) {
            return try await sendChained(command, shortAnswer: shortAnswer)
        }
        return try await sendOne(command, forceExtended: forceExtended, shortAnswer: shortAnswer)
    }

    /// Whether `command`, as it would be sent (protected when secure messaging is on), does not fit
    /// one exchange: longer than ``capabilities`` allow, or extended where the link or the chip
    /// carries short APDUs only.
    private func needsChaining(_ command: CommandAPDU, forceExtended: Bool, shortAnswer: Bool) throws -> Bool {
        guard command.data.count > 0, command.cla & 0x80 == 0 else { return false }
        let caps = capabilities
        let length: Int
        let dataField: Int
        if var probe = secureMessaging {
            // A copy: its counter moves, the session's does not.
            length = try probe.protect(command, forceExtended: forceExtended, shortAnswer: shortAnswer).count
            let padded = (command.data.count / probe.cipher.blockSize + 1) * probe.cipher.blockSize
            dataField = 2 + TLV.encodeLength(padded + 1).count + padded + 10 + (command.ne == nil ? 0 : 4)
        } else {
            guard let bytes = try? command.encoded(extended: forceExtended ? true : nil) else { return true }
            length = bytes.count
            dataField = command.data.count
        }
        // Too long for the link or the chip, or a data field only extended length can carry where
        // the link or the chip takes short APDUs.
        return length > caps.maxCommandLength || (dataField > 255 && !caps.extendedLength)
    }

    /// ISO/IEC 7816-4 §5.3.3 command chaining: the data in pieces, each a command of its own with
    /// the chaining bit (CLA `x1x`) on all but the last, which keeps the command's class and its Le.
    /// Under secure messaging each piece is protected on its own. A piece answered with anything but
    /// `9000` ends the chain with that answer.
    private func sendChained(_ command: CommandAPDU, shortAnswer: Bool) async throws -> ResponseAPDU {
        let caps = capabilities
        // Plain: 255 bytes (or what the chip's largest command leaves). Protected: 223 plain bytes
        // make at most 241 bytes of data objects (DO'87' 228, DO'8E' 10, DO'97' 3) with 8- or
        // 16-byte blocks.
        var pieceLength = secureMessaging == nil ? min(255, caps.maxCommandLength - 6) : min(223, caps.maxCommandLength - 6 - 38)
        pieceLength = max(pieceLength, 8)
        var pieces: [[UInt8]] = []
        var rest = command.data[...]
        while !rest.isEmpty {
            pieces.append(Array(rest.prefix(pieceLength)))
            rest = rest.dropFirst(pieceLength)
        }
        if !notedCommandChaining {
            notedCommandChaining = true
            noteAdjustment("command chaining: INS \(String(command.ins, radix: 16, uppercase: true)) data of \(command.data.count) bytes sent in \(pieces.count) pieces (the link or the chip takes at most \(caps.maxCommandLength)-byte\(caps.extendedLength ? "" : " short") commands)")
        }
        for (index, piece) in pieces.enumerated() {
            let last = index == pieces.count - 1
            let part = CommandAPDU(
                cla: last ? command.cla : command.cla | 0x10, ins: command.ins, p1: command.p1, p2: command.p2,
                data: piece, ne: last ? command.ne : nil)
            let response = try await sendOne(part, forceExtended: false, shortAnswer: shortAnswer)
            if !last && response.statusWord != .success { return response }
            if last { return response }
        }
        throw ProtocolError.apdu(.dataTooLong(command.data.count))
    }

    /// One command, one exchange (completed by GET RESPONSE where the chip asks for it).
    private func sendOne(_ command: CommandAPDU, forceExtended: Bool, shortAnswer: Bool) async throws -> ResponseAPDU {
        let bytes: [UInt8]
        let sessionBefore = secureMessaging
        let capabilitiesBefore = capabilities
        if var sm = secureMessaging {
            bytes = try sm.protect(command, forceExtended: forceExtended, shortAnswer: shortAnswer)
            secureMessaging = sm
        } else {
            do {
                bytes = try command.encoded(extended: forceExtended ? true : nil)
            } catch {
                throw ProtocolError.apdu(error)
            }
        }
        let raw: [UInt8]
        do {
            raw = try await exchangeCompleting(bytes)
        } catch ProtocolError.transport(.commandTooLong) where Self.isExtended(bytes) && bytes.count <= capabilitiesBefore.maxCommandLength {
            // The reader could not carry an extended-length APDU it was thought to carry (PC/SC
            // readers that say nothing are tried with extended length): the chip never saw the
            // command, so its send sequence counter did not move and ours goes back. The caller
            // sees the chip's "wrong length" and goes on with short APDUs, which the link now has.
            secureMessaging = sessionBefore
            noteAdjustment("extended-length APDU not carried by the reader: short APDUs from now on (SSC kept in step)")
            return ResponseAPDU(statusWord: .wrongLength)
        }
        guard var sm = secureMessaging else {
            do {
                return try ResponseAPDU(bytes: raw)
            } catch {
                throw ProtocolError.secureMessagingMalformed("\(error)")
            }
        }
        if raw == [0x67, 0x00], Self.isExtended(bytes), command.ins == 0xB0 || command.ins == 0xB1 {
            // gmrtd#457: a chip refusing extended length inside secure messaging with a bare 6700
            // has verified the command (its SSC moved on with ours) and keeps the session: the SSC
            // is not advanced for this unprotected answer, and the read goes on with short APDUs.
            // Only a length refusal is taken this way; should the chip have dropped the session
            // after all, its next answer (6987/6988) starts the secure-messaging recovery.
            noteAdjustment("READ BINARY: bare 6700 to an extended protected command: session kept, SSC in step (gmrtd#457)")
            return ResponseAPDU(statusWord: .wrongLength)
        }
        if raw.count == 2, command.ins == 0xB0, command.p1 & 0x80 != 0,
           Self.shortFileIdentifierRefusals.contains(UInt16(raw[0]) << 8 | UInt16(raw[1])) {
            // A READ BINARY by short EF identifier refused in plain (6A82 and the like) by a chip
            // that selects its files by SELECT only: ISO/IEC 7816-4 lets a chip answer an error
            // without secure messaging. Taken as the answer, the session kept and the SSC not
            // advanced (as with gmrtd#457); the reader uses SELECT from then on. Should the chip
            // have ended the session after all, its answer to that SELECT (6987/6988, or any plain
            // status) starts the secure-messaging recovery.
            noteAdjustment("READ BINARY by short EF identifier: plain \(StatusWord(sw1: raw[0], sw2: raw[1])) under secure messaging: session kept, SELECT from now on")
            return ResponseAPDU(statusWord: StatusWord(sw1: raw[0], sw2: raw[1]))
        }
        do {
            let response = try sm.unprotect(raw)
            secureMessaging = sm
            return response
        } catch {
            endSecureMessaging()
            throw error
        }
    }

    /// The plain answers to a protected READ BINARY by short EF identifier that refuse the short
    /// identifier (file not found, wrong P1-P2, function or instruction not supported, command not
    /// allowed, wrong offset): taken as the answer, not as the end of secure messaging.
    static let shortFileIdentifierRefusals: Set<UInt16> = [0x6A82, 0x6A86, 0x6A81, 0x6B00, 0x6D00, 0x6986, 0x6981]

    /// At most this many GET RESPONSE commands complete one answer: 65538 bytes in pieces of 256.
    public static let maxResponsePieces = 260
    /// The largest answer (data and status word) `61xx` pieces may add up to.
    public static let maxResponseBytes = 65_538
    /// Whether a GET RESPONSE chain was noted in the adjustments already.
    private var notedResponseChain = false

    /// One exchange completed as ISO/IEC 7816-4 §5.1.3 and §12.6 ask, for every command, plain or
    /// protected (under secure messaging the pieces are the protected response, unwrapped whole):
    ///
    /// - `61xx`: more data: GET RESPONSE (00 C0 00 00 xx) until the last piece, bounded by
    ///   ``maxResponsePieces`` and ``maxResponseBytes`` (else `responseTooLong`);
    /// - a bare `6Cxx` to a short command with Le: the same command once more with Le = xx.
    ///
    /// On a chip that answers in one piece nothing changes: one command, one exchange.
    public func exchangeCompleting(_ command: [UInt8]) async throws -> [UInt8] {
        var response = try await exchange(command)
        if response.count == 2, response[0] == 0x6C, let corrected = Self.withShortLe(response[1], command) {
            noteRecovery("exactLength", detail: "\(StatusWord(sw1: 0x6C, sw2: response[1])): command repeated with Le=\(response[1] == 0 ? 256 : Int(response[1]))")
            response = try await exchange(corrected)
        }
        guard response.count >= 2, response[response.count - 2] == 0x61 else { return response }
        var collected = Array(response.dropLast(2))
        var pieces = 0
        while response.count >= 2, response[response.count - 2] == 0x61 {
            pieces += 1
            guard pieces <= Self.maxResponsePieces, collected.count + 2 <= Self.maxResponseBytes else {
                throw ProtocolError.responseTooLong(pieces: pieces - 1, bytes: collected.count)
            }
            let getResponse: [UInt8] = [command[0] & 0x03, 0xC0, 0x00, 0x00, response[response.count - 1]]
            response = try await exchange(getResponse)
            if response.count == 2, response[0] == 0x6C {
                // A GET RESPONSE with the wrong Le (T=0): repeated with the length the chip names.
                response = try await exchange([command[0] & 0x03, 0xC0, 0x00, 0x00, response[1]])
            }
            collected += response.dropLast(2)
        }
        guard collected.count + 2 <= Self.maxResponseBytes else {
            throw ProtocolError.responseTooLong(pieces: pieces, bytes: collected.count)
        }
        if !notedResponseChain {
            notedResponseChain = true
            noteAdjustment("61xx: answers completed with GET RESPONSE (first: \(pieces) piece(s), \(collected.count) bytes)")
        }
        return collected + response.suffix(2)
    }

    /// Whether `command` is an extended-length APDU (ISO/IEC 7816-3 §12.1.3: 00 where a short one
    /// has Lc or Le).
    static func isExtended(_ command: [UInt8]) -> Bool {
        command.count >= 7 && command[4] == 0x00
    }

    /// `command` (a short APDU with Le) with its Le replaced by `le`; nil for any other form.
    static func withShortLe(_ le: UInt8, _ command: [UInt8]) -> [UInt8]? {
        guard !isExtended(command), command.count >= 5 else { return nil }
        if command.count == 5 { return Array(command.prefix(4)) + [le] }
        let lc = Int(command[4])
        // Case 4: header, Lc, data, Le.
        guard lc > 0, command.count == 5 + lc + 1 else { return nil }
        return Array(command.dropLast()) + [le]
    }

    /// One raw exchange, counted.
    public func exchange(_ command: [UInt8]) async throws -> [UInt8] {
        if Task.isCancelled { throw ProtocolError.cancelled }
        let caps = capabilities
        guard command.count <= caps.maxCommandLength else {
            throw ProtocolError.transport(.commandTooLong(command.count, max: caps.maxCommandLength))
        }
        report.apdus += 1
        report.bytesSent += command.count
        let response: [UInt8]
        do {
            response = try await transport.transmit(command)
        } catch let error as TransportError {
            throw ProtocolError.transport(error)
        } catch let error as ProtocolError {
            throw error
        } catch is CancellationError {
            throw ProtocolError.cancelled
        } catch {
            throw ProtocolError.transport(.serviceFailure("\(error)"))
        }
        report.bytesReceived += response.count
        guard response.count >= 2 else {
            throw ProtocolError.secureMessagingMalformed("response of \(response.count) bytes")
        }
        return response
    }

    // MARK: Commands

    /// SELECT by DF name (ISO/IEC 7816-4 §11.2.2, P1=04, P2=0C: no FCI, so no Le).
    public func selectApplication(_ aid: [UInt8]) async throws -> StatusWord {
        try await send(CommandAPDU(ins: 0xA4, p1: 0x04, p2: 0x0C, data: aid)).statusWord
    }

    /// SELECT EF under the current DF (P1=02, P2=0C, no Le — Doc 9303-11 §9.8 and the pitfalls list).
    public func selectFile(_ file: LDSFile) async throws -> StatusWord {
        let fid = [UInt8(file.fileID >> 8), UInt8(file.fileID & 0xFF)]
        return try await send(CommandAPDU(ins: 0xA4, p1: 0x02, p2: 0x0C, data: fid)).statusWord
    }

    /// READ BINARY at offset 0 of the EF with this short identifier, which becomes the current EF.
    public func readBinary(shortFileID: UInt8, length: Int, forceExtended: Bool = false) async throws -> ResponseAPDU {
        try await send(CommandAPDU(ins: 0xB0, p1: 0x80 | (shortFileID & 0x1F), p2: 0, ne: length),
                       forceExtended: forceExtended)
    }

    /// READ BINARY of the current EF: INS B0 up to offset 32767 (15-bit offset in P1-P2), odd INS B1 with
    /// an offset data object `54` beyond it (ISO/IEC 7816-4 §11.3.3; RELIABILITY RB-02).
    ///
    /// For B1 the answer's `53` wrapper is removed, so the returned data are file bytes in both cases.
    public func readBinary(offset: Int, length: Int, forceExtended: Bool = false) async throws -> ResponseAPDU {
        if offset <= 0x7FFF {
            return try await send(
                CommandAPDU(ins: 0xB0, p1: UInt8(offset >> 8), p2: UInt8(offset & 0xFF), ne: length),
                forceExtended: forceExtended)
        }
        var offsetBytes: [UInt8] = []
        var o = offset
        while o > 0 {
            offsetBytes.insert(UInt8(o & 0xFF), at: 0)
            o >>= 8
        }
        // The answer carries a `53` header of up to 4 bytes on top of the file bytes.
        let response = try await send(
            CommandAPDU(ins: 0xB1, p1: 0, p2: 0, data: TLV.encode(tag: 0x54, value: offsetBytes),
                        ne: length + 4),
            forceExtended: forceExtended)
        guard !response.data.isEmpty else { return response }
        do {
            let header = try TLV.parseHeader(response.data)
            guard header.tag == 0x53 else {
                throw ProtocolError.secureMessagingMalformed("READ BINARY (B1) answer without DO'53'")
            }
            let available = response.data.count - header.headerLength
            let value = response.data.dropFirst(header.headerLength).prefix(min(header.length, available))
            return ResponseAPDU(data: Array(value), statusWord: response.statusWord)
        } catch let error as TLVError {
            throw ProtocolError.secureMessagingMalformed("READ BINARY (B1) answer: \(error)")
        }
    }
}
