import FoundationEssentials
import MRTDCore

/// `--images DIR`: writes every image besides the face (DG5, DG7, DG11, DG12, DG3, DG4) as
/// `DIR/NAME.EXT`, the bytes as stored on the chip. Personal data: the directory is created 0700.
enum ImageWriter {
    static func fileName(_ name: String, mimeType: String) -> String {
        let ext = ["image/jpeg": "jpg", "image/jp2": "jp2", "image/j2k": "j2k", "image/png": "png", "image/x-wsq": "wsq"]
        return "\(name).\(ext[mimeType] ?? "bin")"
    }

    static func write(_ images: [(name: String, bytes: [UInt8], mimeType: String)], to directory: String) throws {
        let url = URL(fileURLWithPath: directory, isDirectory: true)
        try FileManager.default.createDirectory(
            at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        for image in images {
            // Names come from this program's own parser (`portrait-1`, ...), never from the chip.
            try Data(image.bytes).write(to: url.appendingPathComponent(fileName(image.name, mimeType: image.mimeType)))
        }
    }

    /// The images of a direct read.
    static func write(files: [LDSFile: [UInt8]], to directory: String) throws {
        try write(LDSContents(files: files).images.map { ($0.name, $0.image.imageData, $0.image.mimeType) }, to: directory)
    }
}
