import Foundation
import FuzzSupport
import FuzzSpecimen
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import MRTDSimulation

/// An evidence bundle (`mrtd-evidence/1`, docs/evidence.md) as a backend receives it: bytes →
/// `EvidenceBundle.decode` → `EvidenceVerification.verify` against the TEST-ONLY CSCA, with the
/// specimen bundle's own challenge expected. No trap; a refusal is an `EvidenceError` with an
/// evidence code; a decoded bundle encodes and decodes to itself; `valid` only with passive
/// authentication passed, every carried data group matching the SOD, and AA (when carried) passed
/// over the expected challenge.
@main enum FuzzEvidenceBundle {
    static func main() {
        if FuzzSeeds.writeIfAsked(makeSeeds) { return }
        FuzzDriver.run(test)
    }

    static let challenge: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
    static let codes: Set<ErrorCode> = [.evidenceMalformed, .evidenceFormatUnsupported]

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let bytes = input.rest()
        let bundle: EvidenceBundle
        do {
            bundle = try EvidenceBundle.decode(bytes)
        } catch let error as EvidenceError {
            fuzzCheck(codes.contains(error.errorCode), "a refusal with code \(error.code)")
            return 0
        } catch {
            fuzzCheck(false, "a refusal that is no EvidenceError: \(error)")
            return 0
        }
        guard let encoded = try? bundle.encoded(), let again = try? EvidenceBundle.decode(encoded) else {
            fuzzCheck(false, "a decoded bundle does not survive its own encoding")
            return 0
        }
        fuzzCheck(again == bundle, "a decoded bundle re-encodes to another")
        let result: ReadResult
        do {
            result = try EvidenceVerification.verify(bundle, trustStore: FuzzSpecimen.trustStore, expectedChallenge: challenge)
        } catch {
            fuzzCheck(false, "a decoded bundle refused by verification: \(error)")
            return 0
        }
        if result.status == .valid {
            let files = (try? bundle.fileBytes()) ?? [:]
            fuzzCheck(result.checks.passiveAuthentication.result == .passed, "valid without passive authentication")
            for (file, _) in files where file.dataGroupNumber != nil {
                fuzzCheck(result.checks.passiveAuthentication.dataGroupHashes?[file.name] == "valid",
                          "valid with \(file.name) not matching the SOD")
            }
            fuzzCheck(bundle.activeAuthentication == nil || bundle.activeAuthentication?.challenge == challenge.hex,
                      "valid with AA over another challenge")
            fuzzCheck(bundle.activeAuthentication == nil
                      || result.checks.activeAuthentication.result == CheckResult.passed,
                      "valid with AA not passed")
        }
        return 0
    }

    /// A bundle of a read of the specimen with Active Authentication (ECDSA P-256) over `challenge`,
    /// signed by the TEST-ONLY document signer; one with DG2 withheld; the plain specimen's.
    static func makeSeeds() throws -> [String: [UInt8]] {
        let fixture = try AuthenticationFixture.make(
            activeAuthentication: .ecdsa(curveID: 12, digest: .sha256, plain: true, withInfo: true))
        var configuration = VirtualChipConfiguration(files: try fixture.specimen().files, accessKey: FuzzSpecimen.key)
        configuration.authentication = fixture.chip
        var options = ReadOptions(accessKey: .mrz(FuzzSpecimen.key), access: .bac, trustStore: FuzzSpecimen.trustStore)
        options.activeAuthenticationChallenge = challenge
        let withAA = runBlocking { [options, configuration] in
            await DocumentReader.read(transport: VirtualChip(configuration: configuration), options: options)
        }
        var plainOptions = options
        plainOptions.activeAuthenticationChallenge = nil
        let plainConfiguration = VirtualChipConfiguration(files: FuzzSpecimen.document.files, accessKey: FuzzSpecimen.key)
        let plain = runBlocking { [plainOptions] in
            await DocumentReader.read(transport: VirtualChip(configuration: plainConfiguration), options: plainOptions)
        }
        let software = EvidenceBundle.Software(name: "fuzz", version: "0")
        func bundle(_ read: DocumentReader.Read, disclose: Set<Int>? = nil) throws -> [UInt8] {
            try EvidenceBundle.make(files: read.files, result: read.result, disclose: disclose,
                                    trustStore: FuzzSpecimen.trustStore, software: software).encoded()
        }
        return [
            "specimen_aa_bundle.json": try bundle(withAA),
            "specimen_aa_dg2_withheld.json": try bundle(withAA, disclose: [1]),
            "specimen_bundle.json": try bundle(plain),
        ]
    }
}
