/// The biometric record formats DG2 carries (Doc 9303-10 §4.7.2).
public enum FaceEncoding: String, Sendable, Codable {
    /// ISO/IEC 19794-5:2005 binary record (`FAC\0`), in tag `5F2E`.
    case iso19794_5 = "ISO/IEC 19794-5"
    /// ISO/IEC 39794-5 DER record (`[APPLICATION 5]` FaceImageDataBlock), in tag `7F2E`.
    case iso39794_5 = "ISO/IEC 39794-5"
}

/// One facial image from DG2. The bytes are passed on, never decoded here (RELIABILITY DG2-02);
/// only headers are read for the MIME type and the dimensions.
public struct FaceImage: Sendable, Equatable {
    /// The exact image bytes: JPEG, JP2 box file or bare J2K codestream.
    public let imageData: [UInt8]
    /// `image/jpeg`, `image/jp2`, `image/j2k`, or `application/octet-stream` when unrecognized.
    public let mimeType: String
    /// From the record header when present and non-zero, else from the image header.
    public let width: Int?
    public let height: Int?
    /// Bytes of padding (`00` or `FF`) that followed a JPEG 2000 image in its record and are not
    /// part of ``imageData`` (``withoutJPEG2000Padding(_:)``); 0 for every other image.
    public private(set) var trailingPadding = 0

    /// Builds a face image; zero or absent dimensions are taken from the image header.
    public init(imageData: [UInt8], width: Int? = nil, height: Int? = nil) {
        self.init(imageData: imageData, width: width, height: height,
                  mimeType: FaceImage.detectMimeType(imageData) ?? "application/octet-stream")
    }

    /// Builds an image whose MIME type the caller knows (WSQ and PNG records in DG3/DG4).
    init(imageData: [UInt8], width: Int?, height: Int?, mimeType: String) {
        self.imageData = imageData
        self.mimeType = mimeType
        let fromImage = FaceImage.dimensions(of: imageData)
        if let width, let height, width > 0, height > 0 {
            self.width = width
            self.height = height
        } else {
            self.width = fromImage?.width
            self.height = fromImage?.height
        }
    }

    /// A DG2 face image: a JPEG 2000 image followed by padding is taken without the padding
    /// (``withoutJPEG2000Padding(_:)``), which ``trailingPadding`` counts.
    static func portrait(_ record: [UInt8], width: Int?, height: Int?) -> FaceImage {
        let (image, padding) = withoutJPEG2000Padding(record)
        var face = FaceImage(imageData: image, width: width, height: height)
        face.trailingPadding = padding
        return face
    }

    /// A JPEG 2000 image (JP2 box file or J2K codestream) without the padding bytes that follow it,
    /// and how many there were: NFCPassportReader 2.3.1's portraits, where the image's record is
    /// longer than the image and the rest is `00` or `FF`. Strict decoders refuse such a file
    /// (jai-imageio-jpeg2000#33 took up to 3 bytes of it; OpenJPEG reads past it).
    ///
    /// The image ends where its own structure says: after the last well-formed box of a JP2 file
    /// (4-byte length, 4 printable-ASCII type; a `jp2c` codestream box among them), or at the EOC
    /// marker `FFD9` of a codestream. Only a tail made entirely of `00`/`FF` bytes is removed;
    /// anything else (another format, bytes that are not padding, a structure that does not parse)
    /// leaves the image as it came, padding 0.
    public static func withoutJPEG2000Padding(_ bytes: [UInt8]) -> (image: [UInt8], padding: Int) {
        let end: Int?
        switch detectMimeType(bytes) {
        case "image/jp2": end = jp2End(bytes)
        case "image/j2k": end = codestreamEnd(bytes, from: 0)
        default: end = nil
        }
        guard let end, end < bytes.count, bytes[end...].allSatisfy({ $0 == 0x00 || $0 == 0xFF }) else {
            return (bytes, 0)
        }
        return (Array(bytes[..<end]), bytes.count - end)
    }

    /// The end of the last well-formed top-level box of a JP2 file, when a `jp2c` box was among them.
    private static func jp2End(_ b: [UInt8]) -> Int? {
        var i = 0
        var sawCodestream = false
        while i + 8 <= b.count, var length = be(b, i, 4), let type = be(b, i + 4, 4) {
            let printable = (0..<4).allSatisfy { (0x20...0x7E).contains(b[i + 4 + $0]) }
            guard printable else { break }
            var header = 8
            if length == 1 {
                guard let xl = be(b, i + 8, 8) else { break }
                length = xl
                header = 16
            } else if length == 0 {
                // The last box runs to the end of the file: the codestream's EOC ends it.
                return type == 0x6A70_3263 ? codestreamEnd(b, from: i + header) : nil
            }
            guard length >= header, length <= b.count - i else { break }
            if type == 0x6A70_3263 { sawCodestream = true }
            i += length
        }
        return sawCodestream ? i : nil
    }

