import FoundationEssentials
import MRTDCore

/// `--images DIR`: writes every image besides the face (DG5, DG7, DG11, DG12, DG3, DG4) as
/// `DIR/NAME.EXT`, the bytes as stored on the chip. Personal data: written as `PrivateOutput` says
/// (a 0700 directory of this user's, 0600 files, no link followed).
enum ImageWriter {
    static func fileName(_ name: String, mimeType: String) -> String {
        let ext = ["image/jpeg": "jpg", "image/jp2": "jp2", "image/j2k": "j2k", "image/png": "png", "image/x-wsq": "wsq"]
        return "\(name).\(ext[mimeType] ?? "bin")"
    }

    static func write(_ images: [(name: String, bytes: [UInt8], mimeType: String)], to directory: String) throws {
        // Names come from this program's own parser (`portrait-1`, ...), never from the chip.
        try PrivateOutput.write(images.map { (fileName($0.name, mimeType: $0.mimeType), $0.bytes) }, toDirectory: directory)
    }

    /// The images of a direct read, as its data groups were parsed.
    static func write(_ contents: LDSContents, to directory: String) throws {
        try write(contents.images.map { ($0.name, $0.image.imageData, $0.image.mimeType) }, to: directory)
    }
}
