import MRTDCore
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

    public init(transport: any APDUTransport) {
        self.transport = transport
    }

    deinit {
        secureMessaging?.wipe()
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
        let bytes: [UInt8]
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
        let raw = try await exchange(bytes)
        guard var sm = secureMessaging else {
            do {
                return try ResponseAPDU(bytes: raw)
            } catch {
                throw ProtocolError.secureMessagingMalformed("\(error)")
            }
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

    /// One raw exchange, counted.
    public func exchange(_ command: [UInt8]) async throws -> [UInt8] {
        if Task.isCancelled { throw ProtocolError.cancelled }
        let caps = transport.capabilities
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
