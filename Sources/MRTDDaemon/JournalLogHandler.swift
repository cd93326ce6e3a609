import FoundationEssentials
public import Logging
import MRTDCore
import MRTDPlatform

/// Logs one line per record to stderr with an sd-daemon(3) priority prefix (`<6>` for info), which
/// journald turns into the record's priority; metadata follows as `key=value`. No timestamps: the
/// journal adds them. What is logged is decided by callers, which never pass personal data.
public struct JournalLogHandler: LogHandler {
    public var metadata: Logger.Metadata = [:]
    public var logLevel: Logger.Level
    private let label: String
    private let write: @Sendable (String) -> Void

    /// - Parameter write: where lines go (stderr by default; tests capture them).
    public init(label: String, level: Logger.Level, write: (@Sendable (String) -> Void)? = nil) {
        self.label = label
        self.logLevel = level
        self.write = write ?? { line in StandardError.write(line) }
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// One line per record, whatever the message and metadata hold: control characters (a line feed
    /// followed by `<2>` would forge a record of another priority), C1 controls and bidi overrides
    /// in them are escaped (``TerminalText``).
    public func log(event: LogEvent) {
        var line = "<\(Self.priority(event.level))>\(TerminalText.escaped("\(event.message)"))"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for (key, value) in merged.sorted(by: { $0.key < $1.key }) {
            line += " \(TerminalText.escaped(key))=\(TerminalText.escaped("\(value)"))"
        }
        write(line + "\n")
    }
}
