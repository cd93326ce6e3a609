/// Access-IS OCR readers (USB vendor 0x0DB5) in HID mode, read through hidraw: fixed-size input
/// reports whose first byte is the number of data bytes that follow (bit 7 a flow-control flag,
/// not part of the length), the rest of the report padding. The data bytes of successive reports
/// form a stream of frames `<FS> type … <ETX> <GS>` (`1C tt … 03 1D`): type `<STX>` (0x02) carries
/// OCR data, lines separated by `<CR>`; every other type (magnetic stripe, barcode, anything
/// unknown) is recognised and ignored.
///
/// A report arrives whole from a hidraw node; through a pipe or FIFO the stream is cut anywhere, so
/// reports are reassembled by their size first.
public struct AccessISReportDecoder: ScannerDecoder {
    /// Bytes per input report (the device's report descriptor; 64 on the OCR readers).
    public let reportSize: Int
    private var report: [UInt8] = []
    /// The current frame: its type byte and data, or nil outside a frame.
    private var frame: (type: UInt8?, data: [UInt8])?

    public init(reportSize: Int = 64) {
        self.reportSize = max(2, reportSize)
    }

    /// The flow-control flag of a report's first byte.
    public static let flowControlFlag: UInt8 = 0x80

    public mutating func feed(_ bytes: [UInt8]) -> [ScannerFrame] {
        var out: [ScannerFrame] = []
        for byte in bytes {
            report.append(byte)
            if report.count == reportSize {
                let length = min(Int(report[0] & ~Self.flowControlFlag), reportSize - 1)
                for data in report[1..<(1 + length)] { out += stream(data) }
                report.removeAll(keepingCapacity: true)
            }
        }
        return out
    }

    private mutating func stream(_ byte: UInt8) -> [ScannerFrame] {
        guard var current = frame else {
            if byte == Control.fs { frame = (nil, []) }
            return []
        }
        guard let type = current.type else {
            current.type = byte
            frame = current
            return []
        }
        if byte == Control.gs, current.data.last == Control.etx {
            frame = nil
            let body = current.data.dropLast()
            guard type == Control.stx else {
                return [.ignored(kind: Self.name(ofType: type))]
            }
            let lines = splitLines(body)
            return [lines.isEmpty ? .ignored(kind: "empty OCR frame") : .mrz(ScannedMRZ(lines: lines))]
        }
        if byte == Control.fs, current.data.last != Control.etx {
            // A new frame before this one ended.
            frame = (nil, [])
            return [.malformed(reason: "frame cut short by the next <FS>")]
        }
        current.data.append(byte)
        if current.data.count > maxFrameBytes {
            frame = nil
            return [.malformed(reason: "frame longer than \(maxFrameBytes) bytes")]
        }
        frame = current
        return []
    }

    static func name(ofType type: UInt8) -> String {
        let hex = String(type, radix: 16, uppercase: true)
        return "frame of type 0x\(type < 0x10 ? "0" : "")\(hex) (not OCR: magnetic stripe, barcode or unknown)"
    }
}
