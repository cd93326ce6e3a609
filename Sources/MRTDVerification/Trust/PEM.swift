import FoundationEssentials
import MRTDCore
import MRTDPlatform

/// RFC 7468 textual encoding: `-----BEGIN LABEL-----` … base64 … `-----END LABEL-----`.
enum PEM {
    struct Block {
        var label: String
        var der: [UInt8]
    }

    /// The text when `bytes` look like PEM (ASCII with a BEGIN line), else nil.
    static func textIfPEM(_ bytes: [UInt8]) -> String? {
        guard bytes.count > 10, !bytes.prefix(64).contains(where: { $0 == 0 || $0 > 0x7E && $0 < 0xA0 }) else { return nil }
        let text = String(decoding: bytes, as: UTF8.self)
        return text.contains("-----BEGIN ") ? text : nil
    }

    /// Every well-formed block, in order; malformed blocks are skipped.
    static func blocks(_ text: String) -> [Block] {
        var out: [Block] = []
        var label: String?
        var body = ""
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
            let line = rawLine.trimmingSpaces()
            if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----") {
                label = String(line.dropFirst(11).dropLast(5))
                body = ""
            } else if line.hasPrefix("-----END "), let current = label {
                if let data = Data(base64Encoded: body, options: .ignoreUnknownCharacters) {
                    out.append(Block(label: current, der: [UInt8](data)))
                }
                label = nil
            } else if label != nil {
                body += line
            }
        }
        return out
    }
}

/// RFC 2849 LDIF, as the ICAO PKD publishes it: attributes with `:` (text) or `::` (base64)
/// values, continuation lines starting with one space, `#` comments.
enum LDIF {
    struct Attribute {
        var name: String
        var text: String?
        var base64: String?

        /// The decoded value of a `::` attribute.
        var binaryValue: [UInt8]? {
            guard let base64, let data = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else { return nil }
            return [UInt8](data)
        }
    }

    static func attributes(_ text: String) -> [Attribute] {
        var logical: [String] = []
        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            var line = Substring(rawLine)
            if line.hasSuffix("\r") { line = line.dropLast() }
            if line.hasPrefix(" "), !logical.isEmpty {
                logical[logical.count - 1] += line.dropFirst()
            } else if !line.hasPrefix("#") {
                logical.append(String(line))
            }
        }
        var out: [Attribute] = []
        for line in logical {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let rest = line[line.index(after: colon)...]
            if rest.hasPrefix(":") {
                out.append(Attribute(name: name, base64: rest.dropFirst().trimmingSpaces()))
            } else {
                out.append(Attribute(name: name, text: rest.trimmingSpaces()))
            }
        }
        return out
    }
}
