import FoundationEssentials
import MRTDCore
public import MRTDScanners
import MRTDPlatform

/// One MRZ scanner the daemon reads (docs/kiosk.md): `KIND:DEVICE[,option=value...]` on the
/// command line (`--mrz-source`) and in `mrtdd.conf` (`mrz-source = …`, or a `[mrz-source]` section
/// with one key per option).
public struct MRZSourceConfiguration: Sendable, Equatable, CustomStringConvertible {
    public enum Kind: String, Sendable, CaseIterable {
        /// A serial port (RS-232, USB CDC-ACM, USB-serial): termios, a framing.
        case serial
        /// Access-IS OCR readers in HID mode, read through hidraw.
        case hidraw
        /// A keyboard-wedge scanner, read through evdev and grabbed.
        case evdev
    }

    /// The framings of serial scanners (docs/kiosk.md lists the devices and their public sources).
    public enum Framing: String, Sendable, CaseIterable {
        /// DESKO CUTE profile: `<STX>line<CR>line<CR>[line<CR>]<ETX>`.
        case desko
        /// 3M/Thales RTE native: `<SOH> length "OU" <STX> flag lines <ETX> BCC`.
        case rte
        /// Plain lines ended by CR, LF or CR LF.
        case lines
    }

    public enum Parity: String, Sendable, CaseIterable { case none, even, odd }

    public var kind: Kind
    /// The device node, FIFO or a stable link to one (`/dev/serial/by-id/…`); reopened by this path
    /// after the device goes away.
    public var device: String
    /// The reader whose card this source's MRZ pairs with; nil: any reader.
    public var reader: String?
    public var framing = Framing.desko
    public var baud = 9600
    public var parity = Parity.none
    /// evdev: the keyboard layout the scanner types in.
    public var layout = KeyboardLayout.us
    /// evdev: the longest interval between a scanner's key presses, in milliseconds.
    public var keyIntervalMs = 50
    /// hidraw: bytes per input report.
    public var reportSize = 64
    /// hidraw: the report written when a hidraw node is opened (hex; from the device's manual). Empty: none.
    public var enableReport: [UInt8] = []
    /// rte: whether the block check character is verified.
    public var blockCheck = true
    /// A name for events and logs; default `KIND:DEVICE`.
    public var name: String?

    public init(kind: Kind, device: String) {
        self.kind = kind
        self.device = device
    }

    /// The name events and logs use.
    public var label: String { name ?? "\(kind.rawValue):\(device)" }
    public var description: String { label }

    static let bauds: Set<Int> = [1200, 2400, 4800, 9600, 19200, 38400, 57600, 115200, 230400]

    /// `KIND:DEVICE[,option=value...]`.
    public init(parsing spec: String) throws(ConfigurationError) {
        let key = "mrz-source"
        let parts = spec.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces() }
        guard let head = parts.first, let colon = head.firstIndex(of: ":"),
              let kind = Kind(rawValue: String(head[..<colon])) else {
            throw .invalidValue(key, "\(spec) (expected KIND:DEVICE[,option=value...] with KIND serial, hidraw or evdev)")
        }
        let device = String(head[head.index(after: colon)...])
        guard device.hasPrefix("/") else { throw .invalidValue(key, "\(spec) (the device must be an absolute path)") }
        self.init(kind: kind, device: device)
        for option in parts.dropFirst() {
            let pair = option.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces() }
            guard pair.count == 2 else { throw .invalidValue(key, "\(option) (expected option=value)") }
            try set(pair[0], pair[1])
        }
    }

    /// Sets one option (the same names in a `[mrz-source]` section).
    public mutating func set(_ option: String, _ value: String) throws(ConfigurationError) {
        let key = "mrz-source \(option)"
        switch option {
        case "kind":
            guard let kind = Kind(rawValue: value) else { throw .invalidValue(key, value) }
            self.kind = kind
        case "device":
            guard value.hasPrefix("/") else { throw .invalidValue(key, value) }
            device = value
        case "reader": reader = value.isEmpty || value == "any" ? nil : value
        case "framing":
            guard let framing = Framing(rawValue: value) else { throw .invalidValue(key, value) }
            self.framing = framing
        case "baud":
            guard let baud = Int(value), Self.bauds.contains(baud) else { throw .invalidValue(key, value) }
            self.baud = baud
        case "parity":
            guard let parity = Parity(rawValue: value) else { throw .invalidValue(key, value) }
            self.parity = parity
        case "layout":
            guard let layout = KeyboardLayout(rawValue: value) else { throw .invalidValue(key, value) }
            self.layout = layout
        case "key-interval-ms":
            guard let ms = Int(value), (1...1000).contains(ms) else { throw .invalidValue(key, value) }
            keyIntervalMs = ms
        case "report-size":
            guard let size = Int(value), (2...4096).contains(size) else { throw .invalidValue(key, value) }
            reportSize = size
        case "enable-report":
            guard let bytes = Self.hex(value), bytes.count <= 4096 else { throw .invalidValue(key, value) }
            enableReport = bytes
        case "bcc":
            switch value {
            case "verify": blockCheck = true
            case "ignore": blockCheck = false
            default: throw .invalidValue(key, value)
            }
        case "name":
            guard !value.isEmpty, value.count <= 64 else { throw .invalidValue(key, value) }
            name = value
        default: throw .unknownKey(key)
        }
    }

    static func hex(_ text: String) -> [UInt8]? {
        let digits = Array(text.filter { $0 != " " && $0 != ":" })
        guard digits.count % 2 == 0 else { return nil }
        var out: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else { return nil }
            out.append(byte)
        }
        return out
    }

    /// The decoder of this source's protocol.
    func makeDecoder() -> any ScannerDecoder {
        switch kind {
        case .serial:
            switch framing {
            case .desko: DeskoDecoder()
            case .rte: RTEDecoder(verifiesBlockCheck: blockCheck)
            case .lines: LineDecoder()
            }
        case .hidraw: AccessISReportDecoder(reportSize: reportSize)
        case .evdev: KeyboardWedgeDecoder(layout: layout, maxInterval: .milliseconds(keyIntervalMs))
        }
    }
}
