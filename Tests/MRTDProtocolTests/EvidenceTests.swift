import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import Testing
import MRTDSimulation

/// Issue 29: a caller's Active Authentication challenge, the evidence bundle of a read, and its
/// offline re-verification (docs/evidence.md): every kind of tampering is caught with its own reason.
@Suite(.serialized) struct EvidenceTests {
    static let key = try! MRZ(SpecimenDocument.erikssonMRZ).accessKey
    static let challenge: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
    static let ecdsa = ActiveAuthenticationKeySpec.ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true)
    static let rsa = ActiveAuthenticationKeySpec.rsa(bits: 1024, digest: .sha1)

    static func trust() throws -> TrustStore {
        var store = TrustStore()
        _ = store.addAnchor(try TestPKI.csca(), source: "test CSCA", isTestMaterial: true)
        return store
    }

    /// A read of a passport with Active Authentication (and Chip Authentication), with `challenge`.
    static func read(
        aa: ActiveAuthenticationKeySpec = ecdsa, challenge: [UInt8]? = EvidenceTests.challenge, dataGroups: [Int] = [1, 2, 14, 15]
    ) async throws -> DocumentReader.Read {
        let fixture = try AuthenticationFixture.make(
            chipAuthentication: [.init(domainParameterID: 13, cipher: .aes128)], activeAuthentication: aa)
        var configuration = VirtualChipConfiguration(files: try fixture.specimen().files, accessKey: key)
        configuration.authentication = fixture.chip
        var options = ReadOptions(accessKey: .mrz(key), dataGroups: dataGroups, access: .bac, trustStore: try trust())
        options.activeAuthenticationChallenge = challenge
        return await DocumentReader.read(transport: VirtualChip(configuration: configuration), options: options)
    }

    static func bundle(_ read: DocumentReader.Read, disclose: Set<Int>? = nil) throws -> EvidenceBundle {
        let made = try EvidenceBundle.make(
            files: read.files, result: read.result, disclose: disclose, trustStore: try trust(),
            software: .init(name: "test", version: "0"))
        // Through its bytes, as a backend receives it.
        return try EvidenceBundle.decode(try made.encoded())
    }

    static func verify(_ bundle: EvidenceBundle, expecting challenge: [UInt8]? = EvidenceTests.challenge, trust: TrustStore? = nil) throws -> ReadResult {
        try EvidenceVerification.verify(bundle, trustStore: trust ?? (try Self.trust()), expectedChallenge: challenge)
    }

    // MARK: Fresh challenges

    @Test(arguments: [ecdsa, rsa])
    func theChipSignsTheCallersChallengeAndTheResultSaysSo(_ aa: ActiveAuthenticationKeySpec) async throws {
        let read = try await Self.read(aa: aa)
        let check = read.result.checks.activeAuthentication
        #expect(read.result.status == .valid)
        #expect(check.result == CheckResult.passed, "\(check)")
        #expect(check.challenge == Self.challenge.hex)
        #expect(check.challengeSource == "caller")
        // The recorded signature verifies over that challenge with DG15's key, and over no other.
        let key = try ActiveAuthenticationPublicKey(dg15: try #require(read.files[.dg(15)]))
        let signature = try #require(check.signature.flatMap { [UInt8](hex: $0) })
        let digest: DigestAlgorithm? = aa == Self.ecdsa ? .sha256 : nil
        #expect(try key.verify(challenge: Self.challenge, signature: signature, ecdsaDigest: digest).isValid)
        #expect(try key.verify(challenge: Array(Self.challenge.reversed()), signature: signature, ecdsaDigest: digest).isValid == false)
    }

    @Test func withoutACallersChallengeTheReaderDrawsOne() async throws {
        let first = try await Self.read(challenge: nil)
        let second = try await Self.read(challenge: nil)
        let a = first.result.checks.activeAuthentication
        #expect(a.result == CheckResult.passed)
        #expect(a.challengeSource == "reader")
        #expect(a.challenge?.count == 16)
        #expect(a.challenge != Self.challenge.hex)
        #expect(a.challenge != second.result.checks.activeAuthentication.challenge)
    }

    // MARK: Evidence re-verified offline

    @Test func aReadsEvidenceReverifiesOffline() async throws {
        let read = try await Self.read()
        let bundle = try Self.bundle(read)
        #expect(bundle.format == "mrtd-evidence/1")
        #expect(Set(bundle.files.keys) == ["EF_COM", "EF_SOD", "DG1", "DG2", "DG14", "DG15"])
        #expect(bundle.withheld == nil)
        #expect(bundle.activeAuthentication?.challenge == Self.challenge.hex)
        #expect(bundle.trustAnchors.map(\.role) == ["csca", "dsc"])
        #expect(bundle.trustAnchors.first?.sha256 == DigestAlgorithm.sha256.hash(try TestPKI.csca().derBytes).hex)
        #expect(bundle.verdict.status == .valid)
        #expect(bundle.chipAuthentication?.result == CheckResult.passed)

        let result = try Self.verify(bundle)
        #expect(result.status == .valid)
        #expect(result.checks.passiveAuthentication.result == .passed)
        #expect(result.checks.activeAuthentication.result == CheckResult.passed, "\(result.checks.activeAuthentication)")
        #expect(result.checks.activeAuthentication.challenge == Self.challenge.hex)
        #expect(result.document?.documentNumber == "L898902C3")
        // CA is reported, never as an offline proof: a transcript of it could be replayed.
        #expect(result.checks.chipAuthentication.result == .notPerformed)
        #expect(result.checks.chipAuthentication.reason == "notVerifiableOffline")
        // Without an expected challenge the bundle's own is checked.
        #expect(try Self.verify(bundle, expecting: nil).status == .valid)
    }

    @Test func aTamperedDataGroupByteIsCaught() async throws {
        var bundle = try Self.bundle(try await Self.read())
        var dg1 = [UInt8](Data(base64Encoded: try #require(bundle.files["DG1"]))!)
        dg1[dg1.count - 3] ^= 0x01
        bundle.files["DG1"] = Data(dg1).base64EncodedString()
        let result = try Self.verify(bundle)
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.reason == "dataGroupHashMismatch")
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG1"] == "invalid")
    }

    @Test func aTamperedSODIsCaught() async throws {
        var bundle = try Self.bundle(try await Self.read())
        var sod = [UInt8](Data(base64Encoded: try #require(bundle.files["EF_SOD"]))!)
        // The last bytes are the SignerInfo's signature.
        sod[sod.count - 2] ^= 0x01
        bundle.files["EF_SOD"] = Data(sod).base64EncodedString()
        let result = try Self.verify(bundle)
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.reason == "sodSignatureInvalid")
        // AA's key file is not covered any more: AA cannot pass.
        #expect(result.checks.activeAuthentication.result != CheckResult.passed)
    }

    @Test func aTamperedSignatureIsCaught() async throws {
        var bundle = try Self.bundle(try await Self.read())
        var signature = try #require(bundle.activeAuthentication.flatMap { [UInt8](hex: $0.signature) })
        signature[signature.count / 2] ^= 0x01
        bundle.activeAuthentication?.signature = signature.hex
        let result = try Self.verify(bundle)
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.result == .passed)
        #expect(result.checks.activeAuthentication.result == CheckResult.failed)
        #expect(result.checks.activeAuthentication.reason?.hasPrefix("activeAuthenticationSignatureInvalid") == true)
    }

    @Test func aSwappedChallengeIsCaught() async throws {
        let bundle = try Self.bundle(try await Self.read())
        // The backend issued another challenge: the bundle answers an old one (a replay).
        let other: [UInt8] = [9, 9, 9, 9, 9, 9, 9, 9]
        let replayed = try Self.verify(bundle, expecting: other)
        #expect(replayed.status == .invalid)
        #expect(replayed.checks.activeAuthentication.reason == "challengeMismatch")
        #expect(replayed.checks.activeAuthentication.result == CheckResult.failed)
        // The bundle's challenge rewritten to the expected one: the signature no longer verifies.
        var swapped = bundle
        swapped.activeAuthentication?.challenge = other.hex
        let forged = try Self.verify(swapped, expecting: other)
        #expect(forged.status == .invalid)
        #expect(forged.checks.activeAuthentication.reason?.hasPrefix("activeAuthenticationSignatureInvalid") == true)
    }

    @Test func aMissingTrustAnchorIsCaught() async throws {
        let bundle = try Self.bundle(try await Self.read())
        let result = try Self.verify(bundle, trust: TrustStore())
        #expect(result.status == .invalid)
        #expect(result.checks.passiveAuthentication.reason == "cscaNotFound")
        #expect(result.checks.activeAuthentication.result != CheckResult.passed)
    }

    @Test func withDG2WithheldTheRestStillVerifies() async throws {
        let read = try await Self.read()
        let bundle = try Self.bundle(read, disclose: [1])
        #expect(bundle.files["DG2"] == nil)
        #expect(bundle.files["DG1"] != nil && bundle.files["DG15"] != nil && bundle.files["DG14"] != nil)
        #expect(bundle.withheld?["DG2"]?.hashAlgorithm == "SHA-256")
        #expect(bundle.withheld?["DG2"]?.hash == DigestAlgorithm.sha256.hash(try #require(read.files[.dg(2)])).hex)
        let result = try Self.verify(bundle)
        #expect(result.status == .valid)
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG2"] == "withheld")
        #expect(result.checks.passiveAuthentication.dataGroupHashes?["DG1"] == "valid")
        #expect(result.checks.activeAuthentication.result == CheckResult.passed)
        #expect(result.face == nil)

        // A withheld hash that is not the SOD's is caught too.
        var lying = bundle
        lying.withheld?["DG2"]?.hash = [UInt8](repeating: 0xAA, count: 32).hex
        let caught = try Self.verify(lying)
        #expect(caught.status == .invalid)
        #expect(caught.checks.passiveAuthentication.reason == "withheldHashMismatch")
    }

    @Test func theDecoderIsStrict() async throws {
        let good = try Self.bundle(try await Self.read()).encoded()
        let json = String(decoding: good, as: UTF8.self)
        func code(_ text: String) -> ErrorCode? {
            do {
                _ = try EvidenceBundle.decode(Array(text.utf8))
                return nil
            } catch {
                return error.errorCode
            }
        }
        #expect(code(json) == nil)
        #expect(code("[]") == .evidenceMalformed)
        #expect(code("{") == .evidenceMalformed)
        #expect(code(json.replacingOccurrences(of: "\"mrtd-evidence/1\"", with: "\"mrtd-evidence/2\"")) == .evidenceFormatUnsupported)
        #expect(code(json.replacingOccurrences(of: "\"createdAt\"", with: "\"sessionKey\" : \"00\", \"createdAt\"")) == .evidenceMalformed)
        #expect(code(json.replacingOccurrences(of: "\"EF_SOD\"", with: "\"EF_NONE\"")) == .evidenceMalformed)
        #expect(code(json.replacingOccurrences(of: Self.challenge.hex, with: "0123")) == .evidenceMalformed)
        #expect(code(json.replacingOccurrences(of: "\"format\"", with: "\"formats\"")) == .evidenceMalformed)
        var bundle = try EvidenceBundle.decode(good)
        bundle.files["DG1"] = "not base64!"
        #expect(code(String(decoding: try bundle.encoded(), as: UTF8.self)) == .evidenceMalformed)
        #expect(throws: EvidenceError.self) { try EvidenceBundle.decode([UInt8](repeating: 0x20, count: EvidenceBundle.maxSize + 1)) }
    }

    @Test func aFailedReadHasNoEvidence() throws {
        let failed = DocumentReader.Read(result: ReadResult(status: .failed), files: [:])
        #expect(throws: EvidenceError.notAvailable) {
            try EvidenceBundle.make(files: failed.files, result: failed.result, trustStore: nil, software: .init(name: "t", version: "0"))
        }
    }
}

