import Foundation
import MRTDCore
import SwiftASN1
import Testing

@Suite struct LDSSecurityObjectTests {
    static let sha256: ASN1ObjectIdentifier = "2.16.840.1.101.3.4.2.1"

    @Test func encodesV0WithAbsentHashParametersAsDER() throws {
        let object = LDSSecurityObject(
            version: 0, hashAlgorithmOID: Self.sha256,
            dataGroupHashes: [2: [0xBB, 0xBB], 1: [0xAA, 0xAA]])
        let expected = [UInt8](hex: """
            30 24 02 01 00
               30 0B 06 09 60 86 48 01 65 03 04 02 01
               30 12 30 07 02 01 01 04 02 AA AA
                     30 07 02 01 02 04 02 BB BB
            """)!
        #expect(try object.derEncoded() == expected)
        #expect(object.dataGroupHashes.map(\.dataGroupNumber) == [1, 2])
    }

    @Test func roundTripsV0() throws {
        let object = LDSSecurityObject(
            version: 0, hashAlgorithmOID: Self.sha256,
            dataGroupHashes: [1: Array(repeating: 1, count: 32), 2: Array(repeating: 2, count: 32),
                              14: Array(repeating: 14, count: 32)])
        let parsed = try LDSSecurityObject(derEncoded: object.derEncoded())
        #expect(parsed == object)
        #expect(parsed.ldsVersion == nil && parsed.unicodeVersion == nil)
        #expect(parsed.hash(forDataGroup: 14) == Array(repeating: 14, count: 32))
        #expect(parsed.hash(forDataGroup: 3) == nil)
    }

    @Test func roundTripsV1WithVersionInfo() throws {
        let object = LDSSecurityObject(
            version: 1, hashAlgorithmOID: "2.16.840.1.101.3.4.2.3",
            dataGroupHashes: [1: Array(repeating: 1, count: 64), 2: Array(repeating: 2, count: 64)],
            ldsVersion: "0108", unicodeVersion: "040000")
        let parsed = try LDSSecurityObject(derEncoded: object.derEncoded())
        #expect(parsed == object)
        #expect(parsed.ldsVersion == "0108")
        #expect(parsed.unicodeVersion == "040000")
    }

    @Test func acceptsNullHashParameters() throws {
        let withNull = [UInt8](hex: """
            30 1B 02 01 00
               30 0D 06 09 60 86 48 01 65 03 04 02 01 05 00
               30 07 30 05 02 01 01 04 00
            """)!
        let parsed = try LDSSecurityObject(derEncoded: withNull)
        #expect(parsed.hashAlgorithmOID == Self.sha256)
        #expect(parsed.hash(forDataGroup: 1) == [])
        // Re-encoded with the parameters absent (RFC 5754 §2).
        #expect(try parsed.derEncoded()[5...6] == [0x30, 0x0B])
    }

    @Test func acceptsBERIndefiniteLength() throws {
        // The same object as `encodesV0…`, outer SEQUENCE in indefinite form.
        let ber = [UInt8](hex: """
            30 80 02 01 00
               30 0B 06 09 60 86 48 01 65 03 04 02 01
               30 12 30 07 02 01 01 04 02 AA AA
                     30 07 02 01 02 04 02 BB BB
            00 00
            """)!
        let parsed = try LDSSecurityObject(derEncoded: ber)
        #expect(parsed.hashesByDataGroup == [1: [0xAA, 0xAA], 2: [0xBB, 0xBB]])
    }

    @Test(arguments: [
        // version 2
        "30 12 02 01 02 30 0B 06 09 60 86 48 01 65 03 04 02 01 30 00",
        // data group 17
        "30 1A 02 01 00 30 0B 06 09 60 86 48 01 65 03 04 02 01 30 08 30 06 02 01 11 04 01 AA",
        // data group 1 listed twice
        "30 23 02 01 00 30 0B 06 09 60 86 48 01 65 03 04 02 01 30 11 30 06 02 01 01 04 01 AA 30 07 02 01 01 04 02 BB BB",
        // hash parameters that are not NULL
        "30 15 02 01 00 30 0E 06 09 60 86 48 01 65 03 04 02 01 02 01 00 30 00",
        // hashAlgorithm missing
        "30 05 02 01 00 30 00",
    ])
    func rejectsMalformedObjects(hex: String) {
        #expect(throws: (any Error).self) { try LDSSecurityObject(derEncoded: [UInt8](hex: hex)!) }
    }

    struct Sample: Sendable, CustomTestStringConvertible {
        let file: String
        let version: Int
        let hashOID: ASN1ObjectIdentifier
        let dataGroups: [Int]
        let hashLength: Int
        let ldsVersion: String?
        /// Whether the issuer omitted the hash parameters, so our DER re-encoding is byte-identical.
        let parametersAbsent: Bool
        var testDescription: String { file }
    }

    static let samples: [Sample] = [
        Sample(file: "EF_SOD_AT.bin", version: 0, hashOID: sha256, dataGroups: [1, 2, 3, 11, 12, 14],
               hashLength: 32, ldsVersion: nil, parametersAbsent: false),
        Sample(file: "EF_SOD_DE.bin", version: 1, hashOID: "2.16.840.1.101.3.4.2.2", dataGroups: [1, 2, 3, 14],
               hashLength: 48, ldsVersion: "0108", parametersAbsent: true),
        Sample(file: "EF_SOD_FI.bin", version: 1, hashOID: "2.16.840.1.101.3.4.2.3", dataGroups: [1, 2, 3, 7, 14],
               hashLength: 64, ldsVersion: "0108", parametersAbsent: true),
        Sample(file: "EF_SOD_FR.bin", version: 0, hashOID: sha256, dataGroups: [1, 2, 3, 11, 12, 13, 14],
               hashLength: 32, ldsVersion: nil, parametersAbsent: true),
        Sample(file: "EF_SOD_ID.bin", version: 0, hashOID: sha256, dataGroups: [1, 2, 3, 14, 15],
               hashLength: 32, ldsVersion: nil, parametersAbsent: false),
        Sample(file: "EF_SOD_MY.bin", version: 0, hashOID: sha256, dataGroups: [1, 2, 3, 11, 12, 14],
               hashLength: 32, ldsVersion: nil, parametersAbsent: false),
    ]

    @Test(arguments: samples)
    func parsesRealSODContent(sample: Sample) throws {
        guard Fixtures.sharedSamplesPresent else { return }
        let url = Fixtures.samplesDirectory.appendingPathComponent(sample.file)
        let sod = try #require(try? [UInt8](Data(contentsOf: url)), "sample \(sample.file) not available")
        let parts = try SODParts(sod: sod)
        let object = try LDSSecurityObject(derEncoded: parts.eContent)
        #expect(object.version == sample.version)
        #expect(object.hashAlgorithmOID == sample.hashOID)
        #expect(object.dataGroupHashes.map(\.dataGroupNumber) == sample.dataGroups)
        #expect(object.dataGroupHashes.allSatisfy { $0.dataGroupHashValue.count == sample.hashLength })
        #expect(object.ldsVersion == sample.ldsVersion)
        #expect(object.unicodeVersion == (sample.ldsVersion == nil ? nil : "040000"))
        if sample.parametersAbsent {
            #expect(try object.derEncoded() == parts.eContent)
        }
    }
}
