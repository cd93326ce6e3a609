/// EF.DG2: encoded face (Doc 9303-10 §4.7.2), a biometric information group template holding
/// one or more biometric information templates.
///
/// ```
/// 75 { 7F61 { 02 01 n                       number of instances
///             7F60 { A1 { 80?, 81?, …, 87 format owner, 88 format type }   header template
///                    5F2E record             ISO/IEC 19794-5 ("FAC\0")
///                  | 7F2E { A1? { 65 … } }  ISO/IEC 39794-5 (Doc 9303-10, 2021 and later)
///                  } … } }
/// ```
public struct DG2: Sendable, Equatable {
    /// The file as read; data group hashes are computed over these bytes.
    public let rawBytes: [UInt8]
    /// The encoding of the (first) biometric data block.
    public let encoding: FaceEncoding
    /// Every face image, in template order.
    public let faces: [FaceImage]

    public init(rawBytes: [UInt8]) throws(LDSError) {
        let outer = try LDSError.parseOuter(rawBytes, file: .dg(2))
        let group = try DG2.require(outer, 0x7F61)
        let elements = try LDSError.wrap { () throws(TLVError) in try group.children() }
        guard let countObject = elements.first(where: { $0.tag == 0x02 }) else {
            throw .missingDataObject(.dg(2), tag: 0x02)
        }
        let templates = elements.filter { $0.tag == 0x7F60 }
        let declared = countObject.value.count <= 2
            ? countObject.value.reduce(0) { $0 << 8 | Int($1) } : -1
        guard declared >= 1, declared == templates.count else {
            throw .biometricCountMismatch(declared: declared, found: templates.count)
        }
        var encoding: FaceEncoding?
        var faces: [FaceImage] = []
        for (index, template) in templates.enumerated() {
            let parts = try LDSError.wrap { () throws(TLVError) in try template.children() }
            guard let header = parts.first(where: { $0.tag == 0xA1 }) else {
                throw .missingDataObject(.dg(2), tag: 0xA1)
            }
            try DG2.checkHeader(header)
            guard let block = parts.first(where: { $0.tag == 0x5F2E || $0.tag == 0x7F2E }) else {
                throw .missingBiometricDataBlock(template: index + 1)
            }
            let parsed = try DG2.parseBiometricDataBlock(block.bytes)
            if encoding == nil { encoding = parsed.encoding }
            faces += parsed.faces
        }
        self.rawBytes = rawBytes
        self.encoding = encoding ?? .iso19794_5
        self.faces = faces
    }

    /// The biometric header template (Doc 9303-10 §4.7.2.1): format owner (`87`) and format type
    /// (`88`) are mandatory and must name a face format the reader decodes: owner ISO/IEC JTC 1/SC 37
    /// (`0101`), type `0008` (19794-5) or `002A` (39794-5). A biometric type (`81`), when present,
    /// must be facial features (2), in the one-byte form or the three-byte form of older CBEFF
    /// headers (`000002`, LDS 1.7). Anything else is not a face: its bytes are never handed out.
    static func checkHeader(_ header: TLV) throws(LDSError) {
        let objects = try LDSError.wrap { () throws(TLVError) in try header.children() }
        func value(_ tag: UInt) throws(LDSError) -> [UInt8] {
            guard let object = objects.first(where: { $0.tag == tag }) else {
                throw .missingDataObject(.dg(2), tag: tag)
            }
            return Array(object.value)
        }
        func hex(_ bytes: [UInt8]) -> String { bytes.map { hex2(Int($0)) }.joined() }
        let owner = try value(0x87)
        guard owner == [0x01, 0x01] else {
            throw .invalidBiometricHeader("format owner \(hex(owner)) is not ISO/IEC JTC 1/SC 37 (0101)")
        }
        let type = try value(0x88)
        guard type == [0x00, 0x08] || type == [0x00, 0x2A] else {
            throw .invalidBiometricHeader("format type \(hex(type)) is neither ISO/IEC 19794-5 (0008) nor 39794-5 (002A)")
        }
        if let biometricType = objects.first(where: { $0.tag == 0x81 }).map({ Array($0.value) }) {
            let code = biometricType.reduce(0) { $0 << 8 | Int($1) }
            guard (1...3).contains(biometricType.count), code == 2 else {
                throw .invalidBiometricHeader("biometric type \(hex(biometricType)) is not facial features (02)")
            }
        }
    }

