import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing
@testable import MRTDVerification
import MRTDSimulation

/// The PKI-* rows of RELIABILITY.md (TR-03105 LDS_H_50–68, ICAO-P4), each with its expected verdict.
@Suite struct PKIReliabilityTests {
    let pki = Shared.pki

    // PKI-01
    @Test func dscFromAnotherCSCAFindsNoCSCA() throws {
        let foreign = Shared.otherPKI
        let files = try FixtureDocument().files(pki: foreign)
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(pki))
        #expect(report.reason == .cscaNotFound)
        #expect(!report.signatureAndChainValid)
    }

    @Test func dscNamingTheCSCAButSignedByAnotherKeyFails() throws {
        let forged = try pki.withDSC(signedBy: Shared.otherPKI.cscaKey) { _ in }
        let report = try verify(pki: forged)
        #expect(report.reason == .dscSignatureInvalid)
    }

    // PKI-02
    @Test func corruptedDSCSignatureFails() throws {
        let report = try verify(pki: try pki.withDSC { $0.corruptSignature = true })
        #expect(report.reason == .dscSignatureInvalid)
    }

    @Test func emptyDSCSignatureFails() throws {
        let report = try verify(pki: try pki.withDSC { $0.emptySignature = true })
        #expect(report.reason == .dscSignatureInvalid)
    }

    // PKI-03
    @Test func md5DSCSignatureAlgorithmFails() throws {
        let report = try verify(pki: try pki.withDSC {
            $0.outerAlgorithmOverride = DERBuilder.md5WithRSA
            $0.innerAlgorithmOverride = DERBuilder.md5WithRSA
        })
        #expect(report.reason == .signatureAlgorithmNotAllowed)
    }

    @Test func dscSignatureAlgorithmNotMatchingTheInnerFieldFails() throws {
        let report = try verify(pki: try pki.withDSC { $0.outerAlgorithmOverride = DERBuilder.signatureAlgorithm(.ecdsa(.sha384)) })
        #expect(report.reason == .dscInvalid)
    }

    @Test func dscWithoutInnerSignatureFieldFails() throws {
        let report = try verify(pki: try pki.withDSC { $0.omitted = [.innerSignature] })
        #expect(report.reason == .dscInvalid)
    }

    // PKI-04
    @Test(arguments: [CertificateBuilder.Field.serialNumber, .issuer, .validity])
    func dscMissingAFieldFails(field: CertificateBuilder.Field) throws {
        let report = try verify(pki: try pki.withDSC { $0.omitted = [field] })
        #expect(report.result == .failed)
        #expect(report.reason == .dscInvalid)
    }

    // PKI-05
    @Test func dscValidityInGeneralizedTimeBefore2050Fails() throws {
        let report = try verify(pki: try pki.withDSC { $0.forceGeneralizedTime = true })
        #expect(report.reason == .dscInvalid)
    }

    @Test func dscValidUntilAfter2050InGeneralizedTimePasses() throws {
        let late = try pki.withDSC { $0.notAfter = Date(timeIntervalSince1970: 2_556_143_999) }  // 2050-12-31
        let report = try verify(pki: late)
        #expect(report.result == .passed, "\(report.detail ?? "")")
    }

    // PKI-06
    @Test func dscWithoutKeyUsageFails() throws {
        let report = try verify(pki: try pki.withDSC { $0.keyUsage = nil })
        #expect(report.reason == .dscKeyUsageInvalid)
    }

    @Test func dscKeyUsageWithoutDigitalSignatureFails() throws {
        let report = try verify(pki: try pki.withDSC { $0.keyUsage = 0x0002 })  // nonRepudiation only
        #expect(report.reason == .dscKeyUsageInvalid)
    }

    // PKI-07
    @Test func dscNotEmbeddedButInTheTrustStorePasses() throws {
        let files = try FixtureDocument().files(pki: pki) { $0.certificates = [] }
        let store = try trustStore(pki, documentSigners: [pki.dsc])
        let report = PassiveAuthentication.verify(files: files, trustStore: store)
        #expect(report.result == .passed, "\(report.detail ?? "")")
        #expect(report.warnings.contains("dscFromTrustStore"))
    }

    @Test func dscNotEmbeddedAndNotInTheStoreFindsNoSigner() throws {
        let files = try FixtureDocument().files(pki: pki) { $0.certificates = [] }
        let report = PassiveAuthentication.verify(files: files, trustStore: try trustStore(pki))
        #expect(report.reason == .dscNotFound)
    }

    // PKI-08
    @Test func revokedDSCFails() throws {
        let report = try verify(pki: pki, crls: [try pki.crl(revoking: [[0x05], pki.dscSerial])])
        #expect(report.reason == .dscRevoked)
    }

    @Test func crlNotListingTheDSCPassesAndCountsAsChecked() throws {
        let report = try verify(pki: pki, crls: [try pki.crl(revoking: [[0x05]])])
        #expect(report.result == .passed)
        #expect(!report.warnings.contains("revocationNotChecked"))
    }

    @Test func crlNotSignedByTheCSCAIsIgnored() throws {
        var forged = CRLBuilder(issuer: pki.cscaName, revokedSerials: [pki.dscSerial], thisUpdate: Date(),
                             nextUpdate: Date(timeIntervalSinceNow: 86400), scheme: pki.scheme)
        forged.revokedSerials = [pki.dscSerial]
        let report = try verify(pki: pki, crls: [try forged.issue(signedBy: Shared.otherPKI.cscaKey)])
        #expect(report.result == .passed)
        #expect(report.warnings.contains("revocationNotChecked"))
    }

    @Test func withoutCRLRevocationIsReportedAsNotChecked() throws {
        let report = try verify(pki: pki)
        #expect(report.result == .passed)
        #expect(report.warnings.contains("revocationNotChecked"))
    }

    // PKI-09
    @Test func expiredDSCPassesWithAWarning() throws {
        let expired = try pki.withDSC {
            $0.notBefore = Date(timeIntervalSinceNow: -3 * 365 * 86400)
            $0.notAfter = Date(timeIntervalSinceNow: -30 * 86400)
        }
        let report = try verify(pki: expired)
        #expect(report.result == .passed)
        #expect(report.warnings.contains("dscExpired"))
        #expect(report.check.dsc?.validAtVerification == false)
    }

    @Test func expiredCSCAPassesWithAWarning() throws {
        let expired = try pki.withCSCA {
            $0.notBefore = Date(timeIntervalSinceNow: -10 * 365 * 86400)
            $0.notAfter = Date(timeIntervalSinceNow: -86400)
        }
        let report = try verify(pki: expired)
        #expect(report.result == .passed)
        #expect(report.warnings.contains("cscaExpired"))
        #expect(report.check.csca?.validAtVerification == false)
    }

    @Test func dscNotYetValidFails() throws {
        let future = try pki.withDSC { $0.notBefore = Date(timeIntervalSinceNow: 30 * 86400) }
        let report = try verify(pki: future)
        #expect(report.reason == .dscNotValidAtSigning)
    }

    @Test func signingTimeAfterTheDSCExpiredFails() throws {
        let expired = try pki.withDSC {
            $0.notBefore = Date(timeIntervalSinceNow: -3 * 365 * 86400)
            $0.notAfter = Date(timeIntervalSinceNow: -30 * 86400)
        }
        let report = try verify(pki: expired) { $0.signingTime = Date(timeIntervalSinceNow: -86400) }
        #expect(report.reason == .dscNotValidAtSigning)
    }
}
