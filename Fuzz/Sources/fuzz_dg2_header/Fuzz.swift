import FuzzSupport
import MRTDCore

/// DG2 (ISO/IEC 19794-5 and 39794-5 headers, no image decoding): parses or throws; every image it
/// returns lies within the input.
@main enum FuzzDG2 {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let bytes = input.rest()
        if let dg2 = try? DG2(rawBytes: bytes) {
            for face in dg2.faces {
                fuzzCheck(face.imageData.count <= bytes.count, "an image larger than DG2")
            }
        }
        return 0
    }
}
