import Foundation
import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import MRTDSimulation

/// A document signer certificate (DER) and a CSCA (DER) from the input → `Certificate` parsing
/// (every field, the public key) and the specimen SOD re-assembled around the fuzzed DSC, verified
/// against a trust store of the fuzzed CSCA (mode byte odd) or of the TEST-ONLY CSCA (even).
/// No trap; passive authentication passes only when the chain really verifies: the DSC keeps the
/// test DSC's signed TBSCertificate, and a fuzzed anchor holds the test CSCA's key.
@main enum FuzzX509Chain {
    static func main() {
        if FuzzSeeds.writeIfAsked({
            var seeds = ["specimen_chain": FuzzSeeds.chunks([0], [dsc, csca]),
                         "specimen_chain_fuzzed_anchor": FuzzSeeds.chunks([1], [dsc, csca])]
            let samples = "../shared/samples"  // run from the repository root
            for directory in ["gmrtd/csca", "openpace/csca"] {
                let path = "\(samples)/\(directory)"
                for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                    guard let data = FileManager.default.contents(atPath: "\(path)/\(name)") else { continue }
                    seeds["sample_\(name)"] = FuzzSeeds.chunks([1], [dsc, [UInt8](data)])
                }
            }
            return seeds
        }) { return }
        FuzzDriver.run(test)
    }

    static let specimen = try! SpecimenDocument.make()
    static let dsc = try! TestPKI.dsc().derBytes
    static let csca = try! TestPKI.csca().derBytes
    /// The signed part of the test DSC and the test CSCA's SubjectPublicKeyInfo.
    static let dscTBS = try! TLV.parse(dsc).children()[0].encoded
    static let cscaKey: [UInt8] = {
        let fields = try! TLV.parse(csca).children()[0].children()
        return fields[fields[0].tag == 0xA0 ? 6 : 5].encoded  // RFC 5280 §4.1: subjectPublicKeyInfo
    }()
    static let date = Date()
    static let testStore: TrustStore = {
        var store = TrustStore()
        _ = store.addAnchor(try! Certificate(derEncoded: csca), source: "test", isTestMaterial: true)
        return store
    }()
    /// The specimen SOD's SignedData children, around the certificates field.
    static let signedDataChildren: [TLV] = {
        let contentInfo = try! TLV.parse(TLV.parse(specimen.files[.sod]!).value)
        let explicit = try! contentInfo.children()[1]
        return try! TLV.parse(explicit.value).children()
    }()

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let fuzzedAnchor = input.bool()
        let dscBytes = input.chunk()
        let cscaBytes = input.chunk()
        exercise(dscBytes)
        let anchor = exercise(cscaBytes)
        var store = testStore
        if fuzzedAnchor {
            store = TrustStore()
            if let anchor { _ = store.addAnchor(anchor, source: "fuzz") }
        }
        let report = PassiveAuthentication.verify(files: files(dsc: dscBytes), trustStore: store, at: date)
        if report.passed {
            fuzzCheck(fuzzContains(dscBytes, dscTBS), "a DSC without the test DSC's signed TBSCertificate passed")
            fuzzCheck(!fuzzedAnchor || fuzzContains(cscaBytes, cscaKey), "an anchor without the test CSCA's key verified the DSC")
        }
        return 0
    }

    /// Parses and reads every field; returns the certificate when it parses.
    @discardableResult
    static func exercise(_ bytes: [UInt8]) -> Certificate? {
        guard let certificate = try? Certificate(derEncoded: bytes) else { return nil }
        fuzzCheck(certificate.derBytes.count <= bytes.count, "a certificate longer than its bytes")
        _ = certificate.subject.description
        _ = certificate.issuer.description
        _ = certificate.serialNumberHex
        _ = certificate.isValid(at: date)
        _ = certificate.allowsCertificateSigning
        _ = try? certificate.publicKey()
        return certificate
    }

    /// The specimen's files with an SOD whose certificates field is `[0] { dsc }`.
    static func files(dsc: [UInt8]) -> [LDSFile: [UInt8]] {
        let children = signedDataChildren.map { $0.tag == 0xA0 ? TLV.encode(tag: 0xA0, value: dsc) : $0.encoded }
        let signedData = TLV.encode(tag: 0x30, children: children)
        let contentInfo = TLV.encode(tag: 0x30, children: [
            TLV.encode(tag: 0x06, value: [0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x07, 0x02]),
            TLV.encode(tag: 0xA0, value: signedData),
        ])
        var files = specimen.files
        files[.sod] = TLV.encode(tag: 0x77, value: contentInfo)
        return files
    }
}