/// The verdict rules of docs/verification.md ("What each proof is worth"), one test per rule.
@Suite(.serialized) struct VerdictRuleTests {
    static func aaScenario(withDG15: Bool) throws -> FieldQuirkScenario {
        try #require(try FieldQuirkScenario.all().first { $0.quirk == .aa6A88 && ($0.configuration.files[.dg(15)] != nil) == withDG15 })
    }

    @Test func authenticOnlyWhenPassiveAuthenticationPassed() async throws {
        // The chip proves its AA key either way; only PA decides whether the document is authentic.
        let fixture = try AuthenticationFixture.make(activeAuthentication: EvidenceTests.ecdsa)
        var configuration = VirtualChipConfiguration(files: try fixture.specimen().files, accessKey: EvidenceTests.key)
        configuration.authentication = fixture.chip
        for (trust, status, aa) in [
            (try EvidenceTests.trust() as TrustStore?, ReadResult.Status.valid, CheckResult.passed),
            (nil, .unverified, CheckResult.passedUnverifiedKey),
            (TrustStore(), .invalid, CheckResult.passedUnverifiedKey),
        ] {
            let options = ReadOptions(accessKey: .mrz(EvidenceTests.key), access: .bac, trustStore: trust)
            let result = await DocumentReader.read(transport: VirtualChip(configuration: configuration), options: options).result
            #expect(result.status == status)
            #expect(result.checks.activeAuthentication.result == aa)
        }
    }

