import FuzzSupport
import MRTDCore
import SwiftASN1

/// LDSSecurityObject (the SOD's signed content): parses, or throws swift-asn1's `ASN1Error` (the
/// parser's only error type, the version and duplicate checks included). A parsed object holds
/// only data groups 1-16, each once, with hashes within the input, and re-encodes to DER that parses
/// to the same object.
@main enum FuzzLDSSecurityObject {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let bytes = input.rest()
        do {
            let lso = try LDSSecurityObject(derEncoded: bytes)
            var seen = Set<Int>()
            for hash in lso.dataGroupHashes {
                fuzzCheck(hash.dataGroupHashValue.count <= bytes.count, "a hash longer than the input")
                fuzzCheck((1...16).contains(hash.dataGroupNumber), "data group \(hash.dataGroupNumber) accepted")
                fuzzCheck(seen.insert(hash.dataGroupNumber).inserted, "data group \(hash.dataGroupNumber) hashed twice")
            }
            let again = try? LDSSecurityObject(derEncoded: try lso.derEncoded())
            fuzzCheck(again == lso, "a parsed LDSSecurityObject does not survive its own DER")
        } catch {
            fuzzCheck(error is ASN1Error, "an error of another type: \(type(of: error)) \(error)")
        }
        return 0
    }
}
