/// DESKO's CUTE profile (DESKO doc. 7 000 310 001, "Protocol Description for DESKO Devices According
/// to Misc. Reader Interface Specification for CUTE System"): `<STX> line <CR> line <CR> [line <CR>] <ETX>`.
/// Bytes outside a frame are noise; a new `<STX>` before the `<ETX>` ends the frame before it as malformed.
public struct DeskoDecoder: ScannerDecoder {
    private var frame: [UInt8]?

    public init() {}

    public mutating func feed(_ bytes: [UInt8]) -> [ScannerFrame] {
        var out: [ScannerFrame] = []
        for byte in bytes {
            switch byte {
            case Control.stx:
                if frame != nil { out.append(.malformed(reason: "frame cut short by the next <STX>")) }
                frame = []
            case Control.etx:
                guard let body = frame else { continue }
                frame = nil
                let lines = splitLines(body)
                out.append(lines.isEmpty ? .ignored(kind: "empty frame") : .mrz(ScannedMRZ(lines: lines)))
            default:
                guard frame != nil else { continue }
                frame!.append(byte)
                if frame!.count > maxFrameBytes {
                    frame = nil
                    out.append(.malformed(reason: "frame longer than \(maxFrameBytes) bytes"))
                }
            }
        }
        return out
    }
}
