internal import CPCSCLite
import Glibc
import MRTDPlatform

/// Thin synchronous wrappers over libpcsclite. Every function blocks: call them only on a
/// `BlockingThread` (or the monitor's own thread), never on the cooperative pool.
struct PCSCContext: Sendable {
    let handle: Int

    /// `SCardEstablishContext(SCARD_SCOPE_SYSTEM)`.
    static func establish() throws(PCSCStatus) -> PCSCContext {
        var context: SCARDCONTEXT = 0
        let status = PCSCStatus(SCardEstablishContext(DWORD(SCARD_SCOPE_SYSTEM), nil, nil, &context))
        guard status == .success else { throw status }
        return PCSCContext(handle: Int(context))
    }

    func release() {
        _ = SCardReleaseContext(SCARDCONTEXT(handle))
    }

    /// `SCardCancel`: makes a blocking `SCardGetStatusChange` on this context return
    /// `SCARD_E_CANCELLED`. Safe to call from any thread.
    func cancel() {
        _ = SCardCancel(SCARDCONTEXT(handle))
    }

    /// The attached readers (`SCardListReaders`); empty rather than an error when there are none.
    func listReaders() throws(PCSCStatus) -> [String] {
        var length: DWORD = 0
        var status = PCSCStatus(SCardListReaders(SCARDCONTEXT(handle), nil, nil, &length))
        if status == .noReadersAvailable { return [] }
        guard status == .success else { throw status }
        var buffer = [CChar](repeating: 0, count: Int(length) + 1)
        status = PCSCStatus(SCardListReaders(SCARDCONTEXT(handle), nil, &buffer, &length))
        if status == .noReadersAvailable { return [] }
        guard status == .success else { throw status }
        return Self.multiString(buffer.prefix(Int(length)))
    }

    /// Splits a PC/SC multi-string (NUL-separated, double-NUL-terminated).
    static func multiString<C: Collection>(_ chars: C) -> [String] where C.Element == CChar {
        chars.split(separator: 0).map { part in
            String(decoding: part.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// One entry of `SCardGetStatusChange`.
    struct ReaderState: Sendable {
        var name: String
        var currentState: UInt
        var eventState: UInt = 0
        var atr: [UInt8] = []
    }

    /// `SCardGetStatusChange`: blocks until one of `states` differs from its `currentState`, the
    /// timeout passes, or `cancel()`. Fills `eventState` and `atr` on success.
    func statusChange(_ states: inout [ReaderState], timeout: UInt) -> PCSCStatus {
        let names = states.map { strdup($0.name) }
        defer { for name in names { free(name) } }
        var raw = [SCARD_READERSTATE](repeating: SCARD_READERSTATE(), count: states.count)
        for i in states.indices {
            raw[i].szReader = UnsafePointer(names[i])
            raw[i].dwCurrentState = DWORD(states[i].currentState)
        }
        let status = PCSCStatus(SCardGetStatusChange(SCARDCONTEXT(handle), DWORD(timeout), &raw, DWORD(raw.count)))
        if status == .success {
            for i in states.indices {
                states[i].eventState = UInt(raw[i].dwEventState)
                let count = min(Int(raw[i].cbAtr), 33)
                states[i].atr = withUnsafeBytes(of: raw[i].rgbAtr) { Array($0.prefix(count)) }
            }
        }
        return status
    }

    /// The connected card: its handle and the protocol pcscd negotiated.
    struct Card: Sendable {
        let handle: Int
        let activeProtocol: UInt
    }

    /// `SCardConnect` in shared mode with T=0 or T=1 (a contactless card reports T=1).
    func connect(reader: String) throws(PCSCStatus) -> Card {
        var card: SCARDHANDLE = 0
        var proto: DWORD = 0
        let status = PCSCStatus(SCardConnect(
            SCARDCONTEXT(handle), reader, DWORD(SCARD_SHARE_SHARED),
            DWORD(SCARD_PROTOCOL_T0 | SCARD_PROTOCOL_T1), &card, &proto))
        guard status == .success else { throw status }
        return Card(handle: Int(card), activeProtocol: UInt(proto))
    }

    /// `SCardConnect` in direct mode (no card needed), to ask the reader driver about itself.
    func connectDirect(reader: String) throws(PCSCStatus) -> Card {
        var card: SCARDHANDLE = 0
        var proto: DWORD = 0
        let status = PCSCStatus(SCardConnect(
            SCARDCONTEXT(handle), reader, DWORD(SCARD_SHARE_DIRECT), 0, &card, &proto))
        guard status == .success else { throw status }
        return Card(handle: Int(card), activeProtocol: 0)
    }
}

extension PCSCContext.Card {
    func beginTransaction() -> PCSCStatus { PCSCStatus(SCardBeginTransaction(SCARDHANDLE(handle))) }

    func endTransaction() { _ = SCardEndTransaction(SCARDHANDLE(handle), DWORD(SCARD_LEAVE_CARD)) }

    /// `SCardDisconnect`; `reset` resets the card so no secure-messaging state outlives the session.
    func disconnect(reset: Bool) {
        _ = SCardDisconnect(SCARDHANDLE(handle), DWORD(reset ? SCARD_RESET_CARD : SCARD_LEAVE_CARD))
    }

    var isT0: Bool { activeProtocol == UInt(SCARD_PROTOCOL_T0) }

    /// `SCardTransmit` into `buffer` (sized for the largest response); returns the response bytes.
    func transmit(_ command: [UInt8], buffer: inout [UInt8]) throws(PCSCStatus) -> [UInt8] {
        var length = DWORD(buffer.count)
        let pci = isT0 ? mrtd_pci_t0() : mrtd_pci_t1()
        let status = PCSCStatus(command.withUnsafeBufferPointer { cmd in
            buffer.withUnsafeMutableBufferPointer { out in
                SCardTransmit(SCARDHANDLE(handle), pci, cmd.baseAddress, DWORD(cmd.count), nil, out.baseAddress, &length)
            }
        })
        guard status == .success else { throw status }
        return Array(buffer.prefix(min(Int(length), buffer.count)))
    }

    /// `SCardStatus`: whether the handle still reaches a card, and its ATR.
    func status() -> (PCSCStatus, atr: [UInt8]) {
        var atr = [UInt8](repeating: 0, count: 33)
        var atrLength = DWORD(atr.count)
        var state: DWORD = 0
        var proto: DWORD = 0
        let status = PCSCStatus(SCardStatus(SCARDHANDLE(handle), nil, nil, &state, &proto, &atr, &atrLength))
        return (status, Array(atr.prefix(min(Int(atrLength), 33))))
    }

    /// `SCardControl`.
    func control(_ code: UInt, _ input: [UInt8] = []) throws(PCSCStatus) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 1024)
        var returned: DWORD = 0
        let status = PCSCStatus(input.withUnsafeBytes { inBytes in
            output.withUnsafeMutableBytes { outBytes in
                SCardControl(SCARDHANDLE(handle), DWORD(code), inBytes.baseAddress, DWORD(input.count),
                             outBytes.baseAddress, DWORD(outBytes.count), &returned)
            }
        })
        guard status == .success else { throw status }
        return Array(output.prefix(min(Int(returned), output.count)))
    }

    /// `SCardGetAttrib`.
    func attribute(_ id: UInt) throws(PCSCStatus) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: 256)
        var length = DWORD(output.count)
        let status = PCSCStatus(SCardGetAttrib(SCARDHANDLE(handle), DWORD(id), &output, &length))
        guard status == .success else { throw status }
        return Array(output.prefix(min(Int(length), output.count)))
    }
}
