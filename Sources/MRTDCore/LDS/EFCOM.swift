/// EF.COM: LDS version, Unicode version and the list of data groups present
/// (Doc 9303-10 §4.6.1).
///
/// ```
/// 60 L { 5F01 04 "0107"   LDS version (aabb: version aa, update level bb)
///        5F36 06 "040000" Unicode version (aabbcc)
///        5C   L  tag list of the data groups present }
/// ```
public struct EFCOM: Sendable, Equatable {
    /// The file as read.
    public let rawBytes: [UInt8]
    /// Four digits, e.g. `0107` for LDS 1.7.
    public let ldsVersion: String
    /// Six digits, e.g. `040000` for Unicode 4.0.0.
    public let unicodeVersion: String
    /// The data groups listed, in list order.
    public let dataGroups: [LDSFile]

    /// - Throws: `LDSError` when `5F01`, `5F36` or `5C` is missing, a version is malformed, the
    ///   list names a tag that is no data group, or DG1 is not listed (RELIABILITY TLV-05).
    public init(rawBytes: [UInt8]) throws(LDSError) {
        let outer = try LDSError.parseOuter(rawBytes, file: .com)
        let children = try LDSError.wrap { () throws(TLVError) in try outer.children() }
        func find(_ tag: UInt) throws(LDSError) -> TLV {
            guard let found = children.first(where: { $0.tag == tag }) else {
                throw .missingDataObject(.com, tag: tag)
            }
            return found
        }
        func digits(_ tag: UInt, count: Int) throws(LDSError) -> String {
            let value = try find(tag).value
            guard value.count == count, value.allSatisfy({ (0x30...0x39).contains($0) }) else {
                throw .invalidVersion(tag: tag)
            }
            return String(decoding: value, as: UTF8.self)
        }
        self.ldsVersion = try digits(0x5F01, count: 4)
        self.unicodeVersion = try digits(0x5F36, count: 6)
        var groups: [LDSFile] = []
        for t in try find(0x5C).value {
            guard let dg = LDSFile.dataGroup(forTag: UInt(t)) else { throw .unknownDataGroupTag(t) }
            groups.append(dg)
        }
        guard groups.contains(.dg(1)) else { throw .dataGroupListMissingDG1 }
        self.dataGroups = groups
        self.rawBytes = rawBytes
    }

    /// Encodes EF.COM.
    public static func encode(
        ldsVersion: String = "0107", unicodeVersion: String = "040000", dataGroups: [LDSFile]
    ) -> [UInt8] {
        TLV.encode(tag: 0x60, children: [
            TLV.encode(tag: 0x5F01, value: Array(ldsVersion.utf8)),
            TLV.encode(tag: 0x5F36, value: Array(unicodeVersion.utf8)),
            TLV.encode(tag: 0x5C, value: dataGroups.compactMap { $0.tag.map { UInt8($0) } }),
        ])
    }
}

extension EFCOM {
    /// The LDS versions of Doc 9303-10 (1.7 and 1.8: `0107`, `0108`) and the Unicode version it names
    /// (4.0.0: `040000`).
    public static let knownLDSVersions: Set<String> = ["0107", "0108"]
    public static let knownUnicodeVersions: Set<String> = ["040000"]

    /// Warnings for versions the reader does not know (it depends on neither: the data group list is
    /// what it uses): `efComLDSVersionUnknown: 0300`, `efComUnicodeVersionUnknown: 050000`.
    public var versionWarnings: [String] {
        var warnings: [String] = []
        if !Self.knownLDSVersions.contains(ldsVersion) { warnings.append("efComLDSVersionUnknown: \(ldsVersion)") }
        if !Self.knownUnicodeVersions.contains(unicodeVersion) {
            warnings.append("efComUnicodeVersionUnknown: \(unicodeVersion)")
        }
        return warnings
    }
}
