// swift-tools-version:6.1
// The benchmark harness lives in its own package so that the main build and `scripts/test` do not
// compile it; `scripts/bench` builds it in release mode.
import PackageDescription

let package = Package(
    name: "mrtdd-benchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "mrtdd", path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "mrtd-bench",
            dependencies: [
                .product(name: "MRTDCore", package: "mrtdd"),
                .product(name: "MRTDCrypto", package: "mrtdd"),
                .product(name: "MRTDProtocol", package: "mrtdd"),
                .product(name: "MRTDTesting", package: "mrtdd"),
                .product(name: "MRTDVerification", package: "mrtdd"),
            ],
            path: "Sources/mrtd-bench"),
    ]
)
