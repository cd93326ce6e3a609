import FuzzSupport
import MRTDCore

/// EF.COM: parses or throws a typed error; a parsed list always contains DG1 and only LDS files.
@main enum FuzzEFCOM {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        if let com = try? EFCOM(rawBytes: input.rest()) {
            fuzzCheck(com.dataGroups.contains(.dg(1)), "EF.COM accepted without DG1")
        }
        return 0
    }
}
