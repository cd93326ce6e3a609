import Testing
@testable import MRTDScanners

/// Builds `struct input_event` records as the kernel writes them on 64-bit Linux.
struct EventRecorder {
    var time: Duration = .seconds(1_700_000_000)
    var out: [UInt8] = []

    static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        (0..<(T.bitWidth / 8)).map { UInt8(truncatingIfNeeded: value >> (8 * $0)) }
    }

    mutating func record(type: UInt16, code: UInt16, value: Int32) {
        let (seconds, attoseconds) = time.components
        out += Self.le(Int64(seconds)) + Self.le(Int64(attoseconds / 1_000_000_000_000)) + Self.le(type) + Self.le(code) + Self.le(value)
    }

    mutating func key(_ code: UInt16, shift: Bool = false, after gap: Duration) {
        time += gap
        if shift { record(type: 1, code: 42, value: 1) }
        record(type: 1, code: code, value: 1)
        record(type: 0, code: 0, value: 0)  // EV_SYN
        record(type: 1, code: code, value: 0)
        if shift { record(type: 1, code: 42, value: 0) }
    }

    /// Types `line` then Enter on the US layout, one key every `gap`.
    mutating func type(_ line: String, gap: Duration) {
        for c in line { let (code, shift) = Self.usKey(c); key(code, shift: shift, after: gap) }
        key(28, after: gap)
    }

    static func usKey(_ c: Character) -> (UInt16, Bool) {
        let qwerty: [Character: UInt16] = [
            "Q": 16, "W": 17, "E": 18, "R": 19, "T": 20, "Y": 21, "U": 22, "I": 23, "O": 24, "P": 25,
            "A": 30, "S": 31, "D": 32, "F": 33, "G": 34, "H": 35, "J": 36, "K": 37, "L": 38,
            "Z": 44, "X": 45, "C": 46, "V": 47, "B": 48, "N": 49, "M": 50,
        ]
        if c == "<" { return (51, true) }
        if c == "0" { return (11, false) }
        if let digit = c.wholeNumberValue { return (UInt16(1 + digit), false) }
        return (qwerty[c]!, true)
    }
}

@Suite struct KeyboardWedgeDecoderTests {
    @Test(arguments: [1, 24, 100, 100_000])
    func scannerBurstsBecomeAnMRZ(chunk: Int) {
        var recorder = EventRecorder()
        for line in Specimen.td3 { recorder.type(line, gap: .milliseconds(4)) }
        for line in Specimen.td1 { recorder.type(line, gap: .milliseconds(8)) }
        #expect(decode(KeyboardWedgeDecoder(), recorder.out, chunk: chunk).map(\.lines) == [Specimen.td3, Specimen.td1])
    }

    @Test func aPersonTypingIsIgnored() {
        var recorder = EventRecorder()
        for line in Specimen.td3 { recorder.type(line, gap: .milliseconds(180)) }
        let frames = decode(KeyboardWedgeDecoder(), recorder.out, chunk: 48)
        #expect(frames == [.ignored(kind: "keystrokes typed by a person"), .ignored(kind: "keystrokes typed by a person")])
    }

    @Test func theLayoutIsASetting() {
        // German QWERTZ: the key labelled Z sits where US has Y (code 21); '<' is key 86 unshifted.
        var recorder = EventRecorder()
        recorder.key(21, after: .milliseconds(5))
        recorder.key(86, after: .milliseconds(5))
        recorder.key(44, after: .milliseconds(5))
        recorder.key(28, after: .milliseconds(5))
        var german = KeyboardWedgeDecoder(layout: .de)
        #expect(german.feed(recorder.out) == [.ignored(kind: "line of 3 characters (no MRZ format)")])
        #expect(KeyboardLayout.de.character(code: 21, shift: true) == "Z")
        #expect(KeyboardLayout.de.character(code: 86, shift: false) == "<")
        #expect(KeyboardLayout.us.character(code: 21, shift: true) == "Y")
        #expect(KeyboardLayout.us.character(code: 51, shift: true) == "<")
        #expect(KeyboardLayout.fr.character(code: 2, shift: true) == "1")
        #expect(KeyboardLayout.fr.character(code: 2, shift: false) == nil)
        #expect(KeyboardLayout.fr.character(code: 16, shift: true) == "A")
    }

    @Test func germanLayoutScanDecodes() {
        // A scanner on a QWERTZ keyboard: the decoder set to `de` turns its key codes back into the MRZ.
        var recorder = EventRecorder()
        for line in Specimen.td2 {
            for c in line {
                var (code, shift) = EventRecorder.usKey(c)
                if c == "<" { (code, shift) = (86, false) }
                if c == "Z" { code = 21 } else if c == "Y" { code = 44 }
                recorder.key(code, shift: shift, after: .milliseconds(3))
            }
            recorder.key(28, after: .milliseconds(3))
        }
        #expect(decode(KeyboardWedgeDecoder(layout: .de), recorder.out, chunk: 7).map(\.lines) == [Specimen.td2])
    }

    @Test func otherEventTypesAndAutorepeatAreNotCharacters() {
        var recorder = EventRecorder()
        recorder.record(type: 4, code: 4, value: 458_756)  // EV_MSC scan code
        recorder.record(type: 1, code: 30, value: 2)  // autorepeat of A
        recorder.type(Specimen.td2[0], gap: .milliseconds(2))
        recorder.type(Specimen.td2[1], gap: .milliseconds(2))
        #expect(decode(KeyboardWedgeDecoder(), recorder.out, chunk: 24).map(\.lines) == [Specimen.td2])
    }
}
