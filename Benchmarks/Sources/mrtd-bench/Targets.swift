import Foundation

/// Whether each target of docs/performance.md was met in this run.
enum Targets {
    /// Terminal CPU per read at most this many times its crypto floor, every variant.
    static let cpuToFloorRatio = 1.5
    /// Loading the two sample master lists, milliseconds.
    static let trustStoreLoadMs = 150.0
    /// `scripts/bench --json`, release build included, seconds.
    static let benchSeconds: Int64 = 600

    static func evaluate(_ report: [String: Any]) -> [String: Any] {
        var targets: [String: Any] = [:]
        if let ratios = report["cpuToFloorRatio"] as? [String: Double], let worst = ratios.max(by: { $0.value < $1.value }) {
            targets["cpuToFloorRatio"] = [
                "limit": cpuToFloorRatio, "met": worst.value <= cpuToFloorRatio,
                "worst": worst.key, "worstValue": worst.value,
                "missed": ratios.filter { $0.value > cpuToFloorRatio }.keys.sorted(),
            ] as [String: Any]
        }
        if let load = report["trustStoreLoadMs"] as? [String: Any], let cpu = load["cpu"] as? Double, let wall = load["wall"] as? Double {
            targets["trustStoreLoadMs"] = ["limit": trustStoreLoadMs, "met": cpu < trustStoreLoadMs, "metWall": wall < trustStoreLoadMs] as [String: Any]
        } else {
            targets["trustStoreLoadMs"] = ["limit": trustStoreLoadMs, "met": NSNull()] as [String: Any]
        }
        if let seconds = report["benchSeconds"] as? [String: Any], let run = seconds["run"] as? Int64 {
            let build = seconds["build"] as? Int64
            let met: Any = build.map { $0 + run <= benchSeconds } ?? NSNull()
            targets["benchSeconds"] = ["limit": benchSeconds, "met": met] as [String: Any]
        }
        return targets
    }
}
