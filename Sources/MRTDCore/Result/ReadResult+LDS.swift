/// The result model's parts for the data groups beyond DG1/DG2 (DG3, DG4, DG5, DG7, DG11, DG12,
/// DG13, DG16). Every field is personal data: it goes to the client that asked for the read and
/// never to a log. Images travel separately (`GET /v1/reads/{id}/images/{name}`); the result only
/// names and describes them.
extension ReadResult {
    /// DG11, additional personal details (Doc 9303-10 §4.7.11). Absent fields were not on the chip.
    public struct PersonalDetailsInfo: Sendable, Equatable, Codable {
        /// Primary and secondary identifiers separated by `<<`, as on the chip.
        public var fullName: String?
        public var otherNames: [String]?
        public var personalNumber: String?
        /// ISO 8601, when the chip's date is a valid full date.
        public var dateOfBirth: String?
        /// As on the chip (usually `yyyymmdd`).
        public var dateOfBirthRaw: String?
        public var placeOfBirth: String?
        public var address: String?
        public var telephone: String?
        public var profession: String?
        public var title: String?
        public var personalSummary: String?
        /// The name of the proof-of-citizenship image in `images`.
        public var proofOfCitizenshipImage: String?
        public var otherTravelDocumentNumbers: [String]?
        public var custodyInformation: String?

        public init(_ dg11: DG11, proofImageName: String?) {
            fullName = dg11.fullName
            otherNames = dg11.otherNames.isEmpty ? nil : dg11.otherNames
            personalNumber = dg11.personalNumber
            dateOfBirth = dg11.fullDateOfBirth?.iso8601
            dateOfBirthRaw = dg11.fullDateOfBirth?.raw
            placeOfBirth = dg11.placeOfBirth
            address = dg11.permanentAddress
            telephone = dg11.telephone
            profession = dg11.profession
            title = dg11.title
            personalSummary = dg11.personalSummary
            proofOfCitizenshipImage = proofImageName
            otherTravelDocumentNumbers = dg11.otherValidTravelDocumentNumbers.isEmpty
                ? nil : dg11.otherValidTravelDocumentNumbers
            custodyInformation = dg11.custodyInformation
        }
    }

    /// DG12, additional document details (Doc 9303-10 §4.7.12).
    public struct DocumentDetailsInfo: Sendable, Equatable, Codable {
        public var issuingAuthority: String?
        /// ISO 8601, when valid.
        public var dateOfIssue: String?
        public var dateOfIssueRaw: String?
        public var otherPersons: [String]?
        public var endorsementsAndObservations: String?
        public var taxOrExitRequirements: String?
        /// Names of the document images in `images`.
        public var frontImage: String?
        public var rearImage: String?
        /// ISO 8601 date and time, when valid.
        public var personalizationTime: String?
        public var personalizationTimeRaw: String?
        public var personalizationDeviceSerialNumber: String?

        public init(_ dg12: DG12, frontImageName: String?, rearImageName: String?) {
            issuingAuthority = dg12.issuingAuthority
            dateOfIssue = dg12.dateOfIssue?.iso8601
            dateOfIssueRaw = dg12.dateOfIssue?.raw
            otherPersons = dg12.otherPersons.isEmpty ? nil : dg12.otherPersons
            endorsementsAndObservations = dg12.endorsementsAndObservations
            taxOrExitRequirements = dg12.taxOrExitRequirements
            frontImage = frontImageName
            rearImage = rearImageName
            personalizationTime = dg12.personalizationTime?.iso8601
            personalizationTimeRaw = dg12.personalizationTime?.raw
            personalizationDeviceSerialNumber = dg12.personalizationDeviceSerialNumber
        }
    }

    /// One DG16 entry.
    public struct PersonToNotifyInfo: Sendable, Equatable, Codable {
        public var dateRecorded: String?
        public var dateRecordedRaw: String?
        public var name: String?
        public var telephone: String?
        public var address: String?

        public init(_ person: DG16.Person) {
            dateRecorded = person.dateRecorded?.iso8601
            dateRecordedRaw = person.dateRecorded?.raw
            name = person.name
            telephone = person.telephone
            address = person.address
        }
    }

    /// An image read from the chip besides the face, served by `GET /v1/reads/{id}/images/{name}`.
    public struct ImageInfo: Sendable, Equatable, Codable {
        /// `portrait-1`, `signature-1`, `document-front`, `document-rear`, `proof-of-citizenship`,
        /// `finger-1`, `iris-1`, …
        public var name: String
        /// `DG5`, `DG7`, `DG11`, `DG12`, `DG3`, `DG4`.
        public var dataGroup: String
        public var mimeType: String
        public var width: Int?
        public var height: Int?
        /// Image size in bytes.
        public var size: Int

        public init(name: String, dataGroup: String, mimeType: String, width: Int?, height: Int?, size: Int) {
            self.name = name
            self.dataGroup = dataGroup
            self.mimeType = mimeType
            self.width = width
            self.height = height
            self.size = size
        }
    }

    /// One DG3 finger or DG4 iris record image.
    public struct BiometricInfo: Sendable, Equatable, Codable {
        /// `DG3` or `DG4`.
        public var dataGroup: String
        /// `ISO/IEC 19794-4`, `ISO/IEC 19794-6`, `ISO/IEC 39794-4`, `ISO/IEC 39794-6`.
        public var format: String
        /// The finger or eye (`rightIndex`, `leftEye`); absent when the record leaves it unknown.
        public var position: String?
        /// `WSQ`, `JPEG`, `JPEG 2000`, `JPEG-LS`, `PNG`, `raw`.
        public var imageFormat: String
        public var width: Int?
        public var height: Int?
        /// Image size in bytes.
        public var size: Int
        /// The image's name in `images`.
        public var image: String
    }

