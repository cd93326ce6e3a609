/// Reads a fuzz input front to back: small integers for choices, then length-prefixed chunks.
public struct FuzzInput {
    private var bytes: ArraySlice<UInt8>

    public init(_ data: UnsafePointer<UInt8>?, _ size: Int) {
        guard let data, size > 0 else { bytes = []; return }
        bytes = ArraySlice(UnsafeBufferPointer(start: data, count: size))
    }

    public var isEmpty: Bool { bytes.isEmpty }

    public mutating func byte() -> UInt8 { bytes.popFirst() ?? 0 }

    public mutating func bool() -> Bool { byte() & 1 == 1 }

    public mutating func uint16() -> Int { Int(byte()) << 8 | Int(byte()) }

    /// A chunk with a 2-byte big-endian length prefix, cut short at the end of the input.
    public mutating func chunk() -> [UInt8] {
        let n = min(uint16(), bytes.count)
        defer { bytes = bytes.dropFirst(n) }
        return Array(bytes.prefix(n))
    }

    /// Everything left.
    public mutating func rest() -> [UInt8] {
        defer { bytes = [] }
        return Array(bytes)
    }
}

/// Fails the fuzz run with a message (libFuzzer reports the crash and saves the input).
public func fuzzCheck(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String) {
    if !condition() { fatalError("fuzz oracle violated: \(message())") }
}
