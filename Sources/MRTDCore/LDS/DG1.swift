/// EF.DG1: the MRZ as printed (Doc 9303-10 §4.7.1).
///
/// ```
/// 61 L {  5F1F L  <MRZ data elements, lines concatenated, no separators> }
/// ```
public struct DG1: Sendable, Equatable {
    /// The file as read; data group hashes are computed over these bytes.
    public let rawBytes: [UInt8]
    /// The parsed MRZ. Wrong check digits are reported in `mrz.checkDigits`, not thrown.
    public let mrz: MRZ

    public init(rawBytes: [UInt8]) throws(LDSError) {
        let outer = try LDSError.parseOuter(rawBytes, file: .dg(1))
        guard let object = try LDSError.wrap({ () throws(TLVError) in try outer.child(0x5F1F) }) else {
            throw .missingDataObject(.dg(1), tag: 0x5F1F)
        }
        guard object.value.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else {
            throw .invalidText(.dg(1), tag: 0x5F1F)
        }
        let text = String(decoding: object.value, as: UTF8.self)
        do {
            self.mrz = try MRZ(text)
        } catch {
            throw .invalidMRZ(error)
        }
        self.rawBytes = rawBytes
    }

    /// Encodes DG1 from the MRZ lines concatenated without separators.
    public static func encode(mrz: String) -> [UInt8] {
        TLV.encode(tag: 0x61, children: [TLV.encode(tag: 0x5F1F, value: Array(mrz.utf8))])
    }
}

extension DG1: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// Redacted: DG1 is personal data.
    public var description: String { "DG1(\(rawBytes.count) bytes, \(mrz))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
