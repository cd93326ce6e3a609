/// What can be wrong with an LDS file (EF.COM, DG1, DG2). Descriptions name structure only,
/// never MRZ data or image content.
public enum LDSError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The BER-TLV structure is broken (truncated, lying length, trailing bytes, …).
    case tlv(TLVError)
    /// The file starts with a different outer tag (RELIABILITY TLV-01).
    case wrongOuterTag(LDSFile, expected: UInt, found: UInt)
    /// A mandatory data object is absent from the file.
    case missingDataObject(LDSFile, tag: UInt)
    /// The MRZ in DG1 is not valid MRZ text.
    case invalidMRZ(MRZError)
    /// A text object holds bytes that are not printable ASCII.
    case invalidText(LDSFile, tag: UInt)
    /// EF.COM version field (`5F01` or `5F36`) not in the required digit format.
    case invalidVersion(tag: UInt)
    /// EF.COM lists a tag that is no data group (RELIABILITY TLV-05).
    case unknownDataGroupTag(UInt8)
    /// EF.COM's data group list does not include the mandatory DG1 (RELIABILITY TLV-05).
    case dataGroupListMissingDG1
    /// DG2's instance count (tag `02`) is absent, out of range or disagrees with the templates.
    case biometricCountMismatch(declared: Int, found: Int)
    /// A biometric information template without a biometric data block (`5F2E` / `7F2E`)
    /// (RELIABILITY DG2-01).
    case missingBiometricDataBlock(template: Int)
    /// A face record or data block ended before a field it declares.
    case truncatedFaceRecord(needed: Int, available: Int)
    /// The face record does not start with `FAC\0` or has an unsupported version.
    case invalidFaceRecordHeader(String)
    /// A face record whose header fields are inconsistent (lengths, counts).
    case inconsistentFaceRecord(String)
    /// A face record holding an empty image (RELIABILITY DG2-01).
    case emptyImage
    /// A biometric data block in neither ISO/IEC 19794-5 nor ISO/IEC 39794-5 form.
    case unknownBiometricDataBlock
    /// A biometric header template (`A1`) naming a format owner, format type or biometric type that
    /// is not a face the reader knows (Doc 9303-10 §4.7.2.1; TR-03105-5.1 LDS_C_08, _10, _13).
    case invalidBiometricHeader(String)
    /// An ISO/IEC 19794-5 face record field outside the values the standard defines (gender, eye
    /// and hair colour, pose, image types; TR-03105-5.1 LDS_C_17..27).
    case invalidFaceRecordField(String)

    public var description: String {
        switch self {
        case .tlv(let e): return "LDS TLV error: \(e)"
        case .wrongOuterTag(let file, let expected, let found):
            return "\(file) must start with tag 0x\(hex(expected)), found 0x\(hex(found))"
        case .missingDataObject(let file, let tag):
            return "\(file) lacks mandatory data object 0x\(hex(tag))"
        case .invalidMRZ(let e): return "DG1 MRZ invalid: \(e)"
        case .invalidText(let file, let tag):
            return "\(file) data object 0x\(hex(tag)) is not printable ASCII"
        case .invalidVersion(let tag):
            return "EF_COM version object 0x\(hex(tag)) is not in the required digit format"
        case .unknownDataGroupTag(let t):
            return "EF_COM lists tag 0x\(hex(UInt(t))), which is no data group"
        case .dataGroupListMissingDG1: return "EF_COM data group list does not include DG1"
        case .biometricCountMismatch(let declared, let found):
            return "DG2 declares \(declared) biometric templates, found \(found)"
        case .missingBiometricDataBlock(let i):
            return "DG2 biometric template \(i) has no biometric data block (5F2E/7F2E)"
        case .truncatedFaceRecord(let needed, let available):
            return "face record truncated: \(needed) bytes needed, \(available) present"
        case .invalidFaceRecordHeader(let why): return "face record header invalid: \(why)"
        case .inconsistentFaceRecord(let why): return "face record inconsistent: \(why)"
        case .emptyImage: return "face record holds an empty image"
        case .unknownBiometricDataBlock:
            return "biometric data block is neither ISO/IEC 19794-5 nor ISO/IEC 39794-5"
        case .invalidBiometricHeader(let why): return "biometric header template invalid: \(why)"
        case .invalidFaceRecordField(let why): return "face record field out of range: \(why)"
        }
    }
}

private func hex(_ t: UInt) -> String {
    let s = String(t, radix: 16, uppercase: true)
    return s.count % 2 == 1 ? "0" + s : s
}

extension LDSError {
    /// Parses `bytes` as one TLV object that must carry the file's outer tag.
    static func parseOuter(_ bytes: [UInt8], file: LDSFile) throws(LDSError) -> TLV {
        let tag = file.tag ?? 0
        do {
            return try TLV.parse(bytes, expecting: tag)
        } catch .unexpectedTag(let expected, let found) {
            throw .wrongOuterTag(file, expected: expected, found: found)
        } catch {
            throw .tlv(error)
        }
    }

    /// Runs a TLV step, wrapping its error.
    static func wrap<T>(_ body: () throws(TLVError) -> T) throws(LDSError) -> T {
        do { return try body() } catch { throw .tlv(error) }
    }
}
