/// A keyboard-wedge scanner read through evdev: a stream of `struct input_event` records
/// (`linux/input.h`; 24 bytes on 64-bit Linux: seconds and microseconds as 64-bit integers, then
/// type, code and value), key presses turned into MRZ characters by the layout, lines ended by Enter
/// and grouped into an MRZ (``LineGrouper``).
///
/// A scanner types a whole line in a burst; a person types slowly and unevenly. A line counts as
/// scanned when at least 90 % of the intervals between its key presses are at most `maxInterval`;
/// otherwise it is ignored as typed by a person (and nothing of it is kept).
public struct KeyboardWedgeDecoder: ScannerDecoder {
    public static let recordSize = 24
    static let evKey: UInt16 = 1
    static let keyEnter: UInt16 = 28
    static let keyKeypadEnter: UInt16 = 96
    static let shiftKeys: Set<UInt16> = [42, 54]

    public let layout: KeyboardLayout
    /// The longest gap between two key presses of a scanner (default 50 ms; scanners type a
    /// character every 2-20 ms, people every 100 ms or more).
    public let maxInterval: Duration

    private var pending: [UInt8] = []
    private var shiftDown = 0
    private var line: [Character] = []
    private var pressTimes: [Duration] = []
    private var grouper = LineGrouper()

    public init(layout: KeyboardLayout = .us, maxInterval: Duration = .milliseconds(50)) {
        self.layout = layout
        self.maxInterval = maxInterval
    }

    public mutating func feed(_ bytes: [UInt8]) -> [ScannerFrame] {
        pending += bytes
        var out: [ScannerFrame] = []
        var offset = 0
        while pending.count - offset >= Self.recordSize {
            let record = Array(pending[offset..<(offset + Self.recordSize)])
            offset += Self.recordSize
            out += event(record)
        }
        pending.removeFirst(offset)
        return out
    }

    private static func integer<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, as: T.Type) -> T {
        var value: T = 0
        for index in 0..<(T.bitWidth / 8) { value |= T(truncatingIfNeeded: bytes[offset + index]) << (8 * index) }
        return value
    }

    private mutating func event(_ record: [UInt8]) -> [ScannerFrame] {
        let seconds = Self.integer(record, at: 0, as: Int64.self)
        let micros = Self.integer(record, at: 8, as: Int64.self)
        let type = Self.integer(record, at: 16, as: UInt16.self)
        let code = Self.integer(record, at: 18, as: UInt16.self)
        let value = Self.integer(record, at: 20, as: Int32.self)
        guard type == Self.evKey else { return [] }
        if Self.shiftKeys.contains(code) {
            if value == 1 { shiftDown += 1 } else if value == 0 { shiftDown = max(0, shiftDown - 1) }
            return []
        }
        guard value == 1 else { return [] }  // presses only: releases and autorepeat are not characters
        let time = Duration.seconds(seconds) + .microseconds(micros)
        if code == Self.keyEnter || code == Self.keyKeypadEnter {
            return endLine()
        }
        guard let character = layout.character(code: code, shift: shiftDown > 0) else { return [] }
        if line.count >= 64 {
            line.removeAll()
            pressTimes.removeAll()
            return [.malformed(reason: "line longer than 64 characters")]
        }
        line.append(character)
        pressTimes.append(time)
        return []
    }

    private mutating func endLine() -> [ScannerFrame] {
        defer {
            line.removeAll()
            pressTimes.removeAll()
        }
        guard !line.isEmpty else { return [] }
        guard Self.isScannerRhythm(pressTimes, maxInterval: maxInterval) else {
            grouper.reset()
            return [.ignored(kind: "keystrokes typed by a person")]
        }
        return grouper.add(String(line))
    }

    /// At least 90 % of the intervals between consecutive presses within `maxInterval`, none negative.
    static func isScannerRhythm(_ times: [Duration], maxInterval: Duration) -> Bool {
        guard times.count >= 2 else { return false }
        var fast = 0
        for index in 1..<times.count {
            let gap = times[index] - times[index - 1]
            if gap < .zero { return false }
            if gap <= maxInterval { fast += 1 }
        }
        return fast * 10 >= (times.count - 1) * 9
    }
}
