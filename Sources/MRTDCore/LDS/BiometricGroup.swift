/// EF.DG3 (encoded finger(s)) and EF.DG4 (encoded iris(es)), Doc 9303-10 §4.7.3 / §4.7.4: the
/// same biometric information group template as DG2, with finger or iris records. Chips release
/// them only after EAC Terminal Authentication.
///
/// ```
/// 63 | 76 { 7F61 { 02 01 n                                     number of instances
///                 7F60 { A1 { 80?, 81 type, 82?, …, 87 owner, 88 format type }
///                        5F2E record    ISO/IEC 19794-4 ("FIR\0") or 19794-6 ("IIR\0")
///                      | 7F2E record    ISO/IEC 39794-4 / 39794-6 (DER)
///                      } … } }
/// ```
///
/// A template whose record cannot be read becomes a warning; the other templates are kept.
public struct BiometricGroup: Sendable, Equatable {
    public let rawBytes: [UInt8]
    /// `.dg(3)` or `.dg(4)`.
    public let file: LDSFile
    /// Every record image, in template order.
    public let records: [BiometricRecord]
    /// Problems that did not stop the rest (a bad template, a count mismatch); no biometric data.
    public let warnings: [String]

    /// - Throws: `LDSError` when `file` is neither DG3 nor DG4, the structure is not BER-TLV, or
    ///   the group template `7F61` is missing.
    public init(rawBytes: [UInt8], file: LDSFile) throws(LDSError) {
        guard file == .dg(3) || file == .dg(4) else {
            throw .wrongOuterTag(file, expected: 0x63, found: file.tag ?? 0)
        }
        let outer = try LDSError.parseOuter(rawBytes, file: file)
        guard let group = try LDSError.wrap({ () throws(TLVError) in try outer.child(0x7F61) }) else {
            throw .missingDataObject(file, tag: 0x7F61)
        }
        let elements = try LDSError.wrap { () throws(TLVError) in try group.children() }
        let templates = elements.filter { $0.tag == 0x7F60 }
        var warnings: [String] = []
        let declared = elements.first { $0.tag == 0x02 }.map(LDSTemplateReader.declaredCount)
        if declared != templates.count {
            warnings.append("\(file) declares \(declared.map(String.init) ?? "no") biometric templates, "
                + "holds \(templates.count)")
        }
        var records: [BiometricRecord] = []
        for (index, template) in templates.enumerated() {
            do {
                let parts = try LDSError.wrap { () throws(TLVError) in try template.children() }
                guard let block = parts.first(where: { $0.tag == 0x5F2E || $0.tag == 0x7F2E }) else {
                    throw LDSError.missingBiometricDataBlock(template: index + 1)
                }
                let found = try BiometricRecord.parse(block.bytes, file: file)
                guard !found.isEmpty else { throw LDSError.emptyImage }
                records += found
            } catch {
                warnings.append("\(file) template \(index + 1): \(error)")
            }
        }
        self.rawBytes = rawBytes
        self.file = file
        self.records = records
        self.warnings = warnings
    }

    /// Encodes DG3 or DG4 with one template per record: ISO/IEC 19794-4 (format type `0007`) or
    /// 19794-6 (`0009`) records under format owner `0101`, the biometric subtype (`82`) that of the
    /// record's first finger position or eye.
    public static func encode(file: LDSFile, records: [[UInt8]]) -> [UInt8] {
        let finger = file == .dg(3)
        let templates = records.map { record in
            // 19794-4: the first finger's position follows the 32-byte header and its 4-byte block
            // length; 19794-6: the first eye follows the 45-byte header.
            let offset = finger ? 36 : 45
            let position = record.count > offset ? Int(record[offset]) : 0
            let header = TLV.encode(tag: 0xA1, children: [
                TLV.encode(tag: 0x80, value: [0x01, 0x01]),
                TLV.encode(tag: 0x81, value: [biometricType(file)]),  // CBEFF biometric type: finger / iris
                TLV.encode(tag: 0x82, value: [biometricSubtype(file: file, position: position)]),
                TLV.encode(tag: 0x87, value: [0x01, 0x01]),
                TLV.encode(tag: 0x88, value: formatType(file)),
            ])
            return TLV.encode(tag: 0x7F60, children: [header, TLV.encode(tag: 0x5F2E, value: record)])
        }
        return TLV.encode(tag: file.tag ?? 0x63, children: [
            TLV.encode(tag: 0x7F61, children: [TLV.encode(tag: 0x02, value: [UInt8(records.count)])] + templates),
        ])
    }
}