    @Test func onlyACallersChallengeSurvivesForwarding() async throws {
        // A bundle whose challenge the reader drew proves nothing fresh to a backend that issued its own.
        let read = try await EvidenceTests.read(challenge: nil)
        let bundle = try EvidenceTests.bundle(read)
        #expect(bundle.activeAuthentication?.challengeSource == "reader")
        let result = try EvidenceTests.verify(bundle, expecting: EvidenceTests.challenge)
        #expect(result.status == .invalid)
        #expect(result.checks.activeAuthentication.reason == "challengeMismatch")
    }

    @Test func activeAuthenticationIsRequiredWhenTheSODSignsDG15() async throws {
        // DG15 not asked for: AA cannot run, and the verified SOD says the chip has a key for it.
        let read = try await EvidenceTests.read(dataGroups: [1, 2, 14])
        let aa = read.result.checks.activeAuthentication
        #expect(read.result.dataGroupsRead.contains("DG15") == false)
        #expect(aa.result == CheckResult.failed)
        #expect(aa.reason == AuthenticationVerdict.activeAuthenticationRequired)
        // A bundle of it does not verify as clone-proof either.
        let verified = try EvidenceTests.verify(try EvidenceTests.bundle(read), expecting: nil)
        #expect(verified.checks.activeAuthentication.reason == AuthenticationVerdict.activeAuthenticationRequired)
        #expect(verified.status == .invalid)
    }

