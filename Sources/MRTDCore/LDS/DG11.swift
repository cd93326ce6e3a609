/// EF.DG11: additional personal details (Doc 9303-10 §4.7.11). Every object but the tag list is
/// optional; text is UTF-8, names use `<<` between primary and secondary identifier.
///
/// ```
/// 6B { 5C   tag list
///      5F0E full name (primary << secondary)
///      A0 { 02 count, 5F0F other name, … }   other names
///      5F10 personal number
///      5F2B full date of birth (yyyymmdd)
///      5F11 place of birth           5F42 permanent address   (fields separated by <)
///      5F12 telephone                5F13 profession
///      5F14 title                    5F15 personal summary
///      5F16 proof of citizenship (image)
///      5F17 other valid travel document numbers (separated by <)
///      5F18 custody information }
/// ```
public struct DG11: Sendable, Equatable {
    /// The file as read; data group hashes are computed over these bytes.
    public let rawBytes: [UInt8]
    public let fullName: String?
    public let otherNames: [String]
    public let personalNumber: String?
    public let fullDateOfBirth: LDSDate?
    public let placeOfBirth: String?
    public let permanentAddress: String?
    public let telephone: String?
    public let profession: String?
    public let title: String?
    public let personalSummary: String?
    /// The image of the proof of citizenship (ISO/IEC 10918, JPEG), as stored.
    public let proofOfCitizenship: FaceImage?
    /// The other valid travel document numbers, split at `<`.
    public let otherValidTravelDocumentNumbers: [String]
    public let custodyInformation: String?
    /// What was odd but not fatal (unknown objects, a bad tag list, non-UTF-8 text); no values.
    public let warnings: [String]

    /// - Throws: `LDSError` when the file is not BER-TLV or does not start with tag `6B`.
    public init(rawBytes: [UInt8]) throws(LDSError) {
        var r = try LDSTemplateReader(rawBytes: rawBytes, file: .dg(11))
        self.rawBytes = rawBytes
        fullName = r.text(0x5F0E)
        otherNames = r.repeatedText(wrapper: 0xA0, 0x5F0F)
        personalNumber = r.text(0x5F10)
        fullDateOfBirth = r.date(0x5F2B)
        placeOfBirth = r.text(0x5F11)
        permanentAddress = r.text(0x5F42)
        telephone = r.text(0x5F12)
        profession = r.text(0x5F13)
        title = r.text(0x5F14)
        personalSummary = r.text(0x5F15)
        proofOfCitizenship = r.bytes(0x5F16).map { FaceImage(imageData: $0) }
        otherValidTravelDocumentNumbers = r.text(0x5F17).map {
            $0.split(separator: "<", omittingEmptySubsequences: true).map(String.init)
        } ?? []
        custodyInformation = r.text(0x5F18)
        r.finish(known: DG11.knownTags)
        warnings = r.warnings
    }

    static let knownTags: Set<UInt> = [
        0xA0, 0x5F0F, 0x5F0E, 0x5F10, 0x5F2B, 0x5F11, 0x5F42, 0x5F12, 0x5F13, 0x5F14, 0x5F15, 0x5F16, 0x5F17, 0x5F18,
    ]
}

/// EF.DG12: additional document details (Doc 9303-10 §4.7.12).
///
/// ```
/// 6C { 5C   tag list
///      5F19 issuing authority
///      5F26 date of issue (yyyymmdd)
///      A0 { 02 count, 5F1A name of other person, … }
///      5F1B endorsements and observations
///      5F1C tax or exit requirements
///      5F1D image of the front of the document   5F1E image of the rear
///      5F55 date and time of personalisation (yyyymmddhhmmss)
///      5F56 serial number of the personalisation system }
/// ```
public struct DG12: Sendable, Equatable {
    public let rawBytes: [UInt8]
    public let issuingAuthority: String?
    public let dateOfIssue: LDSDate?
    public let otherPersons: [String]
    public let endorsementsAndObservations: String?
    public let taxOrExitRequirements: String?
    public let frontImage: FaceImage?
    public let rearImage: FaceImage?
    public let personalizationTime: LDSDate?
    public let personalizationDeviceSerialNumber: String?
    /// What was odd but not fatal; no values.
    public let warnings: [String]

