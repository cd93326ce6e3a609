/// Groups MRZ lines that arrive one at a time (plain CR/LF lines, a keyboard wedge) into a whole MRZ:
/// lines of one length are collected until the format they belong to is complete (2 × 44 TD3,
/// 2 × 36 TD2, 3 × 30 TD1). A line of another length starts a new group; the unfinished group
/// before it is reported as malformed, and a line of no MRZ length as ignored.
struct LineGrouper: Sendable {
    private var group: [String] = []

    mutating func add(_ line: String) -> [ScannerFrame] {
        let count = line.count
        let needed: Int
        switch count {
        case 44, 36: needed = 2
        case 30: needed = 3
        default:
            return [.ignored(kind: "line of \(count) characters (no MRZ format)")]
        }
        var out: [ScannerFrame] = []
        if let first = group.first, first.count != count {
            out.append(.malformed(reason: "MRZ cut short: \(group.count) of its lines"))
            group.removeAll()
        }
        group.append(line)
        if group.count == needed {
            out.append(.mrz(ScannedMRZ(lines: group)))
            group.removeAll()
        }
        return out
    }

    /// Drops an unfinished group (the source went away).
    mutating func reset() { group.removeAll() }
}

/// Plain lines ended by CR, LF or CR LF (scanners in "text" mode), grouped into an MRZ by
/// ``LineGrouper``. Other control bytes are noise.
public struct LineDecoder: ScannerDecoder {
    private var line: [UInt8] = []
    private var grouper = LineGrouper()

    public init() {}

    public mutating func feed(_ bytes: [UInt8]) -> [ScannerFrame] {
        var out: [ScannerFrame] = []
        for byte in bytes {
            if byte == Control.cr || byte == Control.lf {
                if !line.isEmpty {
                    out += grouper.add(String(decoding: line, as: UTF8.self))
                    line.removeAll()
                }
            } else if byte >= 0x20 && byte < 0x7F {
                if line.count >= maxFrameBytes {
                    line.removeAll()
                    out.append(.malformed(reason: "line longer than \(maxFrameBytes) bytes"))
                }
                line.append(byte)
            }
        }
        return out
    }
}
