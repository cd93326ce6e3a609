/// EF.ATR/INFO (Doc 9303-10 §3.11; ISO/IEC 7816-4 §8.2.1.1): interindustry data objects in the master
/// file (FID 2F01, SFI 01), readable without access control. The reader takes two things from it:
/// the extended length information `7F66` (ISO/IEC 7816-4 §12.7.1: `02` the largest command APDU,
/// `02` the largest response APDU the chip handles, in bytes) and the card capabilities `47`.
///
/// Parsing is strict: the plan (BSI TR-03105-5.1 LDS_K) has an inspection system report a file whose
/// extended length information lacks the response size, or that carries an unknown interindustry
/// object in its place, as a failure. Such a file still never stops a read (``ReadResult/atrInfo``).
public struct ATRInfo: Sendable, Equatable {
    /// The largest command APDU the chip accepts (header, Lc, data, Le), from `7F66`.
    public var maxCommandLength: Int?
    /// The largest response APDU the chip sends (data and status word), from `7F66`.
    public var maxResponseLength: Int?
    /// The card capabilities `47` (ISO/IEC 7816-4 §12.1.1.9), as stored.
    public var cardCapabilities: [UInt8]?
    /// The tags of the top-level objects, in file order.
    public var tags: [UInt]

    /// The extended length information: both sizes.
    public var extendedLengthInfo: (maxCommandLength: Int, maxResponseLength: Int)? {
        guard let maxCommandLength, let maxResponseLength else { return nil }
        return (maxCommandLength, maxResponseLength)
    }

    /// Interindustry (application-class) objects EF.ATR/INFO may hold (ISO/IEC 7816-4 §8.2.1.1 and
    /// §12): country and issuer (41, 42), card service data (43), initial access data (44), issuer's
    /// data (45), pre-issuing data (46), card capabilities (47), status (48), extended header list
    /// (4D), AID and label (4F, 50), historical bytes and related (5F50-5F52), templates (61, 62,
    /// 64, 6F) and the extended length information (7F66). Context- and private-class objects are
    /// proprietary and left alone.
    public static let knownInterindustryTags: Set<UInt> = [
        0x41, 0x42, 0x43, 0x44, 0x45, 0x46, 0x47, 0x48, 0x4D, 0x4F, 0x50, 0x5F50, 0x5F51, 0x5F52,
        0x61, 0x62, 0x64, 0x6F, 0x7F66,
    ]

    public init(maxCommandLength: Int? = nil, maxResponseLength: Int? = nil, cardCapabilities: [UInt8]? = nil, tags: [UInt] = []) {
        self.maxCommandLength = maxCommandLength
        self.maxResponseLength = maxResponseLength
        self.cardCapabilities = cardCapabilities
        self.tags = tags
    }

    /// Parses the file's bytes (`00`/`FF` padding between objects is skipped).
    public init(rawBytes: [UInt8]) throws(ATRInfoError) {
        let objects: [TLV]
        do {
            objects = try TLV.parseAll(rawBytes, maxDepth: 2)
        } catch {
            throw .malformed("\(error)")
        }
        guard !objects.isEmpty else { throw .malformed("no data object") }
        tags = objects.map(\.tag)
        for object in objects {
            // Application class (bits 8-7 = 01): the interindustry objects of ISO/IEC 7816-4.
            let firstByte = TLV.encodeTag(object.tag).first ?? 0
            if firstByte & 0xC0 == 0x40 && !Self.knownInterindustryTags.contains(object.tag) {
                throw .unknownObject(String(object.tag, radix: 16, uppercase: true))
            }
            switch object.tag {
            case 0x47:
                cardCapabilities = Array(object.value)
            case 0x7F66:
                let sizes = try Self.extendedLengthInfo(object)
                maxCommandLength = sizes.command
                maxResponseLength = sizes.response
            default:
                break
            }
        }
    }

    /// `7F66 { 02 max-command, 02 max-response }`: two positive unsigned integers of 1 to 4 bytes
    /// (LDS_K_01 two bytes, LDS_K_02 three).
    static func extendedLengthInfo(_ object: TLV) throws(ATRInfoError) -> (command: Int, response: Int) {
        let children: [TLV]
        do {
            children = try object.children(maxDepth: 1)
        } catch {
            throw .extendedLengthInfoMalformed("\(error)")
        }
        let integers = children.filter { $0.tag == 0x02 }
        guard integers.count >= 2 else {
            throw .extendedLengthInfoMalformed(
                integers.count == 1 ? "the maximum response APDU length is missing" : "no length values")
        }
        var values: [Int] = []
        for integer in integers.prefix(2) {
            guard (1...4).contains(integer.value.count) else {
                throw .extendedLengthInfoMalformed("a length value of \(integer.value.count) bytes")
            }
            let value = integer.value.reduce(0) { $0 << 8 | Int($1) }
            // Smaller than a case 1 command or a status word: not a length a chip can mean.
            guard value >= 5 else { throw .extendedLengthInfoMalformed("length value \(value)") }
            values.append(value)
        }
        return (values[0], values[1])
    }
}

/// Why EF.ATR/INFO could not be used.
public enum ATRInfoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Not a sequence of BER-TLV data objects.
    case malformed(String)
    /// `7F66` without both length values, or with unusable ones.
    case extendedLengthInfoMalformed(String)
    /// An application-class object ISO/IEC 7816-4 does not define for EF.ATR/INFO (`7F65` where
    /// `7F66` belongs, LDS_K_04).
    case unknownObject(String)

    public var description: String {
        switch self {
        case .malformed(let why): return "EF.ATR/INFO is not a sequence of data objects: \(why)"
        case .extendedLengthInfoMalformed(let why): return "extended length information (7F66) malformed: \(why)"
        case .unknownObject(let tag): return "EF.ATR/INFO holds data object \(tag), which is no interindustry object of EF.ATR/INFO"
        }
    }

    /// A stable reason code (`checks.atrInfo.reason`).
    public var reason: String {
        switch self {
        case .malformed: return "atrInfoMalformed"
        case .extendedLengthInfoMalformed: return "extendedLengthInfoMalformed"
        case .unknownObject: return "atrInfoUnknownObject"
        }
    }
}

extension ReadResult {
    /// What the reader found in EF.ATR/INFO (`atrInfo` of the result JSON).
    public struct ATRInfoReport: Sendable, Equatable, Codable {
        /// `read`, `absent` (6A82), `refused` (another status word) or `unreadable` (a transport-level
        /// failure to read it); the read goes on in every case.
        public var status: String
        /// The status word of a refusal, hex (`6982`).
        public var statusWord: String?
        /// The largest command APDU the chip accepts, from `7F66`.
        public var maxCommandLength: Int?
        /// The largest response APDU the chip sends, from `7F66`.
        public var maxResponseLength: Int?
        /// The card capabilities `47`, hex.
        public var cardCapabilities: String?
        /// The top-level data objects' tags, hex, in file order.
        public var objects: [String]?
        /// Whether the reader sized its APDUs by `maxCommandLength` / `maxResponseLength`.
        public var applied: Bool

        public init(
            status: String, statusWord: String? = nil, maxCommandLength: Int? = nil, maxResponseLength: Int? = nil,
            cardCapabilities: String? = nil, objects: [String]? = nil, applied: Bool = false
        ) {
            self.status = status
            self.statusWord = statusWord
            self.maxCommandLength = maxCommandLength
            self.maxResponseLength = maxResponseLength
            self.cardCapabilities = cardCapabilities
            self.objects = objects
            self.applied = applied
        }
    }
}
