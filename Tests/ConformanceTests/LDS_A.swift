import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDSimulation
import MRTDTranscript
import MRTDVerification
import SwiftASN1
import Testing

/// Unit LDS_A, EF.COM (plan §6.1; the ten cases moved to the ICAO test specification, ICAO-P4
/// LDS_A_01..10: readings in notes/LDS_A.tsv). EF.COM is not covered by the SOD: a defect in it never
/// stops the reader from reading DG1 and DG2, but an EF.COM that does not parse as Doc 9303-10 §4.6.1
/// requires (outer tag 60, its length, the mandatory 5F01, 5F36 and 5C with DG1) is a malformed
/// mandatory file and the result is never `valid` (passive authentication `comSodMismatch`: its data
/// group list cannot be compared with the SOD's). A well-formed EF.COM naming a version the reader
/// does not depend on reads `valid` with a warning.
@Suite(.statusAsserted) struct LDS_A {
    /// The data group tags of the chip's files (EF.COM's 5C list).
    static func tags(_ chip: VirtualChipConfiguration) -> [UInt8] {
        chip.files.keys.compactMap { $0.dataGroupNumber == nil ? nil : $0.tag.map { UInt8($0) } }.sorted()
    }

    /// EF.COM's content (5F01, 5F36, 5C), each object optional.
    static func content(lds: String? = "0107", unicode: String? = "040000", tags: [UInt8]?) -> [UInt8] {
        var bytes: [UInt8] = []
        if let lds { bytes += TLV.encode(tag: 0x5F01, value: Array(lds.utf8)) }
        if let unicode { bytes += TLV.encode(tag: 0x5F36, value: Array(unicode.utf8)) }
        if let tags { bytes += TLV.encode(tag: 0x5C, value: tags) }
        return bytes
    }

