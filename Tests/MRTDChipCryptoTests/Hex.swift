/// Parses upper- or lower-case hex, ignoring spaces; traps on malformed vectors.
func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.filter { !$0.isWhitespace }.utf8)
    precondition(digits.count % 2 == 0, "odd hex length")
    return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(decoding: digits[$0..<($0 + 2)], as: UTF8.self), radix: 16)! }
}

extension Array where Element == UInt8 {
    /// Upper-case hex, as VECTORS.md prints it.
    var hexString: String { map { ($0 < 16 ? "0" : "") + String($0, radix: 16, uppercase: true) }.joined() }
}

/// A random source that hands out scripted bytes in order (worked examples' keys and nonces).
final class ScriptedBytes: @unchecked Sendable {
    private var queue: [[UInt8]]

    init(_ values: [[UInt8]]) {
        queue = values
    }

    func next(_ count: Int) throws -> [UInt8] {
        guard !queue.isEmpty else { throw ScriptError.exhausted }
        let value = queue.removeFirst()
        guard value.count == count else { throw ScriptError.wrongLength(expected: count, scripted: value.count) }
        return value
    }

    enum ScriptError: Error { case exhausted, wrongLength(expected: Int, scripted: Int) }
}
