/// Whether `needle` occurs in `haystack` (the oracles' check that a verified object carries the
/// bytes the test signer signed, or that an accepted answer carries the genuine chip's bytes). An
/// empty needle is found nowhere, so an oracle never passes on nothing.
public func fuzzContains(_ haystack: [UInt8], _ needle: some Collection<UInt8>) -> Bool {
    let needle = Array(needle)
    guard !needle.isEmpty, needle.count <= haystack.count else { return false }
    for start in 0...(haystack.count - needle.count) where haystack[start] == needle[0] {
        if haystack[start..<start + needle.count].elementsEqual(needle) { return true }
    }
    return false
}
