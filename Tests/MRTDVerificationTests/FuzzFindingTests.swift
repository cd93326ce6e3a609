import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import Testing
@testable import MRTDVerification

/// Regression tests for what the libFuzzer targets found (docs/fuzzing.md, "Findings").
@Suite struct FuzzFindingTests {
    /// fuzz_trust_store: an empty trust file is rejected with a reason before it is read (reading
    /// it leaked Foundation's read buffer under AddressSanitizer).
    @Test(arguments: ["csca.der", "list.ml", "pkd.ldif", "csca.pem"])
    func emptyTrustFileIsRejectedAsEmpty(name: String) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-empty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent(name).path
        #expect(FileManager.default.createFile(atPath: path, contents: Data()))
        let store = TrustStore.load(paths: [path])
        #expect(store.anchors.isEmpty)
        #expect(store.report.rejected == [.init(path: path, reason: "empty file")])
        #expect(store.report.sources.isEmpty)
    }
}
