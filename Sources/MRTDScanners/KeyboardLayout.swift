/// Keyboard layouts for a keyboard-wedge scanner: which characters of the MRZ alphabet
/// (`A-Z`, `0-9`, `<`) a Linux key code gives, unshifted and shifted. Only those characters matter;
/// every other key is ignored.
public enum KeyboardLayout: String, Sendable, CaseIterable {
    /// US QWERTY (`<` is Shift + comma).
    case us
    /// German QWERTZ (Y and Z swapped; `<` the key left of Y, code 86).
    case de
    /// French AZERTY (A/Q and Z/W swapped, M right of L, digits shifted; `<` on key 86).
    case fr

    /// `linux/input-event-codes.h`: the letter keys in QWERTY order.
    private static let qwertyLetters: [UInt16: Character] = [
        16: "Q", 17: "W", 18: "E", 19: "R", 20: "T", 21: "Y", 22: "U", 23: "I", 24: "O", 25: "P",
        30: "A", 31: "S", 32: "D", 33: "F", 34: "G", 35: "H", 36: "J", 37: "K", 38: "L",
        44: "Z", 45: "X", 46: "C", 47: "V", 48: "B", 49: "N", 50: "M",
    ]
    /// KEY_1 … KEY_0.
    private static let digits: [UInt16: Character] = [
        2: "1", 3: "2", 4: "3", 5: "4", 6: "5", 7: "6", 8: "7", 9: "8", 10: "9", 11: "0",
    ]
    /// The keypad's digits (KEY_KP0 … KEY_KP9), the same on every layout.
    private static let keypad: [UInt16: Character] = [
        82: "0", 79: "1", 80: "2", 81: "3", 75: "4", 76: "5", 77: "6", 71: "7", 72: "8", 73: "9",
    ]
    static let keyComma: UInt16 = 51
    static let key102nd: UInt16 = 86

    /// The MRZ character of a key press, or nil for keys outside the MRZ alphabet. Letters come
    /// out in upper case whatever the shift state (scanners differ in sending Shift).
    public func character(code: UInt16, shift: Bool) -> Character? {
        if let digit = Self.keypad[code] { return digit }
        switch self {
        case .us:
            if code == Self.keyComma { return shift ? "<" : nil }
            if let letter = Self.qwertyLetters[code] { return letter }
            return shift ? nil : Self.digits[code]
        case .de:
            if code == Self.key102nd { return shift ? nil : "<" }
            if code == 21 { return "Z" }
            if code == 44 { return "Y" }
            if let letter = Self.qwertyLetters[code] { return letter }
            return shift ? nil : Self.digits[code]
        case .fr:
            if code == Self.key102nd { return shift ? nil : "<" }
            switch code {
            case 16: return "A"
            case 30: return "Q"
            case 17: return "Z"
            case 44: return "W"
            case 39: return "M"
            case 50: return nil  // the comma key on AZERTY
            default: break
            }
            if let letter = Self.qwertyLetters[code] { return letter }
            return shift ? Self.digits[code] : nil
        }
    }
}