    @Test func aChipAnsweringActiveAuthenticationWithAnErrorIsReportedNotSkipped() async throws {
        let scenario = try Self.aaScenario(withDG15: true)
        var options = scenario.options()
        options.trustStore = try EvidenceTests.trust()
        let chip = VirtualChip(configuration: scenario.configuration)
        let result = await DocumentReader.read(transport: chip, options: options).result
        // The read itself is not aborted (every file is there); the refused AA fails the inspection.
        #expect(result.status == .invalid)
        #expect(result.dataGroupsRead.contains("DG2"))
        #expect(result.checks.activeAuthentication.result == CheckResult.failed)
        #expect(result.checks.activeAuthentication.reason?.hasPrefix("activeAuthenticationRefused 6A88") == true)
        #expect(await chip.internalAuthenticatesRefused == 1)
    }

    @Test func aChipWithoutDG15Answering6A88DoesNotAbortTheRead() async throws {
        let scenario = try Self.aaScenario(withDG15: false)
        var options = scenario.options()
        options.trustStore = try EvidenceTests.trust()
        let chip = VirtualChip(configuration: scenario.configuration)
        let result = await DocumentReader.read(transport: chip, options: options).result
        #expect(result.status == .valid)
        #expect(result.checks.activeAuthentication == .notPerformed("noDG15"))
        #expect(await chip.internalAuthenticatesRefused == 0)
    }
}
