import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// A TD3 MRZ with correct check digits (Doc 9303-4 §4.2.2).
func td3MRZ(issuingState: String = "UTO", documentNumber: String = "C01X00T47", dateOfBirth: String = "740812",
            dateOfExpiry: String = "341231", documentCode: String = "P<") -> String {
    func pad(_ s: String, _ n: Int) -> String { s + String(repeating: "<", count: max(0, n - s.count)) }
    func cd(_ s: String) -> String { MRZ.checkDigit(s).map(String.init) ?? "<" }
    let line1 = pad(documentCode + pad(issuingState, 3) + "SPECIMEN<<TEST", 44)
    let number = pad(documentNumber, 9)
    let optional = pad("", 14)
    let composite = number + cd(number) + dateOfBirth + cd(dateOfBirth) + dateOfExpiry + cd(dateOfExpiry) + optional + cd(optional)
    let line2 = number + cd(number) + "UTO" + dateOfBirth + cd(dateOfBirth) + "F" + dateOfExpiry + cd(dateOfExpiry)
        + optional + cd(optional) + cd(composite)
    return line1 + line2
}

/// A fixture document with a well-formed DG2 (the specimen face) and DG1 from `mrz`.
func inspectionDocument(mrz: String = td3MRZ()) throws -> FixtureDocument {
    var document = FixtureDocument()
    document.dataGroups[1] = DG1.encode(mrz: mrz)
    document.dataGroups[2] = try SpecimenDocument.make().files[.dg(2)]!
    return document
}

/// The result of `files` verified against `store` with the inspection checks applied.
func inspect(
    _ files: [LDSFile: [UInt8]], store: TrustStore?, accessKey: MRZKey? = nil, password: String = "MRZ",
    at date: Date = Date(), adjust: (inout ReadResult) -> Void = { _ in }
) -> ReadResult {
    let report = PassiveAuthentication.verify(files: files, trustStore: store, at: date)
    var result = ReadResult.assemble(
        files: files, access: .init(protocol: "BAC", password: password, cipher: "3DES"), applications: nil,
        skipped: [], transport: TransportReport(), durationMs: 0)
    result.apply(report)
    adjust(&result)
    result.applyInspectionChecks(files: files, report: report, accessKey: accessKey, trustStore: store, at: date)
    return result
}

@Suite("TR-03135 inspection checks")
struct InspectionChecksTests {
    static let germanPKI: FixturePKI = try! FixturePKI.make(.ecP256, country: "DE", cscaCommonName: "Fixture CSCA DE", keySet: 2)

    @Test("all checks pass on a consistent, current document: status valid")
    func allPass() throws {
        let document = try inspectionDocument()
        let files = try document.files(pki: Shared.pki)
        let key = try MRZKey(documentNumber: "C01X00T47", dateOfBirth: "740812", dateOfExpiry: "341231")
        let result = inspect(files, store: try trustStore(Shared.pki), accessKey: key)
        #expect(result.status == .valid, "\(result.warnings)")
        #expect(result.checks.issuingCountry?.result == .passed)
        #expect(result.checks.documentExpiry?.result == .passed)
        #expect(result.checks.accessKeyMatch?.result == .passed)
        #expect(result.checks.dataGroupStructure?.result == .passed)
        #expect(result.checks.revocation?.result == .undetermined)
        #expect(result.checks.revocation?.reason == "revocationNotChecked")
        #expect(result.checks.deviations == nil)
    }

    @Test("issuing state D<< against a DE signer passes; DEU too; against FR it fails and the status is invalid")
    func issuingCountry() throws {
        for state in ["D", "DEU"] {
            let files = try inspectionDocument(mrz: td3MRZ(issuingState: state)).files(pki: Self.germanPKI)
            let result = inspect(files, store: try trustStore(Self.germanPKI))
            #expect(result.checks.issuingCountry?.result == .passed, "\(state): \(result.checks.issuingCountry?.detail ?? "")")
            #expect(result.status == .valid)
        }
        let files = try inspectionDocument(mrz: td3MRZ(issuingState: "FRA")).files(pki: Self.germanPKI)
        let result = inspect(files, store: try trustStore(Self.germanPKI))
        #expect(result.checks.passiveAuthentication.result == .passed)
        #expect(result.checks.issuingCountry?.result == .failed)
        #expect(result.checks.issuingCountry?.reason == "countryMismatch")
        #expect(result.status == .invalid)
    }