    /// - Throws: `LDSError` when the file is not BER-TLV or does not start with tag `6C`.
    public init(rawBytes: [UInt8]) throws(LDSError) {
        var r = try LDSTemplateReader(rawBytes: rawBytes, file: .dg(12))
        self.rawBytes = rawBytes
        issuingAuthority = r.text(0x5F19)
        dateOfIssue = r.date(0x5F26)
        otherPersons = r.repeatedText(wrapper: 0xA0, 0x5F1A)
        endorsementsAndObservations = r.text(0x5F1B)
        taxOrExitRequirements = r.text(0x5F1C)
        frontImage = r.bytes(0x5F1D).map { FaceImage(imageData: $0) }
        rearImage = r.bytes(0x5F1E).map { FaceImage(imageData: $0) }
        personalizationTime = r.date(0x5F55)
        personalizationDeviceSerialNumber = r.text(0x5F56)
        r.finish(known: DG12.knownTags)
        warnings = r.warnings
    }

    static let knownTags: Set<UInt> = [0x5F19, 0x5F26, 0xA0, 0x5F1A, 0x5F1B, 0x5F1C, 0x5F1D, 0x5F1E, 0x5F55, 0x5F56]
}

/// EF.DG16: persons to notify (Doc 9303-10 §4.7.16).
///
/// ```
/// 70 { 02 count
///      A1 { 5F50 date data recorded (yyyymmdd), 5F51 name, 5F52 telephone, 5F53 address }
///      A2 { … } … }
/// ```
public struct DG16: Sendable, Equatable {
    /// One person to notify.
    public struct Person: Sendable, Equatable {
        public let dateRecorded: LDSDate?
        public let name: String?
        public let telephone: String?
        public let address: String?
    }

    public let rawBytes: [UInt8]
    public let persons: [Person]
    public let warnings: [String]

    /// - Throws: `LDSError` when the file is not BER-TLV or does not start with tag `70`.
    public init(rawBytes: [UInt8]) throws(LDSError) {
        let outer = try LDSError.parseOuter(rawBytes, file: .dg(16))
        let children = try LDSError.wrap { () throws(TLVError) in try outer.children() }
        var warnings: [String] = []
        var persons: [Person] = []
        // Templates A1, A2, … (context-specific constructed, one per person).
        for template in children where (0xA1...0xBE).contains(template.tag) {
            var r = try LDSTemplateReader(template: template, file: .dg(16))
            persons.append(Person(
                dateRecorded: r.date(0x5F50), name: r.text(0x5F51), telephone: r.text(0x5F52), address: r.text(0x5F53)))
            r.finish(known: [0x5F50, 0x5F51, 0x5F52, 0x5F53])
            warnings += r.warnings
        }
        warnings += LDSTemplateReader.countWarning(children, found: persons.count, file: .dg(16), of: "persons to notify")
        for other in children where other.tag != 0x02 && !(0xA1...0xBE).contains(other.tag) {
            warnings.append("DG16: unknown data object 0x\(LDSTemplateReader.hex(other.tag)), ignored")
        }
        self.rawBytes = rawBytes
        self.persons = persons
        self.warnings = warnings
    }
}

/// EF.DG13: optional details, in a format the issuing state defines (Doc 9303-10 §4.7.13). Kept
/// whole and opaque; only its outer tag `6D` is checked.
public struct DG13: Sendable, Equatable {
    public let rawBytes: [UInt8]
    /// The length of the content inside the outer tag.
    public let contentLength: Int

    /// Checks the outer tag and length only: the content is the issuer's and need not be BER-TLV.
    public init(rawBytes: [UInt8]) throws(LDSError) {
        let header = try LDSError.wrap { () throws(TLVError) in try TLV.parseHeader(rawBytes) }
        guard header.tag == 0x6D else { throw .wrongOuterTag(.dg(13), expected: 0x6D, found: header.tag) }
        guard header.totalLength <= rawBytes.count else {
            throw .tlv(.truncated(needed: header.length, available: rawBytes.count - header.headerLength))
        }
        guard header.totalLength == rawBytes.count else { throw .tlv(.trailingBytes(rawBytes.count - header.totalLength)) }
        self.rawBytes = rawBytes
        self.contentLength = header.length
    }
}

extension LDSFile {
    /// Encodes a text data group (DG11, DG12): the outer tag, a tag list naming `objects`' tags in
    /// order, then the objects (each a complete TLV).
    public func encodeTemplate(objects: [[UInt8]]) -> [UInt8] {
        let tags = objects.compactMap { try? TLV.parseHeader($0).tag }
        let list = tags.flatMap { TLV.encodeTag($0) }
        return TLV.encode(tag: tag ?? 0, children: [TLV.encode(tag: 0x5C, value: list)] + objects)
    }
}
