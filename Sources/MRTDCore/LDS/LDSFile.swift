/// The elementary files of the eMRTD application and the master file that the reader touches
/// (Doc 9303-10 §3.6.2 / §4.6: file identifiers, short file identifiers and outer tags).
public enum LDSFile: Hashable, Sendable, Comparable, CustomStringConvertible {
    case cardAccess
    case cardSecurity
    case atrInfo
    case com
    case sod
    /// EF.CVCA in the eMRTD application: the chip's EAC trust points (BSI TR-03110-3 §A.6.2.1).
    case cvca
    /// DG1 to DG16.
    case dg(Int)

    /// Every data group, DG1 to DG16.
    public static let allDataGroups: [LDSFile] = (1...16).map { .dg($0) }

    /// The two-byte file identifier used with SELECT (P1=02, or P1=00 under the MF).
    public var fileID: UInt16 {
        switch self {
        case .cardAccess: return 0x011C
        case .cardSecurity: return 0x011D
        case .atrInfo: return 0x2F01
        case .com: return 0x011E
        case .sod: return 0x011D
        case .cvca: return 0x011C
        case .dg(let n): return 0x0100 + UInt16(n)
        }
    }

    /// The short file identifier (Doc 9303-10 Table 38 / 39).
    public var shortFileID: UInt8 {
        switch self {
        case .cardAccess: return 0x1C
        case .cardSecurity: return 0x1D
        case .atrInfo: return 0x01
        case .com: return 0x1E
        case .sod: return 0x1D
        case .cvca: return 0x1C
        case .dg(let n): return UInt8(n)
        }
    }

    /// Whether the file lives in the master file rather than in the eMRTD application.
    public var isInMasterFile: Bool {
        switch self {
        case .cardAccess, .cardSecurity, .atrInfo: return true
        default: return false
        }
    }

    /// The outer tag the file's content starts with (`nil` for files that are plain SecurityInfos
    /// or CMS with no application tag).
    public var tag: UInt? {
        switch self {
        case .com: return 0x60
        case .sod: return 0x77
        case .dg(let n):
            let tags: [UInt] = [0x61, 0x75, 0x63, 0x76, 0x65, 0x66, 0x67, 0x68,
                                0x69, 0x6A, 0x6B, 0x6C, 0x6D, 0x6E, 0x6F, 0x70]
            return (1...16).contains(n) ? tags[n - 1] : nil
        case .cardAccess, .cardSecurity, .atrInfo, .cvca: return nil
        }
    }

    /// The data group whose outer tag is `tag` (EF.COM lists data groups by tag).
    public static func dataGroup(forTag tag: UInt) -> LDSFile? {
        allDataGroups.first { $0.tag == tag }
    }

    /// The data group number, or `nil` for other files.
    public var dataGroupNumber: Int? {
        if case .dg(let n) = self { return n }
        return nil
    }

    /// The name used in file dumps and the result JSON: `EF_COM`, `EF_SOD`, `DG1`, …
    public var name: String {
        switch self {
        case .cardAccess: return "EF_CardAccess"
        case .cardSecurity: return "EF_CardSecurity"
        case .atrInfo: return "EF_ATR_INFO"
        case .com: return "EF_COM"
        case .sod: return "EF_SOD"
        case .cvca: return "EF_CVCA"
        case .dg(let n): return "DG\(n)"
        }
    }

    /// The inverse of `name`.
    public init?(name: String) {
        switch name {
        case "EF_CardAccess": self = .cardAccess
        case "EF_CardSecurity": self = .cardSecurity
        case "EF_ATR_INFO": self = .atrInfo
        case "EF_COM": self = .com
        case "EF_SOD": self = .sod
        case "EF_CVCA": self = .cvca
        default:
            guard name.hasPrefix("DG"), let n = Int(name.dropFirst(2)), (1...16).contains(n) else {
                return nil
            }
            self = .dg(n)
        }
    }

    public var description: String { name }

    private var order: Int {
        switch self {
        case .atrInfo: return 0
        case .cardAccess: return 1
        case .cardSecurity: return 2
        case .com: return 3
        case .sod: return 4
        case .cvca: return 5
        case .dg(let n): return 10 + n
        }
    }

    public static func < (a: LDSFile, b: LDSFile) -> Bool { a.order < b.order }
}