    /// The end of a codestream starting at `start` (SOC `FF4F`) that is followed only by padding:
    /// just after its EOC `FFD9`.
    private static func codestreamEnd(_ b: [UInt8], from start: Int) -> Int? {
        guard be(b, start, 2) == 0xFF4F else { return nil }
        var end = b.count
        while end > start, b[end - 1] == 0x00 || b[end - 1] == 0xFF { end -= 1 }
        guard end - start >= 4, b[end - 2] == 0xFF, b[end - 1] == 0xD9 else { return nil }
        return end
    }

    static let jpegMagic: [UInt8] = [0xFF, 0xD8, 0xFF]
    static let jp2Magic: [UInt8] = [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A]
    static let j2kMagic: [UInt8] = [0xFF, 0x4F, 0xFF, 0x51]

    /// The MIME type from the magic bytes: `FFD8FF` JPEG, `0000000C 6A502020 0D0A870A` JP2,
    /// `FF4FFF51` J2K codestream; `nil` otherwise.
    public static func detectMimeType(_ bytes: some Collection<UInt8>) -> String? {
        if bytes.starts(with: jpegMagic) { return "image/jpeg" }
        if bytes.starts(with: jp2Magic) { return "image/jp2" }
        if bytes.starts(with: j2kMagic) { return "image/j2k" }
        return nil
    }

    /// Width and height from the image header: JPEG SOFn (ITU-T T.81 §B.2.2), JP2 `ihdr`
    /// (ISO/IEC 15444-1 §I.5.3.1) or J2K SIZ (§A.5.1). Reads headers only; bounded by the input.
    public static func dimensions(of image: [UInt8]) -> (width: Int, height: Int)? {
        switch detectMimeType(image) {
        case "image/jpeg": return jpegDimensions(image)
        case "image/jp2": return jp2Dimensions(image, from: 0, to: image.count)
        case "image/j2k": return sizDimensions(image, at: 0)
        default: return nil
        }
    }

    private static func be(_ b: [UInt8], _ at: Int, _ n: Int) -> Int? {
        guard at >= 0, n > 0, at + n <= b.count else { return nil }
        var v = 0
        for i in at..<(at + n) { v = v << 8 | Int(b[i]) }
        return v
    }

    private static func jpegDimensions(_ b: [UInt8]) -> (width: Int, height: Int)? {
        var i = 2
        while i + 1 < b.count {
            guard b[i] == 0xFF else { return nil }
            let marker = b[i + 1]
            if marker == 0xFF { i += 1; continue }  // fill byte
            if marker == 0x01 || (0xD0...0xD7).contains(marker) { i += 2; continue }
            guard let length = be(b, i + 2, 2), length >= 2 else { return nil }
            let isSOF = (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker)
            if isSOF {
                guard let h = be(b, i + 5, 2), let w = be(b, i + 7, 2), w > 0, h > 0 else { return nil }
                return (w, h)
            }
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan data before any frame header
            i += 2 + length
        }
        return nil
    }

    private static func jp2Dimensions(_ b: [UInt8], from start: Int, to end: Int) -> (width: Int, height: Int)? {
        var i = start
        while i + 8 <= end {
            guard var length = be(b, i, 4), let type = be(b, i + 4, 4) else { return nil }
            var header = 8
            if length == 1 {
                guard let xl = be(b, i + 8, 8) else { return nil }
                length = xl
                header = 16
            } else if length == 0 {
                length = end - i
            }
            guard length >= header, i + length <= end else { return nil }
            switch type {
            case 0x6A70_3268:  // 'jp2h' superbox
                return jp2Dimensions(b, from: i + header, to: i + length)
            case 0x6968_6472:  // 'ihdr': HEIGHT(4) WIDTH(4)
                guard let h = be(b, i + header, 4), let w = be(b, i + header + 4, 4), w > 0, h > 0 else {
                    return nil
                }
                return (w, h)
            case 0x6A70_3263:  // 'jp2c' codestream without a header box before it
                return sizDimensions(b, at: i + header)
            default:
                i += length
            }
        }
        return nil
    }

    private static func sizDimensions(_ b: [UInt8], at i: Int) -> (width: Int, height: Int)? {
        // SOC FF4F, SIZ FF51, Lsiz(2) Rsiz(2) Xsiz(4) Ysiz(4) XOsiz(4) YOsiz(4)
        guard be(b, i, 4) == 0xFF4F_FF51,
              let x = be(b, i + 8, 4), let y = be(b, i + 12, 4),
              let xo = be(b, i + 16, 4), let yo = be(b, i + 20, 4),
              x > xo, y > yo else { return nil }
        return (x - xo, y - yo)
    }
}

/// A bounds-checked big-endian reader for binary biometric records.
struct RecordReader {
    let bytes: [UInt8]
    var offset: Int

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        self.offset = 0
    }

    mutating func take(_ n: Int) throws(LDSError) -> ArraySlice<UInt8> {
        guard n >= 0, n <= bytes.count - offset else {
            throw .truncatedFaceRecord(needed: offset + n, available: bytes.count)
        }
        defer { offset += n }
        return bytes[offset..<(offset + n)]
    }

    mutating func uint(_ n: Int) throws(LDSError) -> Int {
        try take(n).reduce(0) { $0 << 8 | Int($1) }
    }
}
