import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing
import MRTDVerification
import MRTDSimulation

@Suite struct SpecimenDocumentTests {
    /// `id-icao-mrtd-security-ldsSecurityObject` 2.23.136.1.1.1 as OID content bytes.
    static let ldsSecurityObjectOIDBytes: [UInt8] = [0x67, 0x81, 0x08, 0x01, 0x01, 0x01]

    @Test func erikssonMRZIsTheICAOSpecimen() throws {
        let mrz = try MRZ(SpecimenDocument.erikssonMRZ)
        #expect(mrz.format == .td3)
        #expect(mrz.primaryIdentifier == "ERIKSSON")
        #expect(mrz.documentNumber == "L898902C3")
        #expect(mrz.hasValidCheckDigits)
    }

    @Test func containsExactlyCOMSODDG1AndDG2() throws {
        let document = try SpecimenDocument.make()
        #expect(Set(document.files.keys) == [.com, .sod, .dg(1), .dg(2)])
        #expect(document.mrzText == SpecimenDocument.erikssonMRZ)
        #expect(document.faceImage == SpecimenDocument.faceImageBytes(.jpeg))
    }

    @Test func efCOMListsExactlyTheDataGroupsPresent() throws {
        let document = try SpecimenDocument.make(extraDataGroups: [14: [0x6E, 0x02, 0x31, 0x00]])
        let com = try EFCOM(rawBytes: try #require(document.files[.com]))
        #expect(com.dataGroups == [.dg(1), .dg(2), .dg(14)])
        #expect(com.ldsVersion == "0107")
        #expect(com.unicodeVersion == "040000")
    }

    @Test func dg1ParsesBackToTheSpecimenMRZ() throws {
        let document = try SpecimenDocument.make()
        let dg1 = try DG1(rawBytes: try #require(document.files[.dg(1)]))
        #expect(dg1.mrz.lines.joined(separator: "\n") == SpecimenDocument.erikssonMRZ)
        #expect(dg1.mrz == (try MRZ(SpecimenDocument.erikssonMRZ)))
    }

    @Test(arguments: SpecimenDocument.FaceFormat.allCases, DigestAlgorithm.allCases)
    func sodHashesEveryDataGroupFileWithTheChosenDigest(
        face: SpecimenDocument.FaceFormat, digest: DigestAlgorithm
    ) throws {
        let extra: [LDSFile: [UInt8]] = [.dg(11): [0x6B, 0x03, 0x5C, 0x01, 0x00]]
        let document = try SpecimenDocument.make(face: face, digest: digest, extraDataGroups: [11: extra[.dg(11)]!])
        let parts = try SODParts(sod: try #require(document.files[.sod]))
        #expect(parts.eContentTypeOID == Self.ldsSecurityObjectOIDBytes)
        let object = try LDSSecurityObject(derEncoded: parts.eContent)
        #expect(object.version == 0)
        #expect(object.hashAlgorithmOID == digest.oid)
        #expect(object.dataGroupHashes.map(\.dataGroupNumber) == [1, 2, 11])
        for (file, bytes) in document.files {
            guard let number = file.dataGroupNumber else { continue }
            // Doc 9303-10 §4.6.2: the hash covers the whole file, tag and length included.
            #expect(object.hash(forDataGroup: number) == digest.hash(bytes), "\(file)")
        }
    }

    @Test func sodCarriesTheTestDSC() throws {
        let document = try SpecimenDocument.make()
        let parts = try SODParts(sod: try #require(document.files[.sod]))
        let dscDER = try #require(Fixtures.derFromPEM(TestPKI.dscCertificatePEM))
        #expect(parts.certificates == [dscDER])
        #expect(parts.certificates == [try TestPKI.dsc().derBytes])
    }

    @Test(arguments: SpecimenDocument.FaceFormat.allCases, [FaceEncoding.iso19794_5, .iso39794_5])
    func dg2ParsesBackToTheExactImage(face: SpecimenDocument.FaceFormat, encoding: FaceEncoding) throws {
        let document = try SpecimenDocument.make(face: face, faceEncoding: encoding)
        let dg2 = try DG2(rawBytes: try #require(document.files[.dg(2)]))
        #expect(dg2.encoding == encoding)
        #expect(dg2.faces.count == 1)
        let image = try #require(dg2.faces.first)
        #expect(image.imageData == SpecimenDocument.faceImageBytes(face))
        #expect(image.imageData == document.faceImage)
        #expect(image.mimeType == (face == .jpeg ? "image/jpeg" : "image/jp2"))
        #expect(image.width == SpecimenDocument.faceWidth)
        #expect(image.height == SpecimenDocument.faceHeight)
    }

    @Test func faceImageHeadersGiveThe480x600Size() {
        for format in SpecimenDocument.FaceFormat.allCases {
            let size = FaceImage.dimensions(of: SpecimenDocument.faceImageBytes(format))
            #expect(size?.width == 480 && size?.height == 600, "\(format)")
        }
    }

    @Test func testDSCIsIssuedByTheTestCSCA() throws {
        let csca = try TestPKI.csca()
        let dsc = try TestPKI.dsc()
        #expect(csca.subject.description.contains("mrtdd Test CSCA"))
        #expect(csca.subject.description.contains("mrtdd TEST ONLY"))
        #expect(dsc.subject.description.contains("mrtdd Test DSC"))
        #expect(dsc.issuer == csca.subject)
        #expect(csca.issuer == csca.subject)
    }

    // MRTDCrypto cannot verify CMS yet, so the signature is cross-checked with the openssl CLI
    // against the test CSCA. Replace with the Swift passive authentication once it exists.
    @Test(arguments: [DigestAlgorithm.sha256, .sha512, .sha1])
    func sodSignatureVerifiesAgainstTheTestCSCAWithOpenSSL(digest: DigestAlgorithm) throws {
        let document = try SpecimenDocument.make(digest: digest)
        let sod = try #require(document.files[.sod])
        let cms = try TLV.parse(sod, expecting: 0x77).bytes
        let result = try OpenSSLCLI.verifyCMS(cms, caFile: "certs/test/csca.pem")
        #expect(result.status == 0, "openssl cms -verify: \(result.stderr)")
        #expect(result.content == (try SODParts(sod: sod)).eContent)
    }

    @Test
    func tamperedSODFailsOpenSSLVerification() throws {
        let document = try SpecimenDocument.make()
        let sod = try #require(document.files[.sod])
        var cms = try TLV.parse(sod, expecting: 0x77).bytes
        // Flip one bit inside the first data group hash of the eContent.
        let eContent = try SODParts(sod: sod).eContent
        let hashOffset = try #require(cms.firstRange(of: eContent)).lowerBound + eContent.count - 1
        cms[hashOffset] ^= 0x01
        let result = try OpenSSLCLI.verifyCMS(cms, caFile: "certs/test/csca.pem")
        #expect(result.status != 0)
    }

    @Test func rejectsExtraDataGroupsThatAreNot3To16() {
        for number in [0, 1, 2, 17] {
            #expect(throws: SpecimenDocumentError.badDataGroupNumber(number)) {
                try SpecimenDocument.make(extraDataGroups: [number: [0x61, 0x00]])
            }
        }
    }

    @Test func testPKILoads() throws {
        _ = try TestPKI.csca()
        _ = try TestPKI.dsc()
        _ = try TestPKI.dscKey()
    }
}
