/// 3M (now Thales) RTE Native (3M RTE6701-OEM Integration Manual §9.1):
/// `<SOH> [length word, low byte first] "O" "U" <STX> [flag] [optical data] <ETX> [BCC]`, the optical
/// data three lines each ended by `<CR>`, a missing line sent as a bare `<CR>` (the bottom line is
/// always the last), lines padded with `_` to the format's length.
///
/// The block check is taken as the XOR of every byte after `<SOH>` up to and including `<ETX>` (the
/// usual BCC of SOH/STX/ETX blocks); a frame whose check differs is malformed. The length word is
/// not relied on (the frame is found by its `<ETX>`). Blocks of other devices or types than `"OU"`
/// are ignored.
public struct RTEDecoder: ScannerDecoder {
    private enum State {
        case idle
        /// After `<SOH>`: the header bytes so far.
        case header([UInt8])
        /// After `<STX>`: header and text so far.
        case text(header: [UInt8], text: [UInt8])
        /// After `<ETX>`: waiting for the BCC.
        case check(header: [UInt8], text: [UInt8])
    }
    private var state = State.idle
    /// Whether the block check is verified (`bcc=ignore` turns it off for a device that computes it otherwise).
    public var verifiesBlockCheck: Bool

    public init(verifiesBlockCheck: Bool = true) {
        self.verifiesBlockCheck = verifiesBlockCheck
    }

    public mutating func feed(_ bytes: [UInt8]) -> [ScannerFrame] {
        var out: [ScannerFrame] = []
        for byte in bytes {
            switch state {
            case .idle:
                if byte == Control.soh { state = .header([]) }
            case .header(var header):
                if byte == Control.soh {
                    out.append(.malformed(reason: "block cut short by the next <SOH>"))
                    state = .header([])
                } else if byte == Control.stx {
                    state = .text(header: header, text: [])
                } else if header.count >= 8 {
                    out.append(.malformed(reason: "block header too long"))
                    state = .idle
                } else {
                    header.append(byte)
                    state = .header(header)
                }
            case .text(let header, var text):
                if byte == Control.etx {
                    state = .check(header: header, text: text)
                } else if byte == Control.soh {
                    out.append(.malformed(reason: "block cut short by the next <SOH>"))
                    state = .header([])
                } else if text.count >= maxFrameBytes {
                    out.append(.malformed(reason: "block longer than \(maxFrameBytes) bytes"))
                    state = .idle
                } else {
                    text.append(byte)
                    state = .text(header: header, text: text)
                }
            case .check(let header, let text):
                state = .idle
                out.append(Self.frame(header: header, text: text, bcc: byte, verify: verifiesBlockCheck))
            }
        }
        return out
    }

    /// The block check: XOR of header, `<STX>`, text and `<ETX>`.
    public static func blockCheck(header: [UInt8], text: [UInt8]) -> UInt8 {
        (header + [Control.stx] + text + [Control.etx]).reduce(0, ^)
    }

    private static func frame(header: [UInt8], text: [UInt8], bcc: UInt8, verify: Bool) -> ScannerFrame {
        if verify, blockCheck(header: header, text: text) != bcc {
            return .malformed(reason: "block check character wrong")
        }
        guard header.count == 4, header[2] == UInt8(ascii: "O"), header[3] == UInt8(ascii: "U") else {
            return .ignored(kind: "block of another device or type")
        }
        // The flag byte first, then the lines (bare CRs for missing lines; '_' padding).
        let lines = splitLines(text.dropFirst(), keepEmpty: true)
            .map { String($0.reversed().drop(while: { $0 == "_" }).reversed()) }
            .filter { !$0.isEmpty }
        return lines.isEmpty ? .ignored(kind: "empty block") : .mrz(ScannedMRZ(lines: lines))
    }
}
