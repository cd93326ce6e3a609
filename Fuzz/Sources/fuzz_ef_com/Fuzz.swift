import FuzzSupport
import MRTDCore

/// EF.COM: parses, or throws an `LDSError` of a kind EF.COM can have (broken TLV, not tag `60`, a
/// missing object, a bad version, a tag that is no data group, no DG1) that names EF.COM where it
/// names a file; a parsed list always contains DG1 and only data groups 1-16.
@main enum FuzzEFCOM {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        do throws(LDSError) {
            let com = try EFCOM(rawBytes: input.rest())
            fuzzCheck(com.dataGroups.contains(.dg(1)), "EF.COM accepted without DG1")
            for file in com.dataGroups {
                guard case .dg(let number) = file, (1...16).contains(number) else {
                    fuzzCheck(false, "EF.COM lists \(file), which is no data group")
                    continue
                }
            }
        } catch {
            switch error {
            case .tlv, .invalidVersion, .unknownDataGroupTag, .dataGroupListMissingDG1: break
            case .wrongOuterTag(let file, _, _), .missingDataObject(let file, _), .invalidText(let file, _):
                fuzzCheck(file == .com, "an EF.COM error naming \(file)")
            default: fuzzCheck(false, "an error EF.COM cannot have: \(error)")
            }
            fuzzCheck(!error.description.isEmpty, "an error without a description")
        }
        return 0
    }
}
