import FuzzSupport
import MRTDCore

/// BER-TLV: parsing never traps, never reads past the input, and what it returns re-encodes within
/// the bytes it came from.
@main enum FuzzBERTLV {
    static func main() { FuzzDriver.run(test) }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        guard let data else { return 0 }
        let bytes = Array(UnsafeBufferPointer(start: data, count: size))
        if let all = try? TLV.parseAll(bytes) {
            var total = 0
            for node in all { total += TLV.encode(tag: node.tag, value: node.value).count }
            precondition(total <= bytes.count, "parseAll returned more bytes than it was given")
        }
        return 0
    }
}
