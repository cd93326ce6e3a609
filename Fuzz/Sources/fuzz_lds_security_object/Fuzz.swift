import FuzzSupport
import MRTDCore

/// LDSSecurityObject (the SOD's signed content): parses or throws; hashes have the digest's length.
@main enum FuzzLDSSecurityObject {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let bytes = input.rest()
        if let lso = try? LDSSecurityObject(derEncoded: bytes) {
            for hash in lso.dataGroupHashes {
                fuzzCheck(hash.dataGroupHashValue.count <= bytes.count, "a hash longer than the input")
            }
        }
        return 0
    }
}
