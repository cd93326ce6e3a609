/// Text that came from input (a chip, a bundle, an archive, a client, a scanner) made safe to print
/// on a terminal or to write into a log line: C0 and C1 control characters, DEL and the Unicode
/// bidirectional controls are shown escaped (`\u{1B}`), so no escape sequence, carriage return or
/// line feed, and no right-to-left override from input can rewrite what an operator sees or forge
/// a record of its own. Everything else passes unchanged.
public enum TerminalText {
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscaping) else { return text }
        var out = ""
        out.unicodeScalars.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            if needsEscaping(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// C0 (U+0000-001F), DEL (U+007F), C1 (U+0080-009F), and the bidirectional formatting
    /// characters: ALM (U+061C), LRM/RLM (U+200E-200F), the embeddings and overrides
    /// (U+202A-202E) and the isolates (U+2066-2069).
    static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E...0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