/// One finger or iris image from DG3 or DG4: the record's header facts and the image, as stored.
public struct BiometricRecord: Sendable, Equatable {
    /// `ISO/IEC 19794-4`, `ISO/IEC 19794-6`, `ISO/IEC 39794-4`, `ISO/IEC 39794-6`.
    public let format: String
    /// The finger (`rightThumb`, `leftIndex`, `plainRightFourFingers`, …) or eye (`rightEye`,
    /// `leftEye`) from the record; `nil` when the record leaves it unknown or undefined.
    public let position: String?
    /// The compression the record declares: `WSQ`, `JPEG`, `JPEG 2000`, `JPEG-LS`, `PNG`, `raw`;
    /// for 39794 records (or an unknown code) the one the image bytes show.
    public let imageFormat: String
    /// The image bytes, with their MIME type (`image/x-wsq` for WSQ) and size when known.
    public let image: FaceImage
    public let width: Int?
    public let height: Int?

    static let fingerPositions = [
        "unknown", "rightThumb", "rightIndex", "rightMiddle", "rightRing", "rightLittle",
        "leftThumb", "leftIndex", "leftMiddle", "leftRing", "leftLittle",
        "plainRightThumb", "plainLeftThumb", "plainRightFourFingers", "plainLeftFourFingers", "plainThumbs",
    ]

    /// Parses a biometric data block's value into its images.
    static func parse(_ bytes: [UInt8], file: LDSFile) throws(LDSError) -> [BiometricRecord] {
        if bytes.starts(with: [0x46, 0x49, 0x52, 0x00]) { return try parseISO19794_4(bytes) }
        if bytes.starts(with: [0x49, 0x49, 0x52, 0x00]) { return try parseISO19794_6(bytes) }
        if let first = bytes.first, first & 0xE0 == 0x60 || first == 0xA1 {
            return try parseISO39794(bytes, format: file == .dg(3) ? "ISO/IEC 39794-4" : "ISO/IEC 39794-6")
        }
        throw .unknownBiometricDataBlock
    }

    // MARK: ISO/IEC 19794-4:2005

    /// ISO/IEC 19794-4:2005 §7: a 32-byte general record header (`FIR\0`, `010\0`, 6-byte record
    /// length, …, image compression algorithm at offset 29), then per finger a 14-byte finger
    /// image header (block length 4, position 1, view count 1, view number 1, quality 1,
    /// impression type 1, width 2, height 2, reserved 1) and the image.
    static func parseISO19794_4(_ bytes: [UInt8]) throws(LDSError) -> [BiometricRecord] {
        var r = RecordReader(bytes)
        _ = try r.take(8)  // "FIR\0" "010\0"
        let recordLength = try r.uint(6)
        guard recordLength >= 32, recordLength <= bytes.count else {
            throw .inconsistentFaceRecord("finger record length \(recordLength) for \(bytes.count) bytes")
        }
        _ = try r.take(4)  // capture device, acquisition level
        let count = try r.uint(1)
        _ = try r.take(1 + 8 + 1)  // scale units, resolutions, pixel depth
        let compression = try r.uint(1)
        _ = try r.take(2)
        guard count >= 1 else { throw .inconsistentFaceRecord("finger record declares no images") }
        let declared: String? = [0: "raw", 1: "raw", 2: "WSQ", 3: "JPEG", 4: "JPEG 2000", 5: "PNG"][compression]
        var records: [BiometricRecord] = []
        for _ in 0..<count {
            let start = r.offset
            let blockLength = try r.uint(4)
            let position = try r.uint(1)
            _ = try r.take(4)  // views, view number, quality, impression type
            let width = try r.uint(2)
            let height = try r.uint(2)
            _ = try r.take(1)
            let headerLength = r.offset - start
            guard blockLength > headerLength else {
                throw .inconsistentFaceRecord("finger block length \(blockLength) leaves no image")
            }
            let image = Array(try r.take(blockLength - headerLength))
            records.append(BiometricRecord(
                format: "ISO/IEC 19794-4",
                position: position == 0 || position >= fingerPositions.count ? nil : fingerPositions[position],
                declaredFormat: declared, image: image, width: width, height: height))
        }
        return records
    }

    // MARK: ISO/IEC 19794-6:2005

