import Foundation
import MRTDCore
import MRTDVerification
import Testing

/// Passive authentication of real documents from `../shared/samples` (gmrtd, OpenPACE) against the
/// real German and Dutch master lists and the CSCAs shipped with the samples.
@Suite struct RealDocumentTests {
    /// Both master lists, the gmrtd CSCAs (Indonesia, DE and NL roots) and OpenPACE's German CSCA.
    static let store: TrustStore? = {
        guard let root = sharedSamplesRoot() else { return nil }
        return TrustStore.load(paths: [
            root.appendingPathComponent("gmrtd/master_lists").path,
            root.appendingPathComponent("gmrtd/csca").path,
            root.appendingPathComponent("openpace/csca").path,
        ])
    }()

    @Test(arguments: ["AT", "DE", "FI", "FR", "ID", "MY"])
    func realSODSignatureAndChainVerify(country: String) throws {
        guard let store = Self.store, let sod = sharedSample("gmrtd/sod/EF_SOD_\(country).bin") else { return }
        let report = PassiveAuthentication.verify(files: [.sod: sod], trustStore: store)
        #expect(report.reason == nil, "\(country): \(report.reason?.rawValue ?? "") \(report.detail ?? "")")
        #expect(report.result == .passed)
        #expect(report.signatureAndChainValid)
        #expect(report.csca != nil)
        #expect(report.fileHashes.values.allSatisfy { $0 == .notRead })
        #expect(report.fileHashes.count >= 2)
    }

    /// `strict` is the default because no real document at hand needs the tolerance: every real SOD
    /// and EF.CardSecurity verifies under it exactly as under `tolerate-sod-deviations`, which names
    /// no deviation for any of them (docs/verification.md, "Verification profiles").
    @Test(arguments: ["gmrtd/sod/EF_SOD_AT.bin", "gmrtd/sod/EF_SOD_DE.bin", "gmrtd/sod/EF_SOD_FI.bin", "gmrtd/sod/EF_SOD_FR.bin",
                      "gmrtd/sod/EF_SOD_ID.bin", "gmrtd/sod/EF_SOD_MY.bin", "gmrtd/cardsecurity/EF_CardSecurity_DE.bin",
                      "gmrtd/cardsecurity/EF_CardSecurity_FI.bin", "openpace/cardsecurity/EF_CardSecurity_dan.bin"])
    func realDocumentsVerifyAlikeUnderBothProfiles(path: String) throws {
        guard var store = Self.store, let bytes = sharedSample(path) else { return }
        #expect(store.verificationProfile == .strict)
        let file: LDSFile = path.contains("CardSecurity") ? .cardSecurity : .sod
        func verdict(_ store: TrustStore) -> (CheckResult, String?, [String]) {
            if file == .sod {
                let report = PassiveAuthentication.verify(files: [.sod: bytes], trustStore: store)
                return (report.result, report.reason?.rawValue, report.warnings)
            }
            let card = PassiveAuthentication.verifyCardSecurity(bytes, trustStore: store)
            return (card.reason == nil ? .passed : .failed, card.reason?.rawValue, card.warnings)
        }
        let strict = verdict(store)
        store.verificationProfile = .tolerateSODDeviations
        let tolerant = verdict(store)
        #expect(strict.0 == .passed && strict.1 == nil, "\(path): \(strict)")
        #expect(strict.0 == tolerant.0 && strict.1 == tolerant.1, "\(path): strict \(strict), tolerant \(tolerant)")
        let deviations = ["dscNonConforming", "signerInfoVersionMismatch", "ldsVersionInfoMissing"]
        #expect(!tolerant.2.contains { w in deviations.contains { w.hasPrefix($0) } }, "\(path): \(tolerant.2)")
    }

    @Test func bothMasterListsVerifyAndLoad() throws {
        guard let store = Self.store else { return }
        let report = store.report
        #expect(report.masterLists.count == 2)
        for list in report.masterLists {
            #expect(list.signature == "verified", "\(list.path): \(list.detail ?? "")")
            #expect(list.certificates > 100)
        }
        #expect(report.cscaCount > 300)
        #expect(report.countries.contains { $0.country == "DE" })
        print("trust store: \(report.cscaCount) CSCAs, \(report.masterLists.map(\.certificates)) in the lists, loaded in \(report.loadMilliseconds) ms; rejected \(report.rejected.count)")
        for rejection in report.rejected { print("  rejected \(rejection.path): \(rejection.reason)") }
    }

    @Test(arguments: ["gmrtd/cardsecurity/EF_CardSecurity_DE.bin", "gmrtd/cardsecurity/EF_CardSecurity_FI.bin",
                      "openpace/cardsecurity/EF_CardSecurity_dan.bin"])
    func realCardSecurityVerifies(path: String) throws {
        guard let store = Self.store, let bytes = sharedSample(path) else { return }
        let verdict = PassiveAuthentication.verifyCardSecurity(bytes, trustStore: store)
        #expect(verdict.reason == nil, "\(path): \(verdict.reason?.rawValue ?? "") \(verdict.detail ?? "")")
        #expect(verdict.securityInfos != nil)
    }

    @Test(arguments: ["EF_CardSecurity_BSI_EAC_WorkedExample_DH.bin", "EF_CardSecurity_BSI_EAC_WorkedExample_ECDH.bin"])
    func workedExampleCardSecurityHasNoCSCAButAValidSignature(file: String) throws {
        guard let store = Self.store, let bytes = sharedSample("openpace/cardsecurity/\(file)") else { return }
        let verdict = PassiveAuthentication.verifyCardSecurity(bytes, trustStore: store)
        // Its CSCA is not published: the chain fails, the signature itself does not.
        #expect(verdict.reason == .cscaNotFound, "\(verdict.detail ?? "")")
        #expect(verdict.dsc != nil)
    }

    @Test func indonesianSODFailsWithoutTheIndonesianCSCAs() throws {
        guard let root = sharedSamplesRoot(), let sod = sharedSample("gmrtd/sod/EF_SOD_ID.bin") else { return }
        let listsOnly = TrustStore.load(paths: [root.appendingPathComponent("gmrtd/master_lists").path])
        let report = PassiveAuthentication.verify(files: [.sod: sod], trustStore: listsOnly)
        #expect(report.reason == .cscaNotFound)
        #expect(report.signatureScheme != nil)
    }

    @Test func realSODWithOneFlippedSignatureBitFails() throws {
        guard let store = Self.store, var sod = sharedSample("gmrtd/sod/EF_SOD_FR.bin") else { return }
        sod[sod.count - 10] ^= 0x01  // inside the SignerInfo signature, the last field
        let report = PassiveAuthentication.verify(files: [.sod: sod], trustStore: store)
        #expect(report.reason == .sodSignatureInvalid)
    }
}
