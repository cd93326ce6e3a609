/// DER content bytes of an OBJECT IDENTIFIER (X.690 §8.19) from its dotted form.
public enum ObjectIdentifierContent {
    /// nil when the text is not a dotted OID (at least two arcs, the first 0, 1 or 2).
    public static func encode(_ dotted: String) -> [UInt8]? {
        let parts = dotted.split(separator: ".")
        let arcs = parts.compactMap { UInt64($0) }
        guard arcs.count >= 2, arcs.count == parts.count, arcs[0] <= 2 else { return nil }
        var out: [UInt8] = []
        for arc in [arcs[0] * 40 + arcs[1]] + arcs.dropFirst(2) {
            var chunk: [UInt8] = [UInt8(arc & 0x7F)]
            var rest = arc >> 7
            while rest > 0 {
                chunk.insert(UInt8(rest & 0x7F) | 0x80, at: 0)
                rest >>= 7
            }
            out += chunk
        }
        return out
    }

    /// The dotted form of DER content bytes; nil when they are not a valid OID encoding.
    public static func dotted(_ content: [UInt8]) -> String? {
        guard !content.isEmpty, content.last! & 0x80 == 0 else { return nil }
        var arcs: [UInt64] = []
        var value: UInt64 = 0
        var start = true
        for byte in content {
            // X.690 §8.19.2: no leading 0x80 in a subidentifier; 9 septets fit 63 bits.
            if start && byte == 0x80 { return nil }
            guard value >> 56 == 0 else { return nil }
            value = value << 7 | UInt64(byte & 0x7F)
            start = byte & 0x80 == 0
            if start {
                arcs.append(value)
                value = 0
            }
        }
        let first = min(arcs[0] / 40, 2)
        let parts = [first, arcs[0] - first * 40] + arcs.dropFirst()
        return parts.map(String.init).joined(separator: ".")
    }
}
