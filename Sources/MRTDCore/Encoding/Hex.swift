extension Collection<UInt8> {
    /// Upper-case hex without separators.
    public var hex: String {
        let digits = Array("0123456789ABCDEF")
        var s = ""
        s.reserveCapacity(count * 2)
        for b in self {
            s.append(digits[Int(b >> 4)])
            s.append(digits[Int(b & 0x0F)])
        }
        return s
    }
}

extension Array where Element == UInt8 {
    /// Parses hex, ignoring spaces and newlines; `nil` on any other character or an odd digit count.
    public init?(hex: String) {
        var out: [UInt8] = []
        var high: UInt8?
        for c in hex.unicodeScalars {
            if c == " " || c == "\n" || c == "\t" { continue }
            guard let v = UInt8(String(c), radix: 16) else { return nil }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        guard high == nil else { return nil }
        self = out
    }
}
