/// Parses upper- or lower-case hex, ignoring spaces; traps on malformed vectors.
func hex(_ text: String) -> [UInt8] {
    let digits = text.filter { !$0.isWhitespace }
    precondition(digits.count % 2 == 0, "odd hex length")
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = digits.startIndex
    while index < digits.endIndex {
        let next = digits.index(index, offsetBy: 2)
        bytes.append(UInt8(digits[index..<next], radix: 16)!)
        index = next
    }
    return bytes
}

extension Array where Element == UInt8 {
    /// Upper-case hex, as VECTORS.md prints it.
    var hexString: String { map { String($0, radix: 16, uppercase: true).leftPadded() }.joined() }
}

private extension String {
    func leftPadded() -> String { count == 1 ? "0" + self : self }
}
