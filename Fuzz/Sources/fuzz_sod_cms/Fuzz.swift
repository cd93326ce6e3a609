import Foundation
import FuzzSpecimen
import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import MRTDSimulation

/// EF.SOD (or, first byte odd, EF.CardSecurity) → CMS SignedData → LDSSecurityObject → passive
/// authentication against a trust store holding only the TEST-ONLY CSCA, with the specimen's data
/// groups (second byte: flip one byte of DG1). Never `passed` unless the signature verifies: a
/// passing SOD carries the specimen's signed LDSSecurityObject byte for byte and DG1 is unmodified;
/// a passing EF.CardSecurity carries the specimen's signed SecurityInfos. No trap.
@main enum FuzzSODCMS {
    static func main() {
        if FuzzSeeds.writeIfAsked({
            ["specimen_sod": [0] + specimen.files[.sod]!, "specimen_cardsecurity": [1] + cardSecurity,
             "specimen_sod_dg1_flipped": [0, 9] + specimen.files[.sod]!]
        }) { return }
        FuzzDriver.run(test)
    }

    static let specimen = FuzzSpecimen.document
    static let securityObject = FuzzSpecimen.securityObject
    static let securityInfos = SecurityInfos(infos: [
        .activeAuthentication(ActiveAuthenticationInfo(signatureAlgorithm: AuthenticationFixture.ecdsaPlainOID(.sha256))),
    ])
    static let cardSecurity = try! SpecimenDocument.cardSecurity(securityInfos)
    static let date = Date()
    static let trustStore = FuzzSpecimen.trustStore

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let cardSecurityMode = input.byte() & 1 == 1
        if cardSecurityMode {
            let bytes = input.rest()
            let verdict = PassiveAuthentication.verifyCardSecurity(bytes, trustStore: trustStore, at: date)
            if verdict.reason == nil {
                fuzzCheck(fuzzContains(bytes, securityInfos.derEncoded()), "an EF.CardSecurity not signed by the test DSC verified")
                fuzzCheck(verdict.securityInfos == securityInfos.derEncoded(), "verified SecurityInfos differ from the signed ones")
            }
            return 0
        }
        let flip = Int(input.byte())
        let sod = input.rest()
        var files = specimen.files
        files[.sod] = sod
        var dg1 = specimen.files[.dg(1)]!
        if flip != 0 { dg1[flip % dg1.count] ^= 0x01 }
        files[.dg(1)] = dg1
        let report = PassiveAuthentication.verify(files: files, trustStore: trustStore, at: date)
        if report.passed {
            fuzzCheck(flip == 0, "a modified DG1 passed")
            fuzzCheck(report.signatureAndChainValid, "passed without a valid signature and chain")
            fuzzCheck(fuzzContains(sod, securityObject), "an SOD whose LDSSecurityObject was not signed by the test DSC passed")
        } else {
            fuzzCheck(report.reason != nil, "a failure without a reason")
        }
        return 0
    }
}
