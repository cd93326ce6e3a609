// swift-tools-version:6.1
import PackageDescription

// Upcoming features that make a dependency leak fail to compile: an `import` is internal unless
// marked `public import` (InternalImportsByDefault), existentials are spelled `any P`
// (ExistentialAny), and members are visible only from modules the file imports (MemberImportVisibility).
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "mrtdd",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "mrtdctl", targets: ["mrtdctl"]),
        .executable(name: "mrtdd", targets: ["mrtdd"]),
        .library(name: "MRTDDaemon", targets: ["MRTDDaemon"]),
        .library(name: "MRTDCore", targets: ["MRTDCore"]),
        .library(name: "MRTDCrypto", targets: ["MRTDCrypto"]),
        .library(name: "MRTDProtocol", targets: ["MRTDProtocol"]),
        .library(name: "MRTDReaders", targets: ["MRTDReaders"]),
        .library(name: "MRTDVerification", targets: ["MRTDVerification"]),
        .library(name: "MRTDTesting", targets: ["MRTDTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // System libraries. Each is a modulemap plus a shim header; only the target named in
        // ARCHITECTURE.md imports each one.
        .systemLibrary(
            name: "CLibCrypto", path: "Sources/CLibCrypto", pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]),
        .systemLibrary(
            name: "CPCSCLite", path: "Sources/CPCSCLite", pkgConfig: "libpcsclite",
            providers: [.apt(["libpcsclite-dev"])]),
        .systemLibrary(
            name: "CLibNFC", path: "Sources/CLibNFC", pkgConfig: "libnfc",
            providers: [.apt(["libnfc-dev"])]),

        .target(
            name: "MRTDCore",
            dependencies: [.product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        // A narrow PKCS #11 client (dlopen of the module an RFC 7512 URI names): EAC terminal keys in an HSM.
        .target(name: "CPKCS11", path: "Sources/CPKCS11", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "MRTDCrypto",
            dependencies: ["MRTDCore", "CLibCrypto", "CPKCS11"], swiftSettings: strict),
        .target(
            name: "MRTDVerification",
            dependencies: ["MRTDCore", "MRTDCrypto", .product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        // The protocol layer composes a read with its verification; MRTDVerification itself never
        // depends on the protocol code, so it runs offline on saved dumps.
        .target(
            name: "MRTDProtocol",
            dependencies: ["MRTDCore", "MRTDCrypto", "MRTDVerification"], swiftSettings: strict),
        .target(
            name: "MRTDReaders",
            dependencies: ["MRTDCore", "CPCSCLite", "CLibNFC"], swiftSettings: strict),
        // posix_openpt for the PN532 emulator (XSI functions the Glibc module leaves out).
        .target(name: "CPseudoTerminal", path: "Sources/CPseudoTerminal"),
        .target(
            name: "MRTDTesting",
            dependencies: [
                "MRTDCore", "MRTDCrypto", "MRTDProtocol", "MRTDReaders", "CPseudoTerminal",
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ], swiftSettings: strict),
        // The daemon: reader monitor, read scheduler, API server (Hummingbird over a Unix socket),
        // configuration, events, and the one place errors become API codes. Also the socket client
        // mrtdctl uses.
        .target(
            name: "MRTDDaemon",
            dependencies: [
                // MRTDTesting for `Transcript`: `record-directory` writes the same transcripts as
                // `mrtdctl read --record` (docs/transcripts.md).
                "MRTDCore", "MRTDCrypto", "MRTDProtocol", "MRTDReaders", "MRTDVerification", "MRTDTesting",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
            ], swiftSettings: strict),
        .executableTarget(
            name: "mrtdd",
            dependencies: [
                "MRTDDaemon", "MRTDReaders", "MRTDTesting", "MRTDProtocol", "MRTDVerification", "MRTDCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ], swiftSettings: strict),
        .executableTarget(
            name: "mrtdctl",
            dependencies: [
                "MRTDCore", "MRTDCrypto", "MRTDProtocol", "MRTDReaders", "MRTDTesting", "MRTDVerification",
                "MRTDDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `mrtdctl console` serves its page on 127.0.0.1 (docs/console.md).
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
            ], swiftSettings: strict),

        .testTarget(name: "MRTDCoreTests", dependencies: ["MRTDCore", "MRTDTesting"], swiftSettings: strict),
        .testTarget(name: "MRTDCryptoTests", dependencies: ["MRTDCrypto"], swiftSettings: strict),
        .testTarget(name: "MRTDProtocolTests", dependencies: ["MRTDProtocol", "MRTDTesting", "MRTDVerification"], swiftSettings: strict),
        .testTarget(
            name: "MRTDReadersTests", dependencies: ["MRTDReaders", "MRTDTesting", "MRTDProtocol", "MRTDCore", "MRTDVerification"], swiftSettings: strict),
        .testTarget(name: "MRTDVerificationTests", dependencies: ["MRTDVerification", "MRTDTesting"], swiftSettings: strict),
        .testTarget(
            name: "MRTDDaemonTests",
            dependencies: [
                "MRTDDaemon", "MRTDTesting", "MRTDReaders", "MRTDProtocol", "MRTDCore", "MRTDVerification",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strict),
        .testTarget(name: "MRTDTestingTests", dependencies: ["MRTDTesting", "MRTDCore", "MRTDCrypto"], swiftSettings: strict),
    ]
)
