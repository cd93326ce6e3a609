import FuzzSupport
import MRTDCore

/// Client-supplied MRZ text and `DOCNO,YYMMDD,YYMMDD` keys: total (parse or typed error), and the
/// redacted descriptions never echo the input.
@main enum FuzzMRZInput {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let text = String(decoding: input.rest(), as: UTF8.self)
        if let key = try? MRZKey(parsing: text) {
            fuzzCheck(!"\(key)".contains(key.documentNumber) || key.documentNumber.count < 3, "MRZKey description shows the document number")
        }
        if let mrz = try? MRZ(text) {
            _ = mrz.accessKey
            fuzzCheck(!"\(mrz)".contains(mrz.documentNumber) || mrz.documentNumber.count < 3, "MRZ description shows the document number")
        }
        return 0
    }
}