    /// DG13, optional details in a format of the issuing state: reported by size only.
    public struct OpaqueGroupInfo: Sendable, Equatable, Codable {
        public var dataGroup: String
        /// Bytes of content inside the outer tag (the file itself is in `--dump`).
        public var size: Int
    }
}

/// What the data groups beyond DG1/DG2 hold, parsed once for the result model and the API.
public struct LDSContents: Sendable {
    /// An image with its API name.
    public struct NamedImage: Sendable, Equatable {
        public let name: String
        public let dataGroup: LDSFile
        public let image: FaceImage
    }

    public var personalDetails: ReadResult.PersonalDetailsInfo?
    public var documentDetails: ReadResult.DocumentDetailsInfo?
    public var personsToNotify: [ReadResult.PersonToNotifyInfo]?
    public var biometrics: [ReadResult.BiometricInfo]?
    public var optionalDetails: ReadResult.OpaqueGroupInfo?
    /// Every image, in data group order.
    public var images: [NamedImage] = []
    /// Parse problems, one line each, naming the data group; never a value.
    public var warnings: [String] = []

    /// Parses DG3, DG4, DG5, DG7, DG11, DG12, DG13 and DG16 among `files`; a group that does not
    /// parse is a warning and leaves its fields absent.
    public init(files: [LDSFile: [UInt8]]) {
        for number in [3, 4] {
            guard let bytes = files[.dg(number)] else { continue }
            do {
                let group = try BiometricGroup(rawBytes: bytes, file: .dg(number))
                warnings += group.warnings
                let prefix = number == 3 ? "finger" : "iris"
                for (i, record) in group.records.enumerated() {
                    let name = "\(prefix)-\(i + 1)"
                    add(name, .dg(number), record.image)
                    biometrics = (biometrics ?? []) + [ReadResult.BiometricInfo(
                        dataGroup: "DG\(number)", format: record.format, position: record.position,
                        imageFormat: record.imageFormat, width: record.width, height: record.height,
                        size: record.image.imageData.count, image: name)]
                }
            } catch {
                warnings.append("DG\(number): \(error)")
            }
        }
        for (number, prefix) in [(5, "portrait"), (7, "signature")] {
            guard let bytes = files[.dg(number)] else { continue }
            do {
                let group = try DisplayedImages(rawBytes: bytes, file: .dg(number))
                warnings += group.warnings
                for (i, image) in group.images.enumerated() { add("\(prefix)-\(i + 1)", .dg(number), image) }
            } catch {
                warnings.append("DG\(number): \(error)")
            }
        }
        if let bytes = files[.dg(11)] {
            do {
                let dg11 = try DG11(rawBytes: bytes)
                warnings += dg11.warnings
                let proof = dg11.proofOfCitizenship.map { add("proof-of-citizenship", .dg(11), $0) }
                personalDetails = .init(dg11, proofImageName: proof)
            } catch {
                warnings.append("DG11: \(error)")
            }
        }
        if let bytes = files[.dg(12)] {
            do {
                let dg12 = try DG12(rawBytes: bytes)
                warnings += dg12.warnings
                let front = dg12.frontImage.map { add("document-front", .dg(12), $0) }
                let rear = dg12.rearImage.map { add("document-rear", .dg(12), $0) }
                documentDetails = .init(dg12, frontImageName: front, rearImageName: rear)
            } catch {
                warnings.append("DG12: \(error)")
            }
        }
        if let bytes = files[.dg(13)] {
            do {
                optionalDetails = .init(dataGroup: "DG13", size: try DG13(rawBytes: bytes).contentLength)
            } catch {
                warnings.append("DG13: \(error)")
            }
        }
        if let bytes = files[.dg(16)] {
            do {
                let dg16 = try DG16(rawBytes: bytes)
                warnings += dg16.warnings
                personsToNotify = dg16.persons.map(ReadResult.PersonToNotifyInfo.init)
            } catch {
                warnings.append("DG16: \(error)")
            }
        }
    }

    /// The image called `name`, or `nil`.
    public func image(named name: String) -> NamedImage? { images.first { $0.name == name } }

    /// The images as the result model lists them.
    public var imageInfos: [ReadResult.ImageInfo]? {
        images.isEmpty ? nil : images.map {
            .init(name: $0.name, dataGroup: $0.dataGroup.name, mimeType: $0.image.mimeType, width: $0.image.width,
                  height: $0.image.height, size: $0.image.imageData.count)
        }
    }

    @discardableResult
    private mutating func add(_ name: String, _ file: LDSFile, _ image: FaceImage) -> String {
        images.append(NamedImage(name: name, dataGroup: file, image: image))
        return name
    }
}

extension ReadResult {
    /// Copies the parsed contents of the further data groups into the result.
    mutating func apply(_ contents: LDSContents) {
        personalDetails = contents.personalDetails
        documentDetails = contents.documentDetails
        personsToNotify = contents.personsToNotify
        biometrics = contents.biometrics
        optionalDetails = contents.optionalDetails
        images = contents.imageInfos
        warnings += contents.warnings
    }
}