    /// Parses a bare biometric data block (the value of `5F2E` or `7F2E`): an ISO/IEC 19794-5
    /// record starting with `FAC\0`, or an ISO/IEC 39794-5 `FaceImageDataBlock` (optionally inside
    /// the `[1]` wrapper chips send).
    public static func parseBiometricDataBlock(
        _ bytes: [UInt8]
    ) throws(LDSError) -> (encoding: FaceEncoding, faces: [FaceImage]) {
        if bytes.starts(with: [0x46, 0x41, 0x43, 0x00]) {
            return (.iso19794_5, try parseISO19794_5(bytes))
        }
        if let first = bytes.first, first == 0x65 || first == 0xA1 {
            return (.iso39794_5, try parseISO39794_5(bytes))
        }
        throw .unknownBiometricDataBlock
    }

    // MARK: ISO/IEC 19794-5:2005

    /// ISO/IEC 19794-5:2005 §5.4–5.7: facial record header (14 bytes), then per face a facial
    /// information block (20 bytes), feature points (8 bytes each), image information (12 bytes)
    /// and the image.
    static func parseISO19794_5(_ bytes: [UInt8]) throws(LDSError) -> [FaceImage] {
        var r = RecordReader(bytes)
        guard try r.take(4).elementsEqual([0x46, 0x41, 0x43, 0x00]) else {
            throw .invalidFaceRecordHeader("format identifier is not FAC\\0")
        }
        guard try r.take(4).elementsEqual([0x30, 0x31, 0x30, 0x00]) else {
            throw .invalidFaceRecordHeader("version is not 010 (ISO/IEC 19794-5:2005)")
        }
        let recordLength = try r.uint(4)
        let count = try r.uint(2)
        guard recordLength <= bytes.count else {
            throw .truncatedFaceRecord(needed: recordLength, available: bytes.count)
        }
        guard recordLength >= 14 else {
            throw .inconsistentFaceRecord("record length \(recordLength) shorter than its header")
        }
        guard count >= 1 else { throw .inconsistentFaceRecord("record declares no face images") }
        var faces: [FaceImage] = []
        for _ in 0..<count {
            let blockStart = r.offset
            let blockLength = try r.uint(4)
            let points = try r.uint(2)
            let info = Array(try r.take(14))  // gender, eye and hair colour, feature mask, expression, pose
            try checkFacialInformation(info)
            _ = try r.take(points * 8)
            let faceImageType = try r.uint(1)
            guard (0...2).contains(faceImageType) else {
                throw .invalidFaceRecordField("face image type \(hex2(faceImageType)) (00 basic, 01 full frontal, 02 token frontal)")
            }
            let imageDataType = try r.uint(1)
            guard (0...1).contains(imageDataType) else {
                throw .invalidFaceRecordField("image data type \(hex2(imageDataType)) (00 JPEG, 01 JPEG 2000)")
            }
            let width = try r.uint(2)
            let height = try r.uint(2)
            _ = try r.take(6)  // colour space, source type, device type, quality
            let headerLength = r.offset - blockStart
            guard blockLength >= headerLength else {
                throw .inconsistentFaceRecord("facial block length \(blockLength) shorter than its headers")
            }
            let imageLength = blockLength - headerLength
            guard imageLength > 0 else { throw .emptyImage }
            let image = Array(try r.take(imageLength))
            faces.append(FaceImage.portrait(image, width: width, height: height))
        }
        // The record length counts every block exactly (LDS_C_16: feature points added without
        // the lengths counting them would otherwise cut the image short).
        guard r.offset == recordLength, recordLength == bytes.count else {
            throw .inconsistentFaceRecord("record length \(recordLength) for \(r.offset) bytes of blocks in a \(bytes.count)-byte data block")
        }
        return faces
    }

    /// ISO/IEC 19794-5:2005 §5.5.3–5.5.9: gender (00, 01, 02, FF), eye colour (00..07, FF), hair
    /// colour (00..09, FF), feature mask, expression, pose angles yaw/pitch/roll (0 unspecified,
    /// 1..181) and their uncertainties (0..180).
    static func checkFacialInformation(_ info: [UInt8]) throws(LDSError) {
        guard [0x00, 0x01, 0x02, 0xFF].contains(info[0]) else {
            throw .invalidFaceRecordField("gender \(hex2(Int(info[0])))")
        }
        guard info[1] <= 0x07 || info[1] == 0xFF else {
            throw .invalidFaceRecordField("eye colour \(hex2(Int(info[1])))")
        }
        guard info[2] <= 0x09 || info[2] == 0xFF else {
            throw .invalidFaceRecordField("hair colour \(hex2(Int(info[2])))")
        }
        let axes = ["yaw", "pitch", "roll"]
        for (index, axis) in axes.enumerated() where info[8 + index] > 181 {
            throw .invalidFaceRecordField("pose \(axis) \(info[8 + index]) (0 unspecified, 1..181)")
        }
        for (index, axis) in axes.enumerated() where info[11 + index] > 180 {
            throw .invalidFaceRecordField("pose uncertainty \(axis) \(info[11 + index]) (0..180)")
        }
    }

