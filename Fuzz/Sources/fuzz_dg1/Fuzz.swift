import FuzzSupport
import MRTDCore

/// DG1 and the MRZ behind it: parses or throws; check-digit results are total (every field has one).
@main enum FuzzDG1 {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        if let dg1 = try? DG1(rawBytes: input.rest()) {
            let mrz = dg1.mrz
            fuzzCheck(!mrz.checkDigits.isEmpty, "an MRZ without check digits")
            fuzzCheck(mrz.hasValidCheckDigits == mrz.checkDigits.allSatisfy(\.isValid), "check-digit summary disagrees")
            _ = ReadResult.DocumentInfo(mrz: mrz)
        }
        return 0
    }
}
