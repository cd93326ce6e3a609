import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification

/// Passive authentication of the standard read (EF.SOD's CMS signature, the DSC → CSCA chain, the
/// hash of every data group read) against a store holding the TEST-ONLY CSCA, as
/// `mrtdd --simulate` verifies it.
enum PassiveAuthBench {
    static func run(files: [LDSFile: [UInt8]], iterations: Int) throws -> [String: Any] {
        var store = TrustStore()
        _ = store.addAnchor(try TestPKI.csca(), source: "certs/test (TEST ONLY)", isTestMaterial: true)
        let trustStore = store
        guard PassiveAuthentication.verify(files: files, trustStore: trustStore).result == .passed else {
            throw BenchError.check("passive authentication of the specimen did not pass")
        }
        let median = medianCPUSync(iterations: iterations) { _ = PassiveAuthentication.verify(files: files, trustStore: trustStore) }
        // Throughput: one thread verifying documents back to back; CPU time of the whole loop.
        let loop = iterations * 4
        let start = processCPUMilliseconds()
        for _ in 0..<loop { _ = PassiveAuthentication.verify(files: files, trustStore: trustStore) }
        let perSecond = Double(loop) / ((processCPUMilliseconds() - start) / 1000)
        return ["cpuMsPerPA": rounded(median), "paPerSecond": rounded(perSecond, 0)]
    }
}

/// Loading the two sample CSCA master lists (German and Dutch, gmrtd samples) into a trust store,
/// signatures verified: wall and CPU milliseconds, median of five loads.
enum TrustStoreBench {
    static let masterLists = ["gmrtd/master_lists/DE_ML_2026-05-28-08-28-45.ml", "gmrtd/master_lists/NL_ML_2026-07-22.ml"]

    /// `samples`: the shared samples directory (`--samples=`), else `../shared/samples` from the
    /// working directory (scripts/bench runs from the repository root).
    static func run(samples: String?) -> (value: Any, note: String?) {
        let root = URL(fileURLWithPath: samples ?? "../shared/samples")
        let paths = masterLists.map { root.appendingPathComponent($0).path }
        let missing = paths.filter { !FileManager.default.fileExists(atPath: $0) }
        guard missing.isEmpty else {
            return (NSNull(), "master lists not found: \(missing.joined(separator: ", ")) (pass --samples=DIR)")
        }
        var wall: [Double] = []
        var cpu: [Double] = []
        var store = TrustStore()
        for _ in 0..<5 {
            let start = ContinuousClock.now
            let cpuStart = processCPUMilliseconds()
            store = TrustStore.load(paths: paths)
            cpu.append(processCPUMilliseconds() - cpuStart)
            let elapsed = (ContinuousClock.now - start).components
            wall.append(Double(elapsed.seconds) * 1000 + Double(elapsed.attoseconds) / 1e15)
        }
        let verified = store.report.masterLists.filter { $0.signature == "verified" }.count
        guard verified == masterLists.count else {
            return (NSNull(), "only \(verified) of \(masterLists.count) master list signatures verified")
        }
        return ([
            "wall": rounded(wall.sorted()[2], 1), "cpu": rounded(cpu.sorted()[2], 1),
            "certificates": store.report.masterLists.map(\.certificates).reduce(0, +), "cscas": store.anchors.count,
        ] as [String: Any], nil)
    }
}
