// swift-tools-version:6.1
// libFuzzer targets (docs/fuzzing.md). Built by scripts/fuzz with
// `-sanitize=fuzzer,address`; each target's main hands its test function to libFuzzer's driver.
import PackageDescription

func fuzzTarget(_ name: String, _ deps: [Target.Dependency]) -> Target {
    .executableTarget(name: name, dependencies: ["FuzzSupport"] + deps, path: "Sources/\(name)")
}

let core: [Target.Dependency] = [.product(name: "MRTDCore", package: "mrtdd")]
let session: [Target.Dependency] = core + [
    .product(name: "MRTDCrypto", package: "mrtdd"), .product(name: "MRTDProtocol", package: "mrtdd"),
]
let testing: [Target.Dependency] = session + [.product(name: "MRTDTesting", package: "mrtdd")]
let verification: [Target.Dependency] = testing + [.product(name: "MRTDVerification", package: "mrtdd")]
// The daemon's request decoding behind NIO's HTTP/1.1 parser (builds Hummingbird and NIO too: about
// half of a cold fuzz build, docs/fuzzing.md). MRTDD_FUZZ_DAEMON=0 leaves that target out: the short
// runs of scripts/test do (the API is fuzzed there by schemathesis against the running daemon);
// scripts/fuzz builds and runs it unless told so.
let withDaemon = Context.environment["MRTDD_FUZZ_DAEMON"] != "0"
let daemon: [Target.Dependency] = [
    .product(name: "MRTDDaemon", package: "mrtdd"), .product(name: "NIOCore", package: "swift-nio"),
    .product(name: "NIOEmbedded", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
]

let package = Package(
    name: "mrtdd-fuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "mrtdd", path: ".."),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
    ] + (withDaemon ? [.package(url: "https://github.com/apple/swift-nio", from: "2.101.2")] : []),
    targets: [
        .target(name: "FuzzSupport"),
        .target(name: "FuzzSpecimen", dependencies: ["FuzzSupport"] + verification),
        fuzzTarget("fuzz_ber_tlv", core),
        fuzzTarget("fuzz_ef_com", core),
        fuzzTarget("fuzz_dg1", core),
        fuzzTarget("fuzz_dg2_header", core),
        fuzzTarget("fuzz_lds_groups", core),
        fuzzTarget("fuzz_biometric_groups", core),
        fuzzTarget("fuzz_lds_security_object", core + [.product(name: "SwiftASN1", package: "swift-asn1")]),
        fuzzTarget("fuzz_mrz_can_input", core),
        fuzzTarget("fuzz_mrz_scanners", core + [.product(name: "MRTDScanners", package: "mrtdd")]),
        fuzzTarget("fuzz_sm_unwrap", session),
        fuzzTarget("fuzz_apdu_transport", verification + ["FuzzSpecimen"]),
        fuzzTarget("fuzz_session", verification + ["FuzzSpecimen"]),
        fuzzTarget("fuzz_securityinfos", session),
        fuzzTarget("fuzz_sod_cms", verification + ["FuzzSpecimen"]),
        fuzzTarget("fuzz_x509_chain", verification),
        fuzzTarget("fuzz_ecdsa_sig", testing),
        fuzzTarget("fuzz_pace_ga", testing),
        fuzzTarget("fuzz_trust_store", verification),
        fuzzTarget("fuzz_trust_update", verification),
        fuzzTarget("fuzz_ca_aa", testing),
        fuzzTarget("fuzz_cv_certificate", verification),
        fuzzTarget("fuzz_evidence_bundle", verification + ["FuzzSpecimen"]),
    ] + (withDaemon ? [fuzzTarget("fuzz_ipc_frame", daemon)] : [])
)
