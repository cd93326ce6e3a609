import MRTDCore

/// The specimen's further data groups (Doc 9303-10 §4.7): DG5, DG7, DG11, DG12, DG13 and DG16 with
/// fictitious values in the style of the ICAO specimen, and TEST-ONLY DG3/DG4 records.
///
/// Give them to `SpecimenDocument.make(extraDataGroups:)`: they are then listed in EF.COM and hashed
/// into the SOD, so passive authentication covers them.
extension SpecimenDocument {
    /// The specimen's DG11 values, for tests to compare with.
    public enum Details {
        public static let fullName = "ERIKSSON<<ANNA<MARIA"
        public static let otherNames = ["ERIKSSON<<ANNA", "SVENSSON<<ANNA<MARIA"]
        public static let personalNumber = "ZE184226B"
        public static let dateOfBirth = "19740812"
        public static let placeOfBirth = "ZENITH<UTOPIA"
        public static let address = "1 SPECIMEN STREET<ZENITH<UTOPIA"
        public static let telephone = "+00 1234 5678"
        public static let profession = "SPECIMEN"
        public static let title = "DR"
        public static let issuingAuthority = "PASSPORT OFFICE ZENITH"
        public static let dateOfIssue = "20070415"
        public static let personalizationTime = "20070415102205"
        public static let personalizationDevice = "SPEC-0001"
        public static let endorsements = "NONE"
        public static let personToNotify = "ERIKSSON<<JOHAN"
    }

    /// DG5, DG7, DG11, DG12, DG13 and DG16 keyed by number.
    public static func additionalDataGroups() -> [Int: [UInt8]] {
        let jpeg = faceImageBytes(.jpeg)
        let jp2 = faceImageBytes(.jpeg2000)
        func text(_ tag: UInt, _ value: String) -> [UInt8] { TLV.encode(tag: tag, value: Array(value.utf8)) }
        let dg11 = LDSFile.dg(11).encodeTemplate(objects: [
            text(0x5F0E, Details.fullName),
            TLV.encode(tag: 0xA0, children: [TLV.encode(tag: 0x02, value: [UInt8(Details.otherNames.count)])]
                + Details.otherNames.map { text(0x5F0F, $0) }),
            text(0x5F10, Details.personalNumber),
            text(0x5F2B, Details.dateOfBirth),
            text(0x5F11, Details.placeOfBirth),
            text(0x5F42, Details.address),
            text(0x5F12, Details.telephone),
            text(0x5F13, Details.profession),
            text(0x5F14, Details.title),
            text(0x5F17, "L898902C3<X1234567"),
        ])
        let dg12 = LDSFile.dg(12).encodeTemplate(objects: [
            text(0x5F19, Details.issuingAuthority),
            text(0x5F26, Details.dateOfIssue),
            text(0x5F1B, Details.endorsements),
            TLV.encode(tag: 0x5F1D, value: jpeg),
            TLV.encode(tag: 0x5F1E, value: jp2),
            text(0x5F55, Details.personalizationTime),
            text(0x5F56, Details.personalizationDevice),
        ])
        let dg16 = TLV.encode(tag: 0x70, children: [
            TLV.encode(tag: 0x02, value: [1]),
            TLV.encode(tag: 0xA1, children: [
                text(0x5F50, "20070415"), text(0x5F51, Details.personToNotify),
                text(0x5F52, Details.telephone), text(0x5F53, Details.address),
            ]),
        ])
        return [
            5: DisplayedImages.encode(file: .dg(5), images: [jpeg]),
            7: DisplayedImages.encode(file: .dg(7), images: [jp2]),
            11: dg11,
            12: dg12,
            13: TLV.encode(tag: 0x6D, value: Array("SPECIMEN OPTIONAL DETAILS".utf8)),
            16: dg16,
        ]
    }

    /// TEST ONLY: DG3 with two finger records (ISO/IEC 19794-4; a synthetic WSQ-marked image and a
    /// JPEG) and DG4 with one iris record (ISO/IEC 19794-6, JPEG). A virtual chip given these serves
    /// them without Terminal Authentication, which real chips never do: it exercises the parsers.
    public static func biometricDataGroups() -> [Int: [UInt8]] {
        let jpeg = faceImageBytes(.jpeg)
        let wsq: [UInt8] = [0xFF, 0xA0, 0xFF, 0xA8, 0x00, 0x02] + Array("TEST ONLY".utf8) + [0xFF, 0xA1]
        return [
            3: BiometricGroup.encode(file: .dg(3), records: [
                BiometricRecord.encodeISO19794_4(image: wsq, position: 2, compression: 2, width: 400, height: 500),
                BiometricRecord.encodeISO19794_4(image: jpeg, position: 7, compression: 3, width: 0, height: 0),
            ]),
            4: BiometricGroup.encode(file: .dg(4), records: [
                BiometricRecord.encodeISO19794_6(image: jpeg, eye: 1, imageFormat: 6, width: 0, height: 0),
            ]),
        ]
    }
}
