import FuzzSupport
import MRTDCore

/// BER-TLV under a nesting cap from the input (first byte, 0-39, around the default of 32): parsing
/// never traps, never reads past the input, and what it returns re-encodes within the bytes it came
/// from; what it accepts nests no deeper than the cap, and what it refuses as too deep does nest
/// deeper (counted by re-parsing with a cap the input cannot reach), with the cap in the error.
@main enum FuzzBERTLV {
    static func main() { FuzzDriver.run(test) }

    /// Constructed levels on the deepest path below and including `node`.
    static func depth(_ node: TLV) -> Int {
        guard node.isConstructed else { return 0 }
        let children = (try? node.children(maxDepth: Int.max))
        fuzzCheck(children != nil, "the children of an accepted constructed object do not parse")
        return 1 + (children ?? []).map(depth).reduce(0, max)
    }

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let cap = Int(input.byte() % 40)
        let bytes = input.rest()
        do throws(TLVError) {
            let all = try TLV.parseAll(bytes, maxDepth: cap)
            var total = 0
            for node in all {
                total += TLV.encode(tag: node.tag, value: node.value).count
                let nesting = depth(node)
                fuzzCheck(nesting <= cap, "an object nested \(nesting) levels deep passed a cap of \(cap)")
            }
            fuzzCheck(total <= bytes.count, "parseAll returned more bytes than it was given")
        } catch .nestingTooDeep(let limit) {
            fuzzCheck(limit == cap, "the error names a cap of \(limit), the caller set \(cap)")
            // Input is at most 64 KiB (-max_len), two bytes a level: a cap of 40,000 is out of reach.
            if let unbounded = try? TLV.parseAll(bytes, maxDepth: 40_000) {
                let nesting = unbounded.map(depth).reduce(0, max)
                fuzzCheck(nesting > cap, "refused as deeper than \(cap) but nests \(nesting) levels")
            }
        } catch {
            fuzzCheck(!error.description.isEmpty, "an error without a description")
        }
        return 0
    }
}
