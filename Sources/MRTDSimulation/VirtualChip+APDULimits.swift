import MRTDCore
import MRTDChipCrypto

/// The chip's own APDU sizes, as its EF.ATR/INFO states them (Doc 9303-10 §3.11, ISO/IEC 7816-4
/// §12.7.1), enforced: a longer command APDU, or a READ BINARY whose answer would be a longer
/// response APDU, is refused with `6700`. A reader that ignores EF.ATR/INFO meets refusals.
public struct VirtualAPDULimits: Sendable, Equatable {
    /// The largest command APDU (header, Lc, data, Le) the chip takes.
    public var maxCommandLength: Int
    /// The largest response APDU (data and status word) the chip sends.
    public var maxResponseLength: Int

    public init(maxCommandLength: Int, maxResponseLength: Int) {
        self.maxCommandLength = maxCommandLength
        self.maxResponseLength = maxResponseLength
    }

    /// EF.ATR/INFO with the extended length information `7F66 { 02 command, 02 response }`, each
    /// length on `lengthBytes` bytes (2 for LDS_K_01, 3 for LDS_K_02).
    public func atrInfo(lengthBytes: Int = 2) -> [UInt8] {
        func integer(_ value: Int) -> [UInt8] {
            TLV.encode(tag: 0x02, value: (0..<lengthBytes).reversed().map { UInt8((value >> (8 * $0)) & 0xFF) })
        }
        return TLV.encode(tag: 0x7F66, value: integer(maxCommandLength) + integer(maxResponseLength))
    }
}

/// Command chaining in progress (ISO/IEC 7816-4 §5.3.3).
struct VirtualChainState {
    /// The INS of the chain and the data received so far.
    var ins: UInt8?
    var data: [UInt8] = []
    /// Pieces that came with the chaining bit (or an incomplete `7C` object) and were answered 9000.
    var piecesBuffered = 0
}

extension VirtualChipConfiguration {
    /// This configuration with EF.ATR/INFO stating `limits` and the chip enforcing them.
    public func with(apduLimits limits: VirtualAPDULimits, lengthBytes: Int = 2) -> VirtualChipConfiguration {
        var config = self
        config.apduLimits = limits
        config.files[.atrInfo] = limits.atrInfo(lengthBytes: lengthBytes)
        return config
    }
}

extension VirtualChip {
    /// Command pieces answered 9000 while a chain was assembled (for tests).
    public var chainedPiecesReceived: Int { chainState.piecesBuffered }

    /// Commands refused because they exceeded ``VirtualChipConfiguration/apduLimits`` (for tests).
    public var apduLimitRefusals: Int { limitRefusals }

    /// `6700` for a command APDU longer than the chip's limit; nil when it fits.
    func commandLengthRefusal(_ bytes: [UInt8]) -> [UInt8]? {
        guard let limits = configuration.apduLimits, bytes.count > limits.maxCommandLength else { return nil }
        limitRefusals += 1
        return ResponseAPDU(statusWord: .wrongLength).bytes
    }

    /// `6700` for a READ BINARY with an explicit Le whose answer, plain or protected, could exceed the
    /// chip's largest response APDU; nil when it fits. Le = 00 / 0000 ("all there is") is judged by
    /// the answer itself (``limitedAnswer(_:to:)``).
    func responseLengthRefusal(_ command: CommandAPDU) -> ResponseAPDU? {
        guard configuration.apduLimits != nil, command.ins == 0xB0 || command.ins == 0xB1,
              let ne = command.ne, ne != 256, ne != 65_536 else { return nil }
        guard responseSize(data: ne) > configuration.apduLimits?.maxResponseLength ?? Int.max else { return nil }
        limitRefusals += 1
        return ResponseAPDU(statusWord: .wrongLength)
    }

    /// `answer` to a READ BINARY, or `6700` when it would be a longer response APDU than the chip sends.
    func limitedAnswer(_ answer: ResponseAPDU, to command: CommandAPDU) -> ResponseAPDU {
        guard let limits = configuration.apduLimits, responseSize(data: answer.data.count) > limits.maxResponseLength else {
            return answer
        }
        limitRefusals += 1
        return ResponseAPDU(statusWord: .wrongLength)
    }

    /// The response APDU's size for `data` plain bytes, protected when a session is open.
    private func responseSize(data: Int) -> Int {
        guard let sm = secureMessaging else { return data + 2 }
        // DO'87' (padding indicator and padded data), DO'99', DO'8E', status word (Doc 9303-11 §9.8).
        let blockSize = sm.cipher.blockSize
        let padded = (data / blockSize + 1) * blockSize
        return 4 + 10 + 2 + (data > 0 ? 1 + TLV.encodeLength(padded + 1).count + 1 + padded : 0)
    }

    /// Assembles a chained command: nil when `command` was a piece to keep (answer 9000), else the
    /// whole command. A piece is one with the chaining bit (CLA `x1x`), except for GENERAL
    /// AUTHENTICATE, whose steps carry that bit anyway (PACE, Doc 9303-11 §4.4.4.2): there a piece is
    /// an incomplete dynamic authentication data object `7C`.
    func assembled(_ command: CommandAPDU) -> CommandAPDU? {
        var data = command.data
        if chainState.ins == command.ins {
            data = chainState.data + data
        }
        chainState.ins = nil
        chainState.data = []
        let more: Bool
        if command.ins == 0x86 {
            if let header = try? TLV.parseHeader(data), header.tag == 0x7C {
                more = header.totalLength > data.count
            } else {
                more = false
            }
        } else {
            more = command.cla & 0x10 != 0 && !data.isEmpty
        }
        if more {
            chainState.ins = command.ins
            chainState.data = data
            chainState.piecesBuffered += 1
            return nil
        }
        return CommandAPDU(cla: command.cla, ins: command.ins, p1: command.p1, p2: command.p2, data: data, ne: command.ne)
    }

    /// A short-only chip (no extended length) sends a longer answer in pieces of 256 bytes with
    /// `61xx` (ISO/IEC 7816-4 §5.1.3), the rest fetched with GET RESPONSE.
    func shortOnlyPieces(_ answer: [UInt8]) -> [UInt8] {
        guard !configuration.extendedLength, answer.count > 258 else { return answer }
        let body = answer.dropLast(2)
        let rest = Array(body.dropFirst(256))
        quirkState.pendingResponse = rest + answer.suffix(2)
        return Array(body.prefix(256)) + [0x61, UInt8(min(rest.count, 256) & 0xFF)]
    }
}