    /// Reads `chip` (DG1 and DG2 hashed in a SOD re-signed over the chip's groups) and asserts the
    /// malformed-EF.COM verdict: both groups read with valid hashes, EF.COM reported, never valid.
    static func expectMalformedCOM(_ chip: VirtualChipConfiguration, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let outcome = await Conformance.read(chip, try Conformance.options())
        let result = outcome.result
        Conformance.expectStatus(result, .invalid, sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.result == .failed, sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.reason == "comSodMismatch", sourceLocation: sourceLocation)
        #expect(result.warnings.contains { $0.hasPrefix("EF_COM:") }, sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(1)] == chip.files[.dg(1)], sourceLocation: sourceLocation)
        #expect(outcome.read.files[.dg(2)] == chip.files[.dg(2)], sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG1"] == "valid", sourceLocation: sourceLocation)
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "valid", sourceLocation: sourceLocation)
        #expect(result.document?.documentNumber == "C11T002JM", sourceLocation: sourceLocation)
    }

    /// EF.COM under outer tag 61 instead of 60: the reader carries on with DG1 and DG2, reports EF.COM
    /// malformed; not valid (`comSodMismatch`).
    @Test func LDS_A_01() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x61, value: Self.content(tags: Self.tags(chip)))
        try await Self.expectMalformedCOM(chip)
    }

    /// EF.COM's outer length three bytes short of its content (the 5C list runs past the declared
    /// end): the reader reads within the declared length, finds the inner objects inconsistent and
    /// reports EF.COM malformed; not valid.
    @Test func LDS_A_02() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        let content = Self.content(tags: Self.tags(chip))
        chip.files[.com] = [0x60, UInt8(content.count - 3)] + content
        try await Self.expectMalformedCOM(chip)
    }

    /// EF.COM's outer length eight bytes past the end of the file: the reader stops at the end of the
    /// file (no READ BINARY past it more than once, no hang), reports EF.COM malformed and reads on;
    /// not valid.
    @Test func LDS_A_03() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        let content = Self.content(tags: Self.tags(chip))
        chip.files[.com] = [0x60, UInt8(content.count + 8)] + content
        try await Self.expectMalformedCOM(chip)
    }

    /// EF.COM declaring LDS version 3.0 (5F01 "0300"), well-formed otherwise: the reader does not
    /// depend on the version, reads valid and warns of the unknown version.
    @Test func LDS_A_04() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x60, value: Self.content(lds: "0300", tags: Self.tags(chip)))
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.passiveAuthentication.result == .passed)
        #expect(outcome.result.warnings.contains { $0.hasPrefix("efComLDSVersionUnknown") })
    }

    /// EF.COM without its LDS version object (5F01, mandatory): malformed EF.COM; DG1 and DG2 still
    /// read; not valid.
    @Test func LDS_A_05() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x60, value: Self.content(lds: nil, tags: Self.tags(chip)))
        try await Self.expectMalformedCOM(chip)
    }

    /// EF.COM declaring Unicode version 5.0.0 (5F36 "050000"), well-formed otherwise: informational
    /// only; valid, with a warning of the unexpected version.
    @Test func LDS_A_06() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x60, value: Self.content(unicode: "050000", tags: Self.tags(chip)))
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.passiveAuthentication.result == .passed)
        #expect(outcome.result.warnings.contains { $0.hasPrefix("efComUnicodeVersionUnknown") })
    }

    /// EF.COM without its Unicode version object (5F36, mandatory): malformed EF.COM; not valid.
    @Test func LDS_A_07() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x60, value: Self.content(unicode: nil, tags: Self.tags(chip)))
        try await Self.expectMalformedCOM(chip)
    }

    /// EF.COM's tag list without DG1 (61) although DG1 is on the chip and hashed in the SOD: DG1 is
    /// read anyway (mandatory), and EF.COM is reported inconsistent; not valid.
    @Test func LDS_A_08() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x60, value: Self.content(tags: Self.tags(chip).filter { $0 != 0x61 }))
        try await Self.expectMalformedCOM(chip)
    }

    /// EF.COM without the data group tag list (5C): the reader tries every group asked for (DG1, DG2
    /// read), reports EF.COM malformed; not valid.
    @Test func LDS_A_09() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x60, value: Self.content(tags: nil))
        try await Self.expectMalformedCOM(chip)
    }

    /// LDS 1.8: EF.COM with 5F01 "0108" and an LDSSecurityObject v1 carrying LDSVersionInfo ("0108",
    /// "040000"): successful, no version warning.
    @Test func LDS_A_10() async throws {
        var chip = try ConformanceProfile.bac.document().chip()
        chip.files[.com] = TLV.encode(tag: 0x60, value: Self.content(lds: "0108", tags: Self.tags(chip)))
        let signer = try ConformanceProfile.signer()
        var hashes: [Int: [UInt8]] = [:]
        for (file, bytes) in chip.files { if let number = file.dataGroupNumber { hashes[number] = DigestAlgorithm.sha256.hash(bytes) } }
        let securityObject = LDSSecurityObject(
            version: 1, hashAlgorithmOID: DigestAlgorithm.sha256.oid, dataGroupHashes: hashes, ldsVersion: "0108",
            unicodeVersion: "040000")
        let cms = try CMSSigner.sign(
            content: securityObject.derEncoded(), eContentTypeOID: LDSSecurityObject.oid.description,
            certificateDER: signer.certificate.derBytes, privateKey: signer.privateKey, digest: .sha256)
        chip.files[.sod] = TLV.encode(tag: 0x77, value: cms)
        let outcome = await Conformance.read(chip, try Conformance.options())
        Conformance.expectStatus(outcome.result, .valid)
        #expect(outcome.result.checks.passiveAuthentication.result == .passed)
        #expect(!outcome.result.warnings.contains { $0.hasPrefix("efCom") || $0.hasPrefix("EF_COM") })
        #expect(outcome.result.document?.documentNumber == "C11T002JM")
    }
}
