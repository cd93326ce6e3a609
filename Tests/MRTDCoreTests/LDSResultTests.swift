import Foundation
import Testing

@testable import MRTDCore

/// The further data groups in the result model: fields and named images when they parse, warnings
/// (and the rest of the read intact) when they do not.
@Suite struct LDSResultTests {
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0x00, 0xFF, 0xD9]

    static func assemble(_ files: [LDSFile: [UInt8]]) -> ReadResult {
        ReadResult.assemble(files: files, access: nil, applications: nil, skipped: [], transport: .init(), durationMs: 1)
    }

    static func text(_ tag: UInt, _ value: String) -> [UInt8] { TLV.encode(tag: tag, value: Array(value.utf8)) }

    static let files: [LDSFile: [UInt8]] = [
        .dg(5): DisplayedImages.encode(file: .dg(5), images: [jpeg]),
        .dg(7): DisplayedImages.encode(file: .dg(7), images: [jpeg]),
        .dg(11): LDSFile.dg(11).encodeTemplate(objects: [
            text(0x5F0E, "SMITH<<JOHN"), text(0x5F10, "P123"), text(0x5F2B, "19710319"),
            TLV.encode(tag: 0x5F16, value: jpeg),
        ]),
        .dg(12): LDSFile.dg(12).encodeTemplate(objects: [
            text(0x5F19, "AUTHORITY"), text(0x5F26, "20020531"), TLV.encode(tag: 0x5F1D, value: jpeg),
        ]),
        .dg(13): TLV.encode(tag: 0x6D, value: [1, 2, 3]),
        .dg(16): TLV.encode(tag: 0x70, children: [
            TLV.encode(tag: 0x02, value: [1]), TLV.encode(tag: 0xA1, children: [text(0x5F51, "DOE<<JANE")]),
        ]),
        .dg(3): BiometricGroup.encode(file: .dg(3), records: [
            BiometricRecord.encodeISO19794_4(image: jpeg, position: 1, compression: 3, width: 5, height: 6),
        ]),
        .dg(4): BiometricGroup.encode(file: .dg(4), records: [
            BiometricRecord.encodeISO19794_6(image: jpeg, eye: 1, imageFormat: 6, width: 7, height: 8),
        ]),
    ]

    @Test func everyGroupReachesTheResultAndItsImagesAreNamed() throws {
        let r = Self.assemble(Self.files)
        #expect(r.warnings.isEmpty, "\(r.warnings)")
        #expect(r.personalDetails?.fullName == "SMITH<<JOHN")
        #expect(r.personalDetails?.personalNumber == "P123")
        #expect(r.personalDetails?.dateOfBirth == "1971-03-19")
        #expect(r.personalDetails?.dateOfBirthRaw == "19710319")
        #expect(r.personalDetails?.proofOfCitizenshipImage == "proof-of-citizenship")
        #expect(r.documentDetails?.issuingAuthority == "AUTHORITY")
        #expect(r.documentDetails?.dateOfIssue == "2002-05-31")
        #expect(r.documentDetails?.frontImage == "document-front")
        #expect(r.documentDetails?.rearImage == nil)
        #expect(r.personsToNotify?.map(\.name) == ["DOE<<JANE"])
        #expect(r.optionalDetails?.size == 3)
        #expect(r.biometrics?.map(\.position) == ["rightThumb", "rightEye"])
        #expect(r.biometrics?.map(\.image) == ["finger-1", "iris-1"])
        #expect(r.images?.map(\.name) == [
            "finger-1", "iris-1", "portrait-1", "signature-1", "proof-of-citizenship", "document-front",
        ])
        #expect(r.images?.allSatisfy { $0.mimeType == "image/jpeg" && $0.size == Self.jpeg.count } == true)
        let contents = LDSContents(files: Self.files)
        #expect(contents.image(named: "document-front")?.image.imageData == Self.jpeg)
        #expect(contents.image(named: "face") == nil)
    }

    @Test func resultJSONRoundTripsAndOmitsAbsentGroups() throws {
        let full = Self.assemble(Self.files)
        let decoded = try JSONDecoder().decode(ReadResult.self, from: try JSONEncoder().encode(full))
        #expect(decoded == full)
        let plain = String(decoding: try JSONEncoder().encode(Self.assemble([:])), as: UTF8.self)
        for key in ["personalDetails", "documentDetails", "personsToNotify", "biometrics", "optionalDetails", "images"] {
            #expect(!plain.contains(key))
        }
    }

    @Test func malformedGroupsAreWarningsNotFailedReads() throws {
        var files = Self.files
        files[.dg(11)] = Array(files[.dg(11)]!.dropLast(3))
        files[.dg(12)] = [0x6B] + files[.dg(12)]!.dropFirst()
        files[.dg(5)] = TLV.encode(tag: 0x65, children: [TLV.encode(tag: 0x02, value: [1])])
        files[.dg(16)] = [0x70, 0x84, 0xFF, 0xFF, 0xFF, 0xFF]
        files[.dg(13)] = []
        let r = Self.assemble(files)
        #expect(r.status == .unverified)
        #expect(r.personalDetails == nil && r.documentDetails == nil && r.personsToNotify == nil)
        #expect(r.optionalDetails == nil)
        #expect(r.biometrics?.count == 2, "DG3/DG4 unaffected")
        for group in ["DG5", "DG11", "DG12", "DG13", "DG16"] {
            #expect(r.warnings.contains { $0.hasPrefix("\(group): ") }, "no warning for \(group): \(r.warnings)")
        }
        #expect(!r.warnings.joined().contains("SMITH"))
        #expect(r.images?.map(\.name) == ["finger-1", "iris-1", "signature-1"])
    }

    enum Damage: String, CaseIterable, Sendable { case truncated, wrongOuterTag, badLength, trailingByte }

    static func damaged(_ bytes: [UInt8], _ damage: Damage) -> [UInt8] {
        switch damage {
        case .truncated: return Array(bytes.dropLast(2))
        case .wrongOuterTag: return [0x5A] + bytes.dropFirst()
        case .badLength: return [bytes[0], 0x84, 0xFF, 0xFF, 0xFF, 0xFF] + bytes.dropFirst(2)
        case .trailingByte: return bytes + [0x00]
        }
    }

    /// Every further group, each kind of damage: a warning naming the group, its fields and images
    /// absent, the other groups and the read intact.
    @Test(arguments: [3, 4, 5, 7, 11, 12, 13, 16], Damage.allCases)
    func eachDamagedGroupIsAWarningAndTheRestStays(_ number: Int, _ damage: Damage) throws {
        var files = Self.files
        files[.dg(number)] = Self.damaged(files[.dg(number)]!, damage)
        let r = Self.assemble(files)
        #expect(r.status == .unverified)
        #expect(r.warnings.contains { $0.hasPrefix("DG\(number): ") }, "\(r.warnings)")
        #expect(r.warnings.count == 1, "\(r.warnings)")
        #expect(r.images?.contains { $0.dataGroup == "DG\(number)" } != true)
        let intact = Self.assemble(Self.files)
        #expect((r.images?.count ?? 0) == intact.images!.count - intact.images!.filter { $0.dataGroup == "DG\(number)" }.count)
        #expect((r.personalDetails == nil) == (number == 11))
        #expect((r.documentDetails == nil) == (number == 12))
        #expect((r.personsToNotify == nil) == (number == 16))
        #expect((r.optionalDetails == nil) == (number == 13))
    }
}
