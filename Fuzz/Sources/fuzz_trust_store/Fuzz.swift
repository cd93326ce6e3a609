import Foundation
import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification

/// Trust material as an operator hands it over: the first byte picks the file name's extension
/// (`.der`, `.pem`, `.ldif`, `.ml`, `.crl`) or a direct call (`addMasterList`, CRL parsing); the
/// rest is the file. No trap; every file is loaded or rejected with a reason; a master list adds
/// certificates only when its signature verified; the report's counts match the store.
@main enum FuzzTrustStore {
    static func main() {
        if FuzzSeeds.writeIfAsked(makeSeeds) { return }
        FuzzDriver.run(test)
    }

    static let extensions = ["der", "pem", "ldif", "ml", "crl"]
    /// Where the input is written (one file per process, removed after each load).
    static let stem = NSTemporaryDirectory() + "mrtdd-fuzz-trust-\(ProcessInfo.processInfo.processIdentifier)"
    static let date = Date()

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let kind = Int(input.byte()) % (extensions.count + 2)
        let bytes = input.rest()
        if kind < extensions.count {
            let path = "\(stem).\(extensions[kind])"
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else { return 0 }
            let store = TrustStore.load(paths: [path], at: date)
            try? FileManager.default.removeItem(atPath: path)
            check(store.report)
            fuzzCheck(store.report.cscaCount == store.anchors.count, "report counts \(store.report.cscaCount) CSCAs, store has \(store.anchors.count)")
            fuzzCheck(store.report.crlCount == store.crls.count, "report and store disagree on CRLs")
            fuzzCheck(!store.report.sources.isEmpty || !store.report.rejected.isEmpty || !store.report.masterLists.isEmpty,
                      "a file neither loaded nor rejected")
        } else if kind == extensions.count {
            var store = TrustStore()
            let entry = store.addMasterList(bytes, path: "fuzz", at: date)
            fuzzCheck(entry.added == store.anchors.count, "\(entry.added) added, \(store.anchors.count) in the store")
            check(store.report)
        } else if let crl = try? CertificateRevocationList(derEncoded: bytes) {
            fuzzCheck(crl.derBytes.count <= bytes.count, "a CRL longer than its bytes")
            _ = crl.isRevoked(serialNumber: [0x01])
            _ = crl.issuer.description
        }
        return 0
    }

    static func check(_ report: TrustStoreReport) {
        for list in report.masterLists {
            fuzzCheck(list.added == 0 || list.signature == "verified", "an unverified master list added \(list.added) CSCAs")
            fuzzCheck(list.signature == "verified" || report.rejected.contains { $0.path == list.path },
                      "an unverified master list without a rejection")
        }
        for rejection in report.rejected {
            fuzzCheck(!rejection.reason.isEmpty, "a rejection without a reason")
        }
    }

    static func makeSeeds() throws -> [String: [UInt8]] {
        let csca = try TestPKI.csca()
        let dsc = try TestPKI.dsc()
        let masterList = try CMSSigner.sign(
            content: TLV.encode(tag: 0x30, children: [[0x02, 0x01, 0x00], TLV.encode(tag: 0x31, value: csca.derBytes)]),
            eContentTypeOID: "2.23.136.1.1.2", certificateDER: dsc.derBytes, privateKey: TestPKI.dscKey(), digest: .sha256)
        let pki = try FixturePKI.make()
        let crl = try pki.crl(revoking: [pki.dscSerial])
        let base64 = Data(csca.derBytes).base64EncodedString()
        let ldif = "dn: cn=test,o=csca,c=UT,dc=data\ncACertificate;binary:: \(base64)\n\ndn: cn=crl\ncertificateRevocationList;binary:: \(Data(crl).base64EncodedString())\n"
        return [
            "csca_der": [0] + csca.derBytes,
            "csca_pem": [1] + Array(TestPKI.cscaCertificatePEM.utf8),
            "csca_ldif": [2] + Array(ldif.utf8),
            "masterlist_ml": [3] + masterList,
            "crl": [4] + crl,
            "masterlist_direct": [5] + masterList,
            "crl_direct": [6] + crl,
        ]
    }
}