    /// ISO/IEC 19794-6:2005 §6.5: a 45-byte record header (`IIR\0`, `010\0`, record length 4,
    /// capture device 2, number of eyes 1, header length 2, image properties 2, iris diameter 2,
    /// image format 2, width 2, height 2, intensity depth 1, transformation 1, device id 16); per
    /// eye a 3-byte subtype header (eye 1, image count 2); per image an 11-byte header (number 2,
    /// quality 1, rotation angle 2, rotation uncertainty 2, image length 4) and the image.
    static func parseISO19794_6(_ bytes: [UInt8]) throws(LDSError) -> [BiometricRecord] {
        var r = RecordReader(bytes)
        _ = try r.take(8)  // "IIR\0" "010\0"
        let recordLength = try r.uint(4)
        guard recordLength >= 45, recordLength <= bytes.count else {
            throw .inconsistentFaceRecord("iris record length \(recordLength) for \(bytes.count) bytes")
        }
        _ = try r.take(2)
        let eyes = try r.uint(1)
        let headerLength = try r.uint(2)
        guard headerLength >= 45 else { throw .inconsistentFaceRecord("iris record header length \(headerLength)") }
        _ = try r.take(4)  // image properties, iris diameter
        let imageFormat = try r.uint(2)
        let width = try r.uint(2)
        let height = try r.uint(2)
        _ = try r.take(headerLength - r.offset)  // depth, transformation, device id, any extension
        guard eyes >= 1 else { throw .inconsistentFaceRecord("iris record declares no eyes") }
        let declared: String? = [2: "raw", 4: "raw", 6: "JPEG", 8: "JPEG", 10: "JPEG-LS", 12: "JPEG-LS",
                                 14: "JPEG 2000", 16: "JPEG 2000"][imageFormat]
        var records: [BiometricRecord] = []
        for _ in 0..<eyes {
            let eye = try r.uint(1)
            let images = try r.uint(2)
            for _ in 0..<images {
                _ = try r.take(7)  // number, quality, rotation angle and uncertainty
                let length = try r.uint(4)
                guard length > 0 else { throw .emptyImage }
                let image = Array(try r.take(length))
                records.append(BiometricRecord(
                    format: "ISO/IEC 19794-6", position: [1: "rightEye", 2: "leftEye"][eye],
                    declaredFormat: declared, image: image, width: width, height: height))
            }
        }
        return records
    }

    // MARK: ISO/IEC 39794-4 / 39794-6

    /// ISO/IEC 39794-4 and -6 (DER, extensible): the data block `[APPLICATION 4|6] { versionBlock
    /// [0], representationBlocks [1] SEQUENCE OF RepresentationBlock, … }` with
    /// ```
    /// -4: RepresentationBlock ::= SEQUENCE { position [0] Position, impression [1],
    ///         imageDataFormat [2], imageData [3] OCTET STRING, … }
    /// -6: RepresentationBlock ::= SEQUENCE { eyeLabelCode [0] EyeLabelCode, irisImageKind [1], …,
    ///         irisImageData [9] OCTET STRING, … }
    /// ```
    /// The position (a code, possibly inside its `[0]` CHOICE wrapper; finger codes as in
    /// 19794-4) and the image are read; a representation laid out otherwise still gives its image
    /// (the first primitive object with an image signature) without a position. The image format
    /// is the one the bytes show; width and height come from the image header when it has one.
    static func parseISO39794(_ bytes: [UInt8], format: String) throws(LDSError) -> [BiometricRecord] {
        let finger = format.hasSuffix("-4")
        let top = try LDSError.wrap { () throws(TLVError) in try TLV.parseAll(bytes) }
        var block = top.first { $0.tag & 0xE0 == 0x60 }
        if block == nil, let wrapper = top.first(where: { $0.tag == 0xA1 }) {
            block = try LDSError.wrap { () throws(TLVError) in try wrapper.children() }.first { $0.tag & 0xE0 == 0x60 }
        }
        guard let block else { throw .unknownBiometricDataBlock }
        guard let representations = try LDSError.wrap({ () throws(TLVError) in try block.child(0xA1) }) else {
            throw .missingDataObject(.dg(finger ? 3 : 4), tag: 0xA1)
        }
        var records: [BiometricRecord] = []
        for representation in try LDSError.wrap({ () throws(TLVError) in try representations.children() }) {
            let fields = representation.isConstructed
                ? try LDSError.wrap { () throws(TLVError) in try representation.children() } : []
            let imageTag: UInt = finger ? 0x83 : 0x89
            var found = fields.first { $0.tag == imageTag && !$0.value.isEmpty }?.bytes
            if found == nil { found = try firstImage(in: representation, depth: 0) }
            guard let image = found else { continue }
            var code = fields.first { $0.tag == 0x80 }
            if code == nil, let choice = fields.first(where: { $0.tag == 0xA0 }) {
                code = try LDSError.wrap { () throws(TLVError) in try choice.child(0x80) }
            }
            var position: String?
            if let code, code.value.count == 1, let v = code.value.first.map(Int.init) {
                position = finger ? (v > 0 && v < fingerPositions.count ? fingerPositions[v] : nil) : [1: "rightEye", 2: "leftEye"][v]
            }
            records.append(BiometricRecord(format: format, position: position, declaredFormat: nil, image: image,
                                           width: nil, height: nil))
        }
        return records
    }

