/// EF.DG5 (displayed portrait) and EF.DG7 (displayed signature or usual mark), Doc 9303-10
/// §4.7.5 and §4.7.7: a count and the images, ISO/IEC 10918 (JPEG) or 15444 (JPEG 2000).
///
/// ```
/// 65 { 02 count, 5F40 portrait, 5F40 portrait, … }        DG5
/// 67 { 02 count, 5F43 signature or mark, … }             DG7
/// ```
public struct DisplayedImages: Sendable, Equatable {
    public let rawBytes: [UInt8]
    /// `.dg(5)` or `.dg(7)`.
    public let file: LDSFile
    /// The images in file order, bytes as stored (never decoded here).
    public let images: [FaceImage]
    /// A count that disagrees with the images, unknown objects; no values.
    public let warnings: [String]

    /// The image tag of a displayed-image group: `5F40` (DG5), `5F43` (DG7); `nil` for others.
    public static func imageTag(of file: LDSFile) -> UInt? {
        switch file {
        case .dg(5): return 0x5F40
        case .dg(7): return 0x5F43
        default: return nil
        }
    }

    /// - Throws: `LDSError` when `file` is not DG5 or DG7, the structure is not BER-TLV, the outer
    ///   tag is wrong, or no image is present.
    public init(rawBytes: [UInt8], file: LDSFile) throws(LDSError) {
        guard let imageTag = DisplayedImages.imageTag(of: file) else {
            throw .wrongOuterTag(file, expected: 0x65, found: file.tag ?? 0)
        }
        let outer = try LDSError.parseOuter(rawBytes, file: file)
        let children = try LDSError.wrap { () throws(TLVError) in try outer.children() }
        var warnings: [String] = []
        let images = children.filter { $0.tag == imageTag && !$0.value.isEmpty }.map { FaceImage(imageData: $0.bytes) }
        guard !images.isEmpty else { throw .missingDataObject(file, tag: imageTag) }
        warnings += LDSTemplateReader.countWarning(children, found: images.count, file: file, of: "images")
        for other in Set(children.map(\.tag)).subtracting([0x02, imageTag]).sorted() {
            warnings.append("\(file): unknown data object 0x\(LDSTemplateReader.hex(other)), ignored")
        }
        for image in images where image.mimeType == "application/octet-stream" {
            _ = image
            warnings.append("\(file): an image is neither JPEG nor JPEG 2000")
            break
        }
        self.rawBytes = rawBytes
        self.file = file
        self.images = images
        self.warnings = warnings
    }

    /// Encodes DG5 or DG7 holding `images`.
    public static func encode(file: LDSFile, images: [[UInt8]]) -> [UInt8] {
        let tag = imageTag(of: file) ?? 0x5F40
        return TLV.encode(tag: file.tag ?? 0x65, children: [TLV.encode(tag: 0x02, value: [UInt8(images.count)])]
            + images.map { TLV.encode(tag: tag, value: $0) })
    }
}
