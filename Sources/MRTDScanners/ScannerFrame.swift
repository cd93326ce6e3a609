/// The MRZ lines one scanner frame carried, as read (not yet checked). `description` is redacted:
/// the lines are personal data and must never reach a log.
public struct ScannedMRZ: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The lines in print order, framing bytes and padding removed.
    public let lines: [String]

    public init(lines: [String]) {
        self.lines = lines
    }

    public var description: String { "ScannedMRZ(\(lines.count) lines, <redacted>)" }
    public var debugDescription: String { description }
    /// No children: `dump` must not print the lines either.
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// What a decoder made of the bytes a scanner sent. Reasons and kinds never hold MRZ characters.
public enum ScannerFrame: Sendable, Equatable {
    /// A complete frame of MRZ lines.
    case mrz(ScannedMRZ)
    /// A frame recognised and ignored: a magnetic stripe, a barcode, a frame type the decoder does
    /// not know, keystrokes typed by a person.
    case ignored(kind: String)
    /// A line error: a frame cut short by the next one, a wrong block check, an overlong frame.
    case malformed(reason: String)
}

/// A byte-stream decoder of one scanner protocol: bytes in (in pieces of any size: a frame split
/// across reads, noise between frames), frames out.
public protocol ScannerDecoder: Sendable {
    /// Consumes `bytes` and returns the frames they completed, in order.
    mutating func feed(_ bytes: [UInt8]) -> [ScannerFrame]
}

/// ASCII control characters the framings use.
enum Control {
    static let soh: UInt8 = 0x01
    static let stx: UInt8 = 0x02
    static let etx: UInt8 = 0x03
    static let lf: UInt8 = 0x0A
    static let cr: UInt8 = 0x0D
    static let fs: UInt8 = 0x1C
    static let gs: UInt8 = 0x1D
}

/// The longest frame any decoder buffers; beyond it the frame is dropped as malformed (a scanner
/// that never ends a frame cannot grow the daemon's memory).
let maxFrameBytes = 1024

/// Splits frame text into lines at CR or LF, dropping empty lines and control characters.
func splitLines(_ bytes: some Sequence<UInt8>, keepEmpty: Bool = false) -> [String] {
    var lines: [String] = []
    var current: [UInt8] = []
    for byte in bytes {
        if byte == Control.cr || byte == Control.lf {
            if keepEmpty || !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
            current.removeAll()
        } else if byte >= 0x20 && byte < 0x7F {
            current.append(byte)
        }
    }
    if !current.isEmpty { lines.append(String(decoding: current, as: UTF8.self)) }
    return lines
}
