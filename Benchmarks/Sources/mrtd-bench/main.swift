import Foundation
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting

// scripts/bench builds this in release mode and prints one JSON object (docs/performance.md).
let arguments = CommandLine.arguments.dropFirst()
let iterations = arguments.first(where: { $0.hasPrefix("--iterations=") }).flatMap { Int($0.dropFirst(13)) } ?? 50

let specimen = try SpecimenDocument.make()
let key = try MRZ(SpecimenDocument.erikssonMRZ).accessKey

func variant(_ name: String, extended: Bool) -> ReadVariant {
    ReadVariant(
        name: name,
        chip: VirtualChipConfiguration(files: specimen.files, accessKey: key, extendedLength: extended),
        options: ReadOptions(accessKey: .mrz(key), reader: .init(preferExtendedLength: extended)))
}

let variants = [variant("bac", extended: true), variant("bacShort", extended: false)]
var recorded: [String: RecordedRead] = [:]
for v in variants { recorded[v.name] = try await RecordedRead.record(v) }

var report: [String: Any] = [:]
report["machine"] = ["cores": ProcessInfo.processInfo.activeProcessorCount,
                     "os": ProcessInfo.processInfo.operatingSystemVersionString]
report["iterations"] = iterations
report["apdusPerRead"] = recorded.mapValues { $0.result.transport.apdus }
report["readBinaryPerRead"] = recorded.mapValues { $0.result.transport.readBinaryCommands }
report["fileBytesPerRead"] = recorded.mapValues { $0.result.transport.fileBytes }
report["wireBytesPerRead"] = recorded.mapValues { $0.wireBytes }
report["smOverheadRatio"] = recorded.mapValues { rounded(Double($0.wireBytes) / Double($0.result.transport.fileBytes), 4) }

let model = LinkModel()
report["linkModelSeconds"] = recorded.mapValues { read in
    Dictionary(uniqueKeysWithValues: [106, 212, 424, 848].map { kbps in
        (String(kbps), rounded(model.seconds(exchanges: read.exchanges, bitrate: Double(kbps) * 1000), 4))
    })
}

var cpu: [String: Double] = [:]
var floor: [String: Double] = [:]
for (name, read) in recorded.sorted(by: { $0.key < $1.key }) {
    cpu[name] = rounded(try await medianCPU(iterations: iterations) { try await read.replay() })
    // BAC: SELECT LDS2, SELECT LDS1, GET CHALLENGE, EXTERNAL AUTHENTICATE before secure messaging.
    let floorWork = try CryptoFloor.tripleDESSession(exchanges: read.exchanges, handshake: 4)
    floor[name] = rounded(try medianCPUSync(iterations: iterations, floorWork))
}
report["cpuMsPerRead"] = cpu
report["cryptoFloorMs"] = floor
report["cpuToFloorRatio"] = Dictionary(uniqueKeysWithValues: cpu.map { ($0.key, rounded($0.value / max(floor[$0.key] ?? 1, 0.001), 2)) })

// The daemon as a separate release process (Daemon/DaemonBench.swift); --skip-daemon leaves it out.
if !arguments.contains("--skip-daemon") {
    report.merge(DaemonBench.runOrExit(.init(arguments: arguments)), uniquingKeysWith: { $1 })
}

let json = try JSONSerialization.data(withJSONObject: report, options: [.prettyPrinted, .sortedKeys])
print(String(decoding: json, as: UTF8.self))
