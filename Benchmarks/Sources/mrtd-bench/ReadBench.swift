import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting

/// The read figures: transport counts, the link model, and the terminal's CPU per read next to
/// its crypto floor, each nested by variant name (``AccessVariants``).
enum ReadBench {
    static let bitrates = [106, 212, 424, 848]

    /// Records one variant and replays it `iterations` times (for callgrind and perf).
    static func replayOnly(_ name: String, iterations: Int) async throws {
        guard let variant = try AccessVariants.make().first(where: { $0.name == name }) else {
            throw BenchError.check("no variant \(name)")
        }
        let read = try await RecordedRead.record(variant)
        for _ in 0..<iterations { try await read.replay() }
    }

    /// Records every variant once, then measures; returns the JSON entries and the recordings.
    static func run(iterations: Int) async throws -> (report: [String: Any], reads: [String: RecordedRead]) {
        var recorded: [String: RecordedRead] = [:]
        try await Section.timedAsync("record reads") {
            for v in try AccessVariants.make() { recorded[v.name] = try await RecordedRead.record(v) }
        }
        var report: [String: Any] = [:]
        report["apdusPerRead"] = recorded.mapValues { $0.result.transport.apdus }
        report["readBinaryPerRead"] = recorded.mapValues { $0.result.transport.readBinaryCommands }
        report["fileBytesPerRead"] = recorded.mapValues { $0.result.transport.fileBytes }
        report["wireBytesPerRead"] = recorded.mapValues { $0.wireBytes }
        report["smOverheadRatio"] = recorded.mapValues { rounded(Double($0.wireBytes) / Double($0.result.transport.fileBytes), 4) }
        report["dg2Bytes"] = recorded.values.first?.files[.dg(2)]?.count
        report["apduBreakdown"] = recorded.mapValues { APDUBreakdown($0.exchanges).json }
        // The secure-messaging cost of reading alone: READ BINARY exchanges' bytes per file byte
        // (the handshakes of BAC, PACE, CA and AA left out).
        report["smOverheadRatioFileReads"] = recorded.mapValues { read in
            let readBytes = read.exchanges.filter { $0.command.count > 1 && ($0.command[1] == 0xB0 || $0.command[1] == 0xB1) }
                .reduce(0) { $0 + $1.command.count + $1.response.count }
            return rounded(Double(readBytes) / Double(read.result.transport.fileBytes), 4)
        }

        let model = LinkModel()
        report["linkModelSeconds"] = recorded.mapValues { read in
            Dictionary(uniqueKeysWithValues: bitrates.map { kbps in
                (String(kbps), rounded(model.seconds(exchanges: read.exchanges, bitrate: Double(kbps) * 1000), 4))
            })
        }

        // Replay samples and floor samples alternate, so machine load affects both alike.
        var cpu: [String: Double] = [:]
        var floor: [String: Double] = [:]
        var floorParts: [String: [String: Double]] = [:]
        try await Section.timedAsync("cpuMsPerRead (replays) and cryptoFloorMs (OpenSSL), interleaved") {
            for (name, read) in recorded.sorted(by: { $0.key < $1.key }) {
                let asymmetric = try AsymmetricFloor(read)
                let symmetric = try CryptoFloor.symmetric(read)
                for _ in 0..<2 {  // warm-up
                    try await read.replay()
                    try symmetric()
                    _ = try asymmetric.sample()
                }
                var replays: [Double] = [], symmetricSamples: [Double] = [], publicKeySamples: [Double] = []
                for _ in 0..<iterations {
                    var start = processCPUMilliseconds()
                    try await read.replay()
                    replays.append(processCPUMilliseconds() - start)
                    start = processCPUMilliseconds()
                    try symmetric()
                    symmetricSamples.append(processCPUMilliseconds() - start)
                    publicKeySamples.append(try asymmetric.sample())
                }
                let totals = zip(symmetricSamples, publicKeySamples).map { $0 + $1 }
                cpu[name] = median(replays)
                floor[name] = median(totals)
                floorParts[name] = ["symmetric": rounded(median(symmetricSamples)), "publicKey": rounded(median(publicKeySamples))]
            }
        }
        report["cpuMsPerRead"] = cpu.mapValues { rounded($0) }
        report["cryptoFloorMs"] = floor.mapValues { rounded($0) }
        report["cryptoFloorParts"] = floorParts
        report["cpuToFloorRatio"] = Dictionary(uniqueKeysWithValues: cpu.map {
            ($0.key, rounded($0.value / max(floor[$0.key] ?? 1, 0.001), 2))
        })
        return (report, recorded)
    }
}