    @Test("an organization code without an ISO country is undetermined and leaves the status alone")
    func issuingCountryUndetermined() throws {
        let files = try inspectionDocument(mrz: td3MRZ(issuingState: "XOM")).files(pki: Shared.pki)
        let result = inspect(files, store: try trustStore(Shared.pki))
        #expect(result.checks.issuingCountry?.result == .undetermined)
        #expect(result.checks.issuingCountry?.reason == "issuingStateUnmapped")
        #expect(result.status == .valid)
    }

    @Test("without a trust store the country and revocation checks are notPerformed")
    func withoutTrust() throws {
        let files = try inspectionDocument().files(pki: Shared.pki)
        let result = inspect(files, store: nil)
        #expect(result.status == .unverified)
        #expect(result.checks.issuingCountry?.result == .notPerformed)
        #expect(result.checks.revocation?.result == .notPerformed)
        #expect(result.checks.dataGroupStructure?.result == .passed)
    }

    @Test("ICAO codes map to certificate countries, with the Doc 9303 special cases")
    func countryTable() {
        #expect(IssuingStateCode.alpha2(forICAO: "D") == "DE")
        #expect(IssuingStateCode.alpha2(forICAO: "D<<") == "DE")
        #expect(IssuingStateCode.alpha2(forICAO: "DEU") == "DE")
        #expect(IssuingStateCode.alpha2(forICAO: "NLD") == "NL")
        #expect(IssuingStateCode.alpha2(forICAO: "GBD") == "GB")
        #expect(IssuingStateCode.alpha2(forICAO: "RKS") == "XK")
        #expect(IssuingStateCode.alpha2(forICAO: "EUE") == "EU")
        #expect(IssuingStateCode.alpha2(forICAO: "XOM") == nil)
        #expect(IssuingStateCode.alpha2(forICAO: "UNO") == nil)
        #expect(IssuingStateCode.table.count == 249)
    }

    @Test("an expired document fails documentExpiry, keeps its status and carries the warning documentExpired")
    func expiry() throws {
        let files = try inspectionDocument(mrz: td3MRZ(dateOfExpiry: "200101")).files(pki: Shared.pki)
        let result = inspect(files, store: try trustStore(Shared.pki))
        #expect(result.checks.documentExpiry?.result == .failed)
        #expect(result.checks.documentExpiry?.reason == "documentExpired")
        #expect(result.warnings.contains("documentExpired"))
        #expect(result.status == .valid)
        // Valid through the day it names.
        let mrz = try MRZ(td3MRZ(dateOfExpiry: "341231"))
        let lastDay = UTCDate.date(year: 2034, month: 12, day: 31, hours: 23, minutes: 59, seconds: 0)
        #expect(InspectionChecks.documentExpiry(mrz: mrz, at: lastDay).result == .passed)
        #expect(InspectionChecks.documentExpiry(mrz: mrz, at: lastDay.addingTimeInterval(120)).result == .failed)
        #expect(InspectionChecks.documentExpiry(mrz: nil, at: lastDay).result == .notPerformed)
    }