    /// Encodes an ISO/IEC 19794-5:2005 record holding one full-frontal image.
    static func encodeISO19794_5(image: [UInt8], width: Int, height: Int) -> [UInt8] {
        func be(_ v: Int, _ n: Int) -> [UInt8] { (0..<n).reversed().map { UInt8((v >> ($0 * 8)) & 0xFF) } }
        let blockLength = 20 + 12 + image.count
        let dataType: UInt8 = FaceImage.detectMimeType(image) == "image/jpeg" ? 0 : 1
        var out: [UInt8] = [0x46, 0x41, 0x43, 0x00, 0x30, 0x31, 0x30, 0x00]
        out += be(14 + blockLength, 4) + be(1, 2)
        out += be(blockLength, 4) + be(0, 2)   // no feature points
        out += Array(repeating: 0, count: 14)  // unspecified gender, colours, mask, expression, pose
        out += [0x01, dataType] + be(width, 2) + be(height, 2)  // full frontal
        out += [0x01, 0x02] + be(0, 2) + be(0, 2)  // 24-bit RGB, digital still camera
        return out + image
    }

    // MARK: ISO/IEC 39794-5

    /// ISO/IEC 39794-5 (ASN.1, DER):
    /// ```
    /// FaceImageDataBlock ::= [APPLICATION 5] SEQUENCE {
    ///     versionBlock [0] VersionBlock, representationBlocks [1] RepresentationBlocks, ... }
    /// RepresentationBlock ::= SEQUENCE { representationId [0] INTEGER,
    ///     imageRepresentation [1] ImageRepresentation, ... }
    /// ImageRepresentation ::= CHOICE { base [0] ImageRepresentationBase, extensionBlock [1] ... }
    /// ImageRepresentationBase ::= CHOICE { imageRepresentation2DBlock [0] ImageRepresentation2DBlock }
    /// ImageRepresentation2DBlock ::= SEQUENCE { representationData2D [0] OCTET STRING,
    ///     imageInformation2DBlock [1] ImageInformation2DBlock, ... }
    /// ImageInformation2DBlock ::= SEQUENCE { imageDataFormat [0], …, imageSizeBlock [7] ImageSizeBlock OPTIONAL, … }
    /// ImageSizeBlock ::= SEQUENCE { width [0] INTEGER (0..65535), height [1] INTEGER (0..65535) }
    /// ```
    static func parseISO39794_5(_ bytes: [UInt8]) throws(LDSError) -> [FaceImage] {
        let top = try LDSError.wrap { () throws(TLVError) in try TLV.parseAll(bytes) }
        var block = top.first { $0.tag == 0x65 }
        if block == nil, let wrapper = top.first(where: { $0.tag == 0xA1 }) {
            block = try LDSError.wrap { () throws(TLVError) in try wrapper.child(0x65) }
        }
        guard let block else { throw .missingDataObject(.dg(2), tag: 0x65) }
        let representations = try require(block, 0xA1)
        var faces: [FaceImage] = []
        for representation in try LDSError.wrap({ () throws(TLVError) in try representations.children() })
            where representation.tag == 0x30
        {
            let imageRepresentation = try require(representation, 0xA1)
            // Only the base 2D choice carries an image; extension blocks are skipped.
            guard let base = try LDSError.wrap({ () throws(TLVError) in try imageRepresentation.child(0xA0) })
            else { continue }
            let image2D = try require(base, 0xA0)
            let data = try require(image2D, 0x80)
            guard !data.value.isEmpty else { throw .emptyImage }
            var width: Int?, height: Int?
            if let info = try LDSError.wrap({ () throws(TLVError) in try image2D.child(0xA1) }),
               let size = try LDSError.wrap({ () throws(TLVError) in try info.child(0xA7) }) {
                width = try LDSError.wrap { () throws(TLVError) in try size.child(0x80) }.flatMap(derUnsigned)
                height = try LDSError.wrap { () throws(TLVError) in try size.child(0x81) }.flatMap(derUnsigned)
            }
            faces.append(FaceImage.portrait(data.bytes, width: width, height: height))
        }
        guard !faces.isEmpty else { throw .missingDataObject(.dg(2), tag: 0x80) }
        return faces
    }

