import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Testing
import MRTDSimulation

/// The further data groups read from the virtual specimen: listed in EF.COM, hashed in the SOD,
/// read only when asked for, parsed into the result, covered by passive authentication.
@Suite struct LDSVirtualChipReadTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey

    static func store() throws -> TrustStore {
        var store = TrustStore()
        store.addAnchor(try TestPKI.csca(), source: "test", isTestMaterial: true)
        return store
    }

    static func read(extra: [Int: [UInt8]], groups: [Int]) async throws -> DocumentReader.Read {
        let specimen = try SpecimenDocument.make(extraDataGroups: extra)
        let chip = VirtualChip(configuration: VirtualChipConfiguration(files: specimen.files, accessKey: key))
        let options = ReadOptions(accessKey: .mrz(key), dataGroups: groups, trustStore: try store())
        return await DocumentReader.read(transport: chip, options: options)
    }

    @Test func everyLDS1GroupIsReadParsedAndCoveredByPassiveAuthentication() async throws {
        let read = try await Self.read(extra: SpecimenDocument.additionalDataGroups(), groups: [1, 2, 5, 7, 11, 12, 13, 16])
        let r = read.result
        #expect(r.status == .valid)
        #expect(r.dataGroupsRead == ["EF_COM", "EF_SOD", "DG1", "DG2", "DG5", "DG7", "DG11", "DG12", "DG13", "DG16"])
        for group in ["DG5", "DG7", "DG11", "DG12", "DG13", "DG16"] {
            #expect(r.checks.passiveAuthentication.dataGroupHashes?[group] == "valid", "\(group)")
        }
        #expect(r.warnings.filter { $0.hasPrefix("DG") }.isEmpty, "\(r.warnings)")
        let details = SpecimenDocument.Details.self
        #expect(r.personalDetails?.fullName == details.fullName)
        #expect(r.personalDetails?.otherNames == details.otherNames)
        #expect(r.personalDetails?.personalNumber == details.personalNumber)
        #expect(r.personalDetails?.dateOfBirth == "1974-08-12")
        #expect(r.personalDetails?.address == details.address)
        #expect(r.documentDetails?.issuingAuthority == details.issuingAuthority)
        #expect(r.documentDetails?.dateOfIssue == "2007-04-15")
        #expect(r.documentDetails?.personalizationTime == "2007-04-15T10:22:05")
        #expect(r.personsToNotify?.first?.name == details.personToNotify)
        #expect(r.optionalDetails?.size == 25)
        #expect(r.images?.map(\.name) == ["portrait-1", "signature-1", "document-front", "document-rear"])
        #expect(r.images?.first?.mimeType == "image/jpeg")
        #expect(r.images?.first?.size == SpecimenDocument.faceImageBytes(.jpeg).count)
        #expect(r.images?[1].mimeType == "image/jp2")
    }

    @Test func theDefaultsStayCheapAndReadNoneOfThem() async throws {
        let read = try await Self.read(extra: SpecimenDocument.additionalDataGroups(), groups: [1, 2, 14, 15])
        #expect(read.result.status == .valid)
        #expect(read.result.dataGroupsRead == ["EF_COM", "EF_SOD", "DG1", "DG2"])
        #expect(read.result.personalDetails == nil && read.result.images == nil)
    }

    /// TEST ONLY: the virtual chip given DG3/DG4 serves them without Terminal Authentication.
    @Test func dg3AndDG4RecordsThroughAVirtualChipWithoutEAC() async throws {
        let read = try await Self.read(extra: SpecimenDocument.biometricDataGroups(), groups: [1, 2, 3, 4])
        let r = read.result
        #expect(r.status == .valid)
        #expect(r.checks.passiveAuthentication.dataGroupHashes?["DG3"] == "valid")
        let biometrics = try #require(r.biometrics)
        #expect(biometrics.map(\.dataGroup) == ["DG3", "DG3", "DG4"])
        #expect(biometrics.map(\.position) == ["rightIndex", "leftIndex", "rightEye"])
        #expect(biometrics.map(\.imageFormat) == ["WSQ", "JPEG", "JPEG"])
        #expect(biometrics.map(\.format) == ["ISO/IEC 19794-4", "ISO/IEC 19794-4", "ISO/IEC 19794-6"])
        #expect(biometrics[0].width == 400 && biometrics[0].height == 500)
        #expect(r.images?.map(\.name) == ["finger-1", "finger-2", "iris-1"])
        #expect(r.images?.first?.mimeType == "image/x-wsq")
    }

    @Test func aMalformedGroupOnTheChipIsAWarningAndPassiveAuthenticationStillJudgesIt() async throws {
        var extra = SpecimenDocument.additionalDataGroups()
        extra[11] = TLV.encode(tag: 0x6B, value: [0x5F, 0x0E, 0x09, 0x41])  // inner length past the end
        let read = try await Self.read(extra: extra, groups: [1, 2, 11, 12])
        let r = read.result
        #expect(r.status == .valid, "signed as it is: the hash matches")
        #expect(r.personalDetails == nil)
        #expect(r.documentDetails?.issuingAuthority == SpecimenDocument.Details.issuingAuthority)
        #expect(r.warnings.contains { $0.hasPrefix("DG11: LDS TLV error") })
    }
}