    @Test("DG1 against the access key: passed, failed (fields named, values not), notPerformed with a CAN or no key")
    func accessKey() throws {
        let files = try inspectionDocument().files(pki: Shared.pki)
        let store = try trustStore(Shared.pki)
        let wrongBirth = try MRZKey(documentNumber: "C01X00T47", dateOfBirth: "750812", dateOfExpiry: "341231")
        let failed = inspect(files, store: store, accessKey: wrongBirth)
        #expect(failed.checks.accessKeyMatch?.result == .failed)
        #expect(failed.checks.accessKeyMatch?.reason == "mrzMismatch")
        #expect(failed.checks.accessKeyMatch?.detail?.contains("dateOfBirth") == true)
        #expect(failed.checks.accessKeyMatch?.detail?.contains("750812") == false)
        #expect(failed.checks.accessKeyMatch?.detail?.contains("740812") == false)
        #expect(failed.status == .invalid)

        let padded = try MRZKey(documentNumber: "C01X00T47<", dateOfBirth: "740812", dateOfExpiry: "341231")
        #expect(inspect(files, store: store, accessKey: padded).checks.accessKeyMatch?.result == .passed)

        let can = inspect(files, store: store, accessKey: nil, password: "CAN")
        #expect(can.checks.accessKeyMatch?.result == .notPerformed)
        #expect(can.checks.accessKeyMatch?.reason == "canAccess")
        #expect(can.status == .valid)
        #expect(inspect(files, store: store).checks.accessKeyMatch?.reason == "noAccessKey")
    }

    @Test("a DG2 that does not parse fails dataGroupStructure even with a matching hash: status invalid")
    func brokenDG2() throws {
        var document = try inspectionDocument()
        document.dataGroups[2] = TLV.encode(tag: 0x75, value: [UInt8](repeating: 0x42, count: 200))
        let result = inspect(try document.files(pki: Shared.pki), store: try trustStore(Shared.pki))
        #expect(result.checks.passiveAuthentication.result == .passed)
        #expect(result.checks.dataGroupStructure?.result == .failed)
        #expect(result.checks.dataGroupStructure?.reason == "dg2Malformed")
        #expect(result.status == .invalid)
    }

    @Test("a DG1 that does not parse fails dataGroupStructure; expiry and key checks cannot run")
    func brokenDG1() throws {
        var document = try inspectionDocument()
        document.dataGroups[1] = TLV.encode(tag: 0x61, value: TLV.encode(tag: 0x5F1F, value: Array("P<UTO".utf8)))
        let key = try MRZKey(documentNumber: "C01X00T47", dateOfBirth: "740812", dateOfExpiry: "341231")
        let result = inspect(try document.files(pki: Shared.pki), store: try trustStore(Shared.pki), accessKey: key)
        #expect(result.checks.dataGroupStructure?.result == .failed)
        #expect(result.checks.dataGroupStructure?.reason == "dg1Malformed")
        #expect(result.checks.documentExpiry?.result == .notPerformed)
        #expect(result.checks.accessKeyMatch?.result == .undetermined)
        #expect(result.checks.issuingCountry?.result == .undetermined)
        #expect(result.status == .invalid)
    }

    @Test("revocation: passed with a current CRL not listing the DSC, failed when it does")
    func revocation() throws {
        let files = try inspectionDocument().files(pki: Shared.pki)
        let clean = inspect(files, store: try trustStore(Shared.pki, crls: [try Shared.pki.crl(revoking: [[0x77]])]))
        #expect(clean.checks.revocation?.result == .passed)
        let revoked = inspect(files, store: try trustStore(Shared.pki, crls: [try Shared.pki.crl(revoking: [Shared.pki.dscSerial])]))
        #expect(revoked.checks.revocation?.result == .failed)
        #expect(revoked.checks.revocation?.reason == "dscRevoked")
        #expect(revoked.status == .invalid)
    }

    @Test("the checks survive a JSON round trip, and results written before them still decode")
    func codable() throws {
        let files = try inspectionDocument().files(pki: Shared.pki)
        let result = inspect(files, store: try trustStore(Shared.pki))
        let data = try JSONEncoder().encode(result)
        #expect(try JSONDecoder().decode(ReadResult.self, from: data) == result)
        let old = #"{"passiveAuthentication":{"result":"passed"},"chipAuthentication":{"result":"notPerformed"},"activeAuthentication":{"result":"notPerformed"}}"#
        let checks = try JSONDecoder().decode(ReadResult.Checks.self, from: Data(old.utf8))
        #expect(checks.issuingCountry == nil && checks.deviations == nil)
    }
}