    private static func firstImage(in object: TLV, depth: Int) throws(LDSError) -> [UInt8]? {
        guard object.isConstructed else {
            return BiometricRecord.signature(object.value) != nil ? object.bytes : nil
        }
        guard depth < 12 else { return nil }
        for child in try LDSError.wrap({ () throws(TLVError) in try object.children() }) {
            if let found = try firstImage(in: child, depth: depth + 1) { return found }
        }
        return nil
    }

    /// The format an image's first bytes show: JPEG, JPEG 2000, PNG, WSQ (`FFA0`).
    static func signature(_ bytes: some Collection<UInt8>) -> String? {
        if let mime = FaceImage.detectMimeType(bytes) { return mime == "image/jpeg" ? "JPEG" : "JPEG 2000" }
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) { return "PNG" }
        if bytes.starts(with: [0xFF, 0xA0, 0xFF, 0xA8]) || bytes.starts(with: [0xFF, 0xA0]) { return "WSQ" }
        return nil
    }

    init(format: String, position: String?, declaredFormat: String?, image: [UInt8], width: Int?, height: Int?) {
        self.format = format
        self.position = position
        let shown = BiometricRecord.signature(image)
        self.imageFormat = declaredFormat ?? shown ?? "unknown"
        var face = FaceImage(imageData: image, width: width, height: height)
        if face.mimeType == "application/octet-stream" {
            switch shown {
            case "PNG": face = FaceImage(imageData: image, width: width, height: height, mimeType: "image/png")
            case "WSQ": face = FaceImage(imageData: image, width: width, height: height, mimeType: "image/x-wsq")
            default: break
            }
        }
        self.image = face
        self.width = face.width
        self.height = face.height
    }

    // MARK: Encoding (tests and the virtual chip)

    /// An ISO/IEC 19794-4:2005 record holding one finger image.
    public static func encodeISO19794_4(image: [UInt8], position: Int, compression: Int, width: Int, height: Int) -> [UInt8] {
        let block = be(14 + image.count, 4) + [UInt8(position), 1, 1, 80, 0] + be(width, 2) + be(height, 2) + [0] + image
        var header: [UInt8] = [0x46, 0x49, 0x52, 0x00, 0x30, 0x31, 0x30, 0x00]
        header += be(32 + block.count, 6) + be(0, 2) + be(31, 2) + [1, 1] + be(500, 2) + be(500, 2)
        header += be(500, 2) + be(500, 2) + [8, UInt8(compression)] + [0, 0]
        return header + block
    }

    /// An ISO/IEC 19794-6:2005 record holding one image of one eye (`eye` 1 right, 2 left).
    public static func encodeISO19794_6(image: [UInt8], eye: Int, imageFormat: Int, width: Int, height: Int) -> [UInt8] {
        var header: [UInt8] = [0x49, 0x49, 0x52, 0x00, 0x30, 0x31, 0x30, 0x00]
        let total = 45 + 3 + 11 + image.count
        header += be(total, 4) + be(0, 2) + [1] + be(45, 2) + be(0, 2) + be(200, 2) + be(imageFormat, 2)
        header += be(width, 2) + be(height, 2) + [8, 0] + Array(repeating: 0x30, count: 16)
        return header + [UInt8(eye)] + be(1, 2) + be(1, 2) + [80] + be(0xFFFF, 2) + be(0xFFFF, 2) + be(image.count, 4) + image
    }

    private static func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).reversed().map { UInt8((v >> ($0 * 8)) & 0xFF) } }
}
