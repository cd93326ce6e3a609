@testable import MRTDScanners

/// The ICAO specimen MRZs (Doc 9303-4 Appendix, 9303-5, 9303-6), as in MRTDCoreTests.
enum Specimen {
    static let td3 = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<",
                      "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
    static let td1 = ["I<UTOD231458907<<<<<<<<<<<<<<<",
                      "7408122F1204159UTO<<<<<<<<<<<6",
                      "ERIKSSON<<ANNA<MARIA<<<<<<<<<<"]
    static let td2 = ["I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<",
                      "D231458907UTO7408122F1204159<<<<<<<6"]
}

func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

/// Replaces one character (0-based line and column).
func replacing(_ lines: [String], line: Int, column: Int, with c: Character) -> [String] {
    var out = lines
    var chars = Array(out[line])
    chars[column] = c
    out[line] = String(chars)
    return out
}

/// Feeds `stream` to a decoder in pieces of `chunk` bytes and collects what comes out.
func decode<D: ScannerDecoder>(_ decoder: D, _ stream: [UInt8], chunk: Int) -> [ScannerFrame] {
    var decoder = decoder
    var out: [ScannerFrame] = []
    var index = 0
    while index < stream.count {
        let end = min(stream.count, index + chunk)
        out += decoder.feed(Array(stream[index..<end]))
        index = end
    }
    return out
}

extension ScannerFrame {
    var lines: [String]? {
        if case .mrz(let scanned) = self { return scanned.lines }
        return nil
    }
    var isMalformed: Bool {
        if case .malformed = self { return true }
        return false
    }
    var isIgnored: Bool {
        if case .ignored = self { return true }
        return false
    }
}

enum Frames {
    static let stx = "\u{02}", etx = "\u{03}", cr = "\r", soh = "\u{01}"

    static func desko(_ lines: [String]) -> [UInt8] {
        bytes(stx + lines.map { $0 + cr }.joined() + etx)
    }

    /// A 3M RTE native block: lines padded with `_` to `width`, three line slots (missing ones bare CR).
    static func rte(_ lines: [String], width: Int, flag: UInt8 = 0x30, bcc: UInt8? = nil, device: String = "OU") -> [UInt8] {
        var slots = lines.map { $0 + String(repeating: "_", count: max(0, width - $0.count)) }
        while slots.count < 3 { slots.insert("", at: 0) }
        let text = [flag] + bytes(slots.map { $0 + cr }.joined())
        let length = UInt16(text.count + 6)
        let header = [UInt8(length & 0xFF), UInt8(length >> 8)] + bytes(device)
        let check = bcc ?? RTEDecoder.blockCheck(header: header, text: text)
        return [0x01] + header + [0x02] + text + [0x03, check]
    }

    /// Access-IS reports of `size` bytes carrying `payload` (at most size-1 data bytes each).
    static func accessIS(_ payload: [UInt8], size: Int = 64, flowControl: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < payload.count {
            let end = min(payload.count, index + size - 1)
            var report = [UInt8(end - index) | (flowControl ? 0x80 : 0)] + payload[index..<end]
            report += [UInt8](repeating: 0, count: size - report.count)
            out += report
            index = end
        }
        return out
    }

    static func accessISFrame(type: UInt8, _ body: [UInt8]) -> [UInt8] { [0x1C, type] + body + [0x03, 0x1D] }
}
