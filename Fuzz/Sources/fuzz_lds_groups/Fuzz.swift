import FuzzSupport
import MRTDCore

/// DG5, DG7, DG11, DG12, DG13, DG16 (the first byte chooses; the rest is the file): each parses or
/// throws an `LDSError`; every image lies within the file; a parsed date is ISO 8601 shaped; the
/// result model builds with the group and its warnings name the group.
@main enum FuzzLDSGroups {
    static func main() { FuzzDriver.run(test) }
    static let groups = [5, 7, 11, 12, 13, 16]
    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let number = groups[Int(input.byte()) % groups.count]
        let bytes = input.rest()
        var images: [FaceImage] = []
        var dates: [LDSDate] = []
        switch number {
        case 5, 7:
            if let group = try? DisplayedImages(rawBytes: bytes, file: .dg(number)) { images = group.images }
        case 11:
            if let dg11 = try? DG11(rawBytes: bytes) {
                images = dg11.proofOfCitizenship.map { [$0] } ?? []
                dates = dg11.fullDateOfBirth.map { [$0] } ?? []
            }
        case 12:
            if let dg12 = try? DG12(rawBytes: bytes) {
                images = [dg12.frontImage, dg12.rearImage].compactMap { $0 }
                dates = [dg12.dateOfIssue, dg12.personalizationTime].compactMap { $0 }
            }
        case 13:
            if let dg13 = try? DG13(rawBytes: bytes) { fuzzCheck(dg13.contentLength < bytes.count, "DG13 content longer than the file") }
        default:
            if let dg16 = try? DG16(rawBytes: bytes) { dates = dg16.persons.compactMap(\.dateRecorded) }
        }
        for image in images { fuzzCheck(!image.imageData.isEmpty && image.imageData.count <= bytes.count, "an image outside the file") }
        for date in dates {
            if let iso = date.iso8601 { fuzzCheck(iso.count == 10 || iso.count == 19, "a parsed date not ISO 8601 shaped") }
        }
        let contents = LDSContents(files: [.dg(number): bytes])
        for warning in contents.warnings { fuzzCheck(warning.hasPrefix("DG\(number)"), "a warning that names no group") }
        for image in contents.images { fuzzCheck(image.image.imageData.count <= bytes.count, "a named image outside the file") }
        return 0
    }
}
