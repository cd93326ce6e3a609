/// The status bytes SW1-SW2 ending every response (ISO/IEC 7816-4 §5.1.3, Tables 5 and 6).
///
/// Keeps the raw value; `description` adds readable text, e.g. `6A82 (file or application not found)`.
public struct StatusWord: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible {
    public let rawValue: UInt16

    public init(rawValue: UInt16) { self.rawValue = rawValue }

    public init(sw1: UInt8, sw2: UInt8) { self.rawValue = UInt16(sw1) << 8 | UInt16(sw2) }

    public var sw1: UInt8 { UInt8(rawValue >> 8) }
    public var sw2: UInt8 { UInt8(rawValue & 0xFF) }

    /// Normal processing: `9000` only.
    public var isSuccess: Bool { rawValue == 0x9000 }

    /// Whether SW1 is `62` or `63` (warning: the command was processed).
    public var isWarning: Bool { sw1 == 0x62 || sw1 == 0x63 }

    /// For `6Cxx`: the exact `Ne` the chip asks for (`xx == 00` means 256).
    public var correctLe: Int? {
        guard sw1 == 0x6C else { return nil }
        return sw2 == 0 ? 256 : Int(sw2)
    }

    /// For `61xx`: the number of response bytes still available (`xx == 00`: 256 or more).
    public var bytesRemaining: Int? {
        guard sw1 == 0x61 else { return nil }
        return sw2 == 0 ? 256 : Int(sw2)
    }

    /// For `63Cx`: the retry counter `x`.
    public var triesLeft: Int? {
        guard sw1 == 0x63, sw2 & 0xF0 == 0xC0 else { return nil }
        return Int(sw2 & 0x0F)
    }

    public static let success = StatusWord(rawValue: 0x9000)
    public static let endOfFileReached = StatusWord(rawValue: 0x6282)
    public static let authenticationFailed = StatusWord(rawValue: 0x6300)
    public static let wrongLength = StatusWord(rawValue: 0x6700)
    public static let securityStatusNotSatisfied = StatusWord(rawValue: 0x6982)
    public static let authenticationMethodBlocked = StatusWord(rawValue: 0x6983)
    public static let referenceDataNotUsable = StatusWord(rawValue: 0x6984)
    public static let conditionsNotSatisfied = StatusWord(rawValue: 0x6985)
    public static let smDataObjectsMissing = StatusWord(rawValue: 0x6987)
    public static let smDataObjectsIncorrect = StatusWord(rawValue: 0x6988)
    public static let incorrectData = StatusWord(rawValue: 0x6A80)
    public static let functionNotSupported = StatusWord(rawValue: 0x6A81)
    public static let fileNotFound = StatusWord(rawValue: 0x6A82)
    public static let incorrectP1P2 = StatusWord(rawValue: 0x6A86)
    public static let lcInconsistentWithP1P2 = StatusWord(rawValue: 0x6A87)
    public static let referencedDataNotFound = StatusWord(rawValue: 0x6A88)
    public static let wrongParametersOffset = StatusWord(rawValue: 0x6B00)
    public static let instructionNotSupported = StatusWord(rawValue: 0x6D00)
    public static let classNotSupported = StatusWord(rawValue: 0x6E00)
    public static let noPreciseDiagnosis = StatusWord(rawValue: 0x6F00)

    /// The four hex digits, upper case: `6A82`.
    public var hex: String {
        let s = String(rawValue, radix: 16, uppercase: true)
        return String(repeating: "0", count: 4 - s.count) + s
    }

    public var description: String { "\(hex) (\(meaning))" }

    /// Readable meaning per ISO/IEC 7816-4 §5.1.3.
    public var meaning: String {
        switch (sw1, sw2) {
        case (0x90, 0x00): return "normal processing"
        case (0x61, let x): return "\(x == 0 ? 256 : Int(x)) bytes still available"
        case (0x62, 0x00): return "warning: no information given, memory unchanged"
        case (0x62, 0x81): return "warning: part of returned data may be corrupted"
        case (0x62, 0x82): return "warning: end of file or record reached before reading Ne bytes"
        case (0x62, 0x83): return "warning: selected file deactivated"
        case (0x62, 0x84): return "warning: file control information not correctly formatted"
        case (0x62, 0x85): return "warning: selected file in termination state"
        case (0x62, 0x86): return "warning: no input data available from a sensor"
        case (0x62, _): return "warning: memory unchanged"
        case (0x63, 0x00): return "verification or authentication failed"
        case (0x63, 0x81): return "warning: file filled up by the last write"
        case (0x63, let x) where x & 0xF0 == 0xC0:
            return "verification failed, \(x & 0x0F) tries left"
        case (0x63, _): return "warning: memory changed"
        case (0x64, 0x01): return "execution error: immediate response required by the card"
        case (0x64, _): return "execution error: memory unchanged"
        case (0x65, 0x81): return "execution error: memory failure"
        case (0x65, _): return "execution error: memory changed"
        case (0x66, _): return "security-related issue"
        case (0x67, 0x00): return "wrong length"
        case (0x67, _): return "wrong length (\(hexByte(sw2)))"
        case (0x68, 0x81): return "logical channel not supported"
        case (0x68, 0x82): return "secure messaging not supported"
        case (0x68, 0x83): return "last command of the chain expected"
        case (0x68, 0x84): return "command chaining not supported"
        case (0x68, _): return "functions in CLA not supported"
        case (0x69, 0x81): return "command incompatible with file structure"
        case (0x69, 0x82): return "security status not satisfied"
        case (0x69, 0x83): return "authentication method blocked"
        case (0x69, 0x84): return "reference data not usable"
        case (0x69, 0x85): return "conditions of use not satisfied"
        case (0x69, 0x86): return "command not allowed (no current EF)"
        case (0x69, 0x87): return "expected secure messaging data objects missing"
        case (0x69, 0x88): return "incorrect secure messaging data objects"
        case (0x69, _): return "command not allowed"
        case (0x6A, 0x80): return "incorrect parameters in the command data field"
        case (0x6A, 0x81): return "function not supported"
        case (0x6A, 0x82): return "file or application not found"
        case (0x6A, 0x83): return "record not found"
        case (0x6A, 0x84): return "not enough memory space in the file"
        case (0x6A, 0x85): return "Nc inconsistent with TLV structure"
        case (0x6A, 0x86): return "incorrect parameters P1-P2"
        case (0x6A, 0x87): return "Nc inconsistent with parameters P1-P2"
        case (0x6A, 0x88): return "referenced data or reference data not found"
        case (0x6A, 0x89): return "file already exists"
        case (0x6A, 0x8A): return "DF name already exists"
        case (0x6A, _): return "wrong parameters P1-P2"
        case (0x6B, _): return "wrong parameters P1-P2 (offset outside the EF)"
        case (0x6C, let x): return "wrong Le, exact length \(x == 0 ? 256 : Int(x))"
        case (0x6D, _): return "instruction code not supported or invalid"
        case (0x6E, _): return "class not supported"
        case (0x6F, _): return "no precise diagnosis"
        case (0x90...0x9F, _): return "application-specific status"
        default: return "unknown status word"
        }
    }
}

private func hexByte(_ b: UInt8) -> String {
    let s = String(b, radix: 16, uppercase: true)
    return s.count == 1 ? "0" + s : s
}
