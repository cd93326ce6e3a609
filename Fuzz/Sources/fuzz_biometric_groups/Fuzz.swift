import FuzzSupport
import MRTDCore

/// DG3 / DG4 (the first byte chooses; the rest is the file) with ISO/IEC 19794-4, 19794-6 and
/// 39794 records: parses or throws an `LDSError`; every record's image is non-empty and within the
/// file; the records are at most as many as the file has bytes; the result model lists each.
@main enum FuzzBiometricGroups {
    static func main() { FuzzDriver.run(test) }
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let file = LDSFile.dg(input.byte() & 1 == 0 ? 3 : 4)
        let bytes = input.rest()
        if let group = try? BiometricGroup(rawBytes: bytes, file: file) {
            fuzzCheck(group.records.count <= bytes.count, "more records than bytes")
            for record in group.records {
                fuzzCheck(!record.image.imageData.isEmpty, "an empty image")
                fuzzCheck(record.image.imageData.count <= bytes.count, "an image larger than the file")
            }
            let contents = LDSContents(files: [file: bytes])
            fuzzCheck(contents.biometrics?.count ?? 0 == group.records.count, "the result lists other records")
        }
        return 0
    }
}
