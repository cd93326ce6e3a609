import Foundation
import MRTDTesting
import Testing
import MRTDSimulation

/// The assets embedded in `SpecimenAssets.swift` must be exactly the files `scripts/make-test-fixtures`
/// left in `certs/test/`; otherwise someone edited one side only.
@Suite struct SpecimenAssetsTests {
    @Test(arguments: SpecimenDocument.FaceFormat.allCases)
    func embeddedFaceImageEqualsFileInCertsTest(format: SpecimenDocument.FaceFormat) throws {
        let name = format == .jpeg ? "specimen-face.jpg" : "specimen-face.jp2"
        #expect(SpecimenDocument.faceImageBytes(format) == (try Fixtures.bytes("certs/test/specimen/\(name)")))
    }

    @Test(arguments: SpecimenDocument.FaceFormat.allCases)
    func faceImageIsBetween15And25KB(format: SpecimenDocument.FaceFormat) {
        let size = SpecimenDocument.faceImageBytes(format).count
        #expect((15 * 1024...25 * 1024).contains(size), "\(format) image is \(size) bytes")
    }

    @Test func jpegFaceStartsWithJPEGMarkers() {
        let image = SpecimenDocument.faceImageBytes(.jpeg)
        #expect(image.prefix(3) == [0xFF, 0xD8, 0xFF])
        #expect(image.suffix(2) == [0xFF, 0xD9])
    }

    @Test func jpeg2000FaceIsJP2BoxFormat() {
        let image = SpecimenDocument.faceImageBytes(.jpeg2000)
        // ISO/IEC 15444-1 Annex I: the JPEG 2000 signature box, then the file type box "jp2 ".
        #expect(image.prefix(12) == [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20, 0x0D, 0x0A, 0x87, 0x0A])
        #expect(Array(image[20..<24]) == Array("jp2 ".utf8))
    }

    @Test(arguments: [
        ("csca.pem", TestPKI.cscaCertificatePEM),
        ("dsc.pem", TestPKI.dscCertificatePEM),
        ("dsc.key.pem", TestPKI.dscPrivateKeyPEM),
    ])
    func embeddedPEMEqualsFileInCertsTest(file: String, embedded: String) throws {
        #expect(embedded == (try Fixtures.text("certs/test/\(file)")))
    }

    @Test func testPKIIsMarkedTestOnly() {
        #expect(TestPKI.cscaCertificatePEM.hasPrefix("-----BEGIN CERTIFICATE-----"))
        #expect(TestPKI.dscPrivateKeyPEM.hasPrefix("-----BEGIN PRIVATE KEY-----"))
    }

    @Test func readmeWarnsThatTheKeysAreTestOnly() throws {
        let readme = try Fixtures.text("certs/test/README.md")
        #expect(readme.contains("TEST-ONLY"))
        #expect(readme.contains("--trust certs/test"))
    }
}
