import Foundation

/// Whether each target of docs/performance.md was met in this run.
enum Targets {
    /// Terminal CPU per read at most this many times its crypto floor, every variant.
    static let cpuToFloorRatio = 1.5
    /// Loading the two sample master lists, milliseconds.
    static let trustStoreLoadMs = 150.0
    /// `scripts/bench --json`, release build included, seconds.
    static let benchSeconds: Int64 = 600

    /// APDUs of the BAC read with extended length (opening the chip and reading the six files).
    static let bacReadAPDUs = 12
    /// READ BINARY commands for DG2 with extended length.
    static let dg2APDUs = 2
    /// Wire bytes per file byte with extended length.
    static let smOverheadRatio = 1.05

    /// GET /v1/readers with 50 concurrent clients, 99th percentile, ms.
    static let apiLatencyP99Ms = 5.0
    /// The static `mrtdd` as shipped (stripped, as scripts/package strips it), MB (issue 14).
    static let strippedBinaryMB = 50.0
    /// RSS growth over the second 1,000 reads that counts as none, MB.
    static let rssGrowthMB = 1.0
    /// RssAnon growth over the reads after the result store is full (10,000 by default), MB.
    static let storeFullGrowthMB = 1.0

    /// Variants read with extended length (their `...Short` twins use short APDUs).
    private static func extended(_ name: String) -> Bool { !name.hasSuffix("Short") }

    static func evaluate(_ report: [String: Any]) -> [String: Any] {
        var targets: [String: Any] = [:]
        if let breakdown = report["apduBreakdown"] as? [String: [String: Int]], let bac = breakdown["bac"],
           let reading = bac["readingTotal"], let total = (report["apdusPerRead"] as? [String: Int])?["bac"] {
            // The "BAC read": BAC and the six files; Chip and Active Authentication are
            // counted apart (they add 2 + 1 APDUs to the full read, see docs/performance.md).
            targets["apdusPerRead"] = [
                "limit": bacReadAPDUs, "met": reading <= bacReadAPDUs, "bacReading": reading,
                "bacWithChipAndActiveAuthentication": total,
            ] as [String: Any]
            let dg2 = breakdown.filter { extended($0.key) }.mapValues { $0["dg2ReadBinary"] ?? 0 }
            targets["dg2APDUs"] = [
                "limit": dg2APDUs, "met": dg2.values.allSatisfy { $0 <= dg2APDUs }, "worst": dg2.values.max() ?? 0,
            ] as [String: Any]
        }
        if let ratios = report["smOverheadRatio"] as? [String: Double] {
            let extendedRatios = ratios.filter { extended($0.key) }
            targets["smOverheadRatio"] = [
                "limit": smOverheadRatio, "met": extendedRatios.values.allSatisfy { $0 < smOverheadRatio },
                "missed": extendedRatios.filter { $0.value >= smOverheadRatio }.keys.sorted(),
            ] as [String: Any]
        }
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
        if let p99 = report["apiLatencyP99Ms"] as? Double {
            targets["apiLatencyP99Ms"] = ["limit": apiLatencyP99Ms, "met": p99 < apiLatencyP99Ms] as [String: Any]
        }
        if let allocations = report["allocationsPerRead"] as? [String: Any] {
            targets["allocationsPerRead"] = allocationTarget(allocations)
        }
        if let sizes = report["binarySizes"] as? [String: Any], let mrtdd = sizes["mrtdd"] as? [String: Any],
           let stripped = mrtdd["strippedMB"] as? Double {
            targets["strippedBinaryMB"] = ["limit": strippedBinaryMB, "met": stripped < strippedBinaryMB] as [String: Any]
        }
        if let growth = report["rssGrowthAfter1000ReadsMB"] as? Double {
            // "No growth": within the noise of glibc's heap (a page-granular RSS over 1,000 more reads).
            targets["rssGrowthAfter1000ReadsMB"] = ["limit": rssGrowthMB, "met": growth <= rssGrowthMB] as [String: Any]
        }
        if let growth = report["rssAnonGrowthStoreFullMB"] as? Double {
            let memory = report["storeFullMemory"] as? [String: Any]
            let settled = memory?["rssAnonGrowthAfterSettlingMB"] as? Double
            targets["rssAnonGrowthStoreFullMB"] = [
                "limit": storeFullGrowthMB, "met": growth <= storeFullGrowthMB, "reads": memory?["readsWithStoreFull"] ?? NSNull(),
                // The same from the first 1,000 reads with the store full on (the heap settled).
                "metAfterSettling": settled.map { $0 <= storeFullGrowthMB } ?? NSNull(),
            ] as [String: Any]
        }
        if let seconds = report["benchSeconds"] as? [String: Any], let run = seconds["run"] as? Int64 {
            let build = seconds["build"] as? Int64
            let met: Any = build.map { $0 + run <= benchSeconds } ?? NSNull()
            targets["benchSeconds"] = ["limit": benchSeconds, "met": met] as [String: Any]
        }
        return targets
    }

    /// Allocations per read against Benchmarks/allocation-thresholds.json: every measured figure at
    /// most its threshold (a variant without a threshold is listed, not judged).
    static func allocationTarget(_ allocations: [String: Any]) -> [String: Any] {
        let thresholds: AllocationCounter.Thresholds
        do { thresholds = try .load() } catch { return ["met": NSNull(), "error": "\(error)"] }
        var exceeded: [String] = [], unjudged: [String] = []
        for (name, count) in allocations["terminal"] as? [String: Int] ?? [:] {
            guard let limit = thresholds.terminal[name] else { unjudged.append(name); continue }
            if count > limit { exceeded.append("terminal.\(name) \(count) > \(limit)") }
        }
        if let count = allocations["daemonRead"] as? Int, count > thresholds.daemonRead {
            exceeded.append("daemonRead \(count) > \(thresholds.daemonRead)")
        }
        return ["file": "Benchmarks/allocation-thresholds.json", "met": exceeded.isEmpty, "exceeded": exceeded.sorted(),
                "noThreshold": unjudged.sorted()] as [String: Any]
    }
}