    /// Encodes a 39794-5 data block: `[1] { FaceImageDataBlock }` with one 2D representation.
    static func encodeISO39794_5(image: [UInt8], width: Int, height: Int) -> [UInt8] {
        // ImageDataFormatCode: jpeg (2), jpeg2000Lossy (3).
        let format: UInt8 = FaceImage.detectMimeType(image) == "image/jpeg" ? 2 : 3
        let info = TLV.encode(tag: 0xA1, children: [
            TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x80, value: [format])]),
            TLV.encode(tag: 0xA7, children: [
                TLV.encode(tag: 0x80, value: derInteger(width)),
                TLV.encode(tag: 0x81, value: derInteger(height)),
            ]),
        ])
        let image2D = TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x80, value: image), info])
        let representation = TLV.encode(tag: 0x30, children: [
            TLV.encode(tag: 0x80, value: [0x00]),
            TLV.encode(tag: 0xA1, children: [TLV.encode(tag: 0xA0, children: [image2D])]),
        ])
        let block = TLV.encode(tag: 0x65, children: [
            // VersionBlock: generation 3, year 2019.
            TLV.encode(tag: 0xA0, children: [
                TLV.encode(tag: 0x80, value: [0x03]), TLV.encode(tag: 0x81, value: [0x07, 0xE3]),
            ]),
            TLV.encode(tag: 0xA1, children: [representation]),
        ])
        return TLV.encode(tag: 0xA1, children: [block])
    }

    // MARK: Encoding

    /// Encodes DG2 holding one face image, with a biometric header template naming format owner
    /// `0101` (ISO/IEC JTC 1/SC 37) and format type `0008` (19794-5) or `002A` (39794-5).
    public static func encode(image: [UInt8], width: Int, height: Int, encoding: FaceEncoding) -> [UInt8] {
        let formatType: [UInt8] = encoding == .iso19794_5 ? [0x00, 0x08] : [0x00, 0x2A]
        let header = TLV.encode(tag: 0xA1, children: [
            TLV.encode(tag: 0x80, value: [0x01, 0x01]),  // ICAO header version 1.1
            TLV.encode(tag: 0x81, value: [0x02]),        // biometric type: facial features
            TLV.encode(tag: 0x87, value: [0x01, 0x01]),
            TLV.encode(tag: 0x88, value: formatType),
        ])
        let block: [UInt8]
        switch encoding {
        case .iso19794_5:
            block = TLV.encode(tag: 0x5F2E, value: encodeISO19794_5(image: image, width: width, height: height))
        case .iso39794_5:
            block = TLV.encode(tag: 0x7F2E, value: encodeISO39794_5(image: image, width: width, height: height))
        }
        return TLV.encode(tag: 0x75, children: [
            TLV.encode(tag: 0x7F61, children: [
                TLV.encode(tag: 0x02, value: [0x01]),
                TLV.encode(tag: 0x7F60, children: [header, block]),
            ]),
        ])
    }

    private static func require(_ parent: TLV, _ tag: UInt) throws(LDSError) -> TLV {
        guard let found = try LDSError.wrap({ () throws(TLVError) in try parent.child(tag) }) else {
            throw .missingDataObject(.dg(2), tag: tag)
        }
        return found
    }
}

/// A non-negative DER INTEGER's content octets as an Int (at most 4 significant bytes).
private func derUnsigned(_ object: TLV) -> Int? {
    let v = object.value.drop { $0 == 0 }
    guard v.count <= 4, object.value.first.map({ $0 & 0x80 == 0 }) ?? false else { return nil }
    return v.reduce(0) { $0 << 8 | Int($1) }
}

/// A byte value as two hex digits.
private func hex2(_ value: Int) -> String {
    let s = String(value, radix: 16, uppercase: true)
    return s.count < 2 ? "0" + s : s
}

/// Minimal DER INTEGER content octets for a non-negative value.
private func derInteger(_ value: Int) -> [UInt8] {
    var out = MinimalBytes.bigEndian(nonNegative: value)
    if out[0] & 0x80 != 0 { out.insert(0, at: 0) }
    return out
}
