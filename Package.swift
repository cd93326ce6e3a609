// swift-tools-version:6.1
import PackageDescription

// Every Swift target: a dependency leak fails to compile.
let strict: [SwiftSetting] = [
    .enableUpcomingFeature("InternalImportsByDefault"),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

// Linux only: the readers (pcsc-lite, libnfc), glibc's malloc settings (MRTDPlatform's Heap), prctl,
// posix_spawn's closefrom and SO_PEERCRED have no other home, so no Apple platform is declared.
let package = Package(
    name: "mrtdd",
    products: [
        .executable(name: "mrtdctl", targets: ["mrtdctl"]),
        .executable(name: "mrtdd", targets: ["mrtdd"]),
        .library(name: "MRTDDaemon", targets: ["MRTDDaemon"]),
        .library(name: "MRTDPlatform", targets: ["MRTDPlatform"]),
        .library(name: "MRTDCore", targets: ["MRTDCore"]),
        .library(name: "MRTDCrypto", targets: ["MRTDCrypto"]),
        .library(name: "MRTDProtocol", targets: ["MRTDProtocol"]),
        .library(name: "MRTDReaders", targets: ["MRTDReaders"]),
        .library(name: "MRTDVerification", targets: ["MRTDVerification"]),
        .library(name: "MRTDTranscript", targets: ["MRTDTranscript"]),
        .library(name: "MRTDChipCrypto", targets: ["MRTDChipCrypto"]),
        .library(name: "MRTDSimulation", targets: ["MRTDSimulation"]),
        .library(name: "MRTDClient", targets: ["MRTDClient"]),
        .library(name: "MRTDScanners", targets: ["MRTDScanners"]),
        // TEST-ONLY (for Tests/, Fuzz/, Benchmarks/): no product target may depend on it (scripts/check-deps).
        .library(name: "MRTDTesting", targets: ["MRTDTesting"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.3.0"),
        // No default traits: FullFoundation would link ICU into mrtdd.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // Already resolved for Hummingbird; MRTDClient names it directly (HTTP methods) without the server.
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.0.0"),
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
        // zlib: inflating the deflate entries of trust-list ZIP downloads (MRTDVerification's ZipArchive).
        .systemLibrary(
            name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        // libcurl: `mrtdctl trust update` fetching published trust lists over http(s) (mrtdctl only).
        .systemLibrary(
            name: "CLibCurl", path: "Sources/CLibCurl", pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]),

        // What Swift's Glibc module leaves out: posix_spawn_file_actions_addclosefrom_np (ChildProcess),
        // mallopt and malloc_trim (Heap).
        .target(name: "CLibcShims", path: "Sources/CLibcShims"),
        // The OS runtime the other modules share: threads for blocking calls, child
        // processes, glibc's heap settings, bounded file reads and their provenance, paths, locks, the
        // String helpers FoundationEssentials lacks. The only importer of CLibcShims.
        .target(name: "MRTDPlatform", dependencies: ["CLibcShims"], swiftSettings: strict),
        // ICAO only: TLV, APDUs, MRZ, LDS models, the result model. No OS runtime and no C library, so it
        // is pure and fuzzable (scripts/check-deps).
        .target(
            name: "MRTDCore",
            dependencies: [.product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        // A narrow PKCS #11 client (dlopen of the module an RFC 7512 URI names): EAC terminal keys in an HSM.
        .target(name: "CPKCS11", path: "Sources/CPKCS11", linkerSettings: [.linkedLibrary("dl")]),
        .target(
            name: "MRTDCrypto",
            dependencies: ["MRTDCore", "MRTDPlatform", "CLibCrypto", "CPKCS11", .product(name: "SwiftASN1", package: "swift-asn1")],
            swiftSettings: strict),
        .target(
            name: "MRTDVerification",
            dependencies: ["MRTDCore", "MRTDPlatform", "MRTDCrypto", "CZlib", .product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        // The protocol layer composes a read with its verification; MRTDVerification itself never
        // depends on the protocol code, so it runs offline on saved dumps.
        .target(
            name: "MRTDProtocol",
            dependencies: ["MRTDCore", "MRTDPlatform", "MRTDCrypto", "MRTDVerification", .product(name: "SwiftASN1", package: "swift-asn1")],
            swiftSettings: strict),
        .target(
            name: "MRTDReaders",
            dependencies: ["MRTDCore", "MRTDPlatform", "CPCSCLite", "CLibNFC"], swiftSettings: strict),
        // Transcripts (docs/transcripts.md): the recorded read, the recording and scripted transports,
        // replay. Product code: `mrtdctl read --record`, `replay`, the daemon's record-directory.
        .target(
            name: "MRTDTranscript",
            dependencies: ["MRTDCore", "MRTDCrypto", "MRTDProtocol"], swiftSettings: strict),
        // The virtual chip's own cryptography: secure messaging, key derivation, BAC, PACE
        // (mappings, tokens, CAM), Chip Authentication key agreement and Active Authentication
        // signing, on OpenSSL directly. Never MRTDCore, MRTDCrypto or MRTDProtocol (scripts/check-deps):
        // the chip side must not share the reader's crypto code, or a bug on both sides passes.
        .target(name: "MRTDChipCrypto", dependencies: ["CLibCrypto"], swiftSettings: strict),
        // `--simulate` only: the virtual chip, the specimen documents, the virtual reader backend and
        // the per-process simulation PKI. Holds no private key (scripts/check-deps, tests of the binaries).
        .target(
            name: "MRTDSimulation",
            dependencies: [
                "MRTDCore", "MRTDPlatform", "MRTDCrypto", "MRTDProtocol", "MRTDReaders", "MRTDVerification",
                "MRTDChipCrypto",
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ], swiftSettings: strict),
        // The daemon's socket API as a client sees it: the API models, the error body, the client, the
        // one version of both executables. No server code (no Hummingbird), no C library of ours: its
        // vocabulary is Core's (scripts/check-deps).
        .target(
            name: "MRTDClient",
            dependencies: [
                "MRTDCore",
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ], swiftSettings: strict),
        // MRZ scanners: the framings of serial, hidraw and keyboard-wedge scanners and the
        // check-digit validation with OCR-slip correction. Pure: no I/O (the daemon's sources read the devices).
        .target(name: "MRTDScanners", dependencies: ["MRTDCore"], swiftSettings: strict),
        // TEST-ONLY below: scripts/check-deps fails when a product target (mrtdd, mrtdctl and all they
        // reach) depends on one of these.
        // posix_openpt for the PN532 emulator (XSI functions the Glibc module leaves out).
        .target(name: "CPseudoTerminal", path: "Sources/CPseudoTerminal"),
        // pcscd/vpcd and PN532 harnesses, SoftHSM, the fixed TEST-ONLY keys of certs/test and
        // certs/test-eac, passive-authentication fixture builders.
        .target(
            name: "MRTDTesting",
            dependencies: [
                "MRTDCore", "MRTDPlatform", "MRTDCrypto", "MRTDProtocol", "MRTDReaders", "MRTDVerification",
                "MRTDSimulation", "MRTDTranscript", "CPseudoTerminal",
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ], swiftSettings: strict),
        // The daemon: reader monitor, read scheduler, API server (Hummingbird over a Unix socket),
        // configuration, events, and the one place errors become API codes.
        .target(
            name: "MRTDDaemon",
            dependencies: [
                // MRTDTranscript: `record-directory` writes the same transcripts as `mrtdctl read --record`.
                "MRTDCore", "MRTDPlatform", "MRTDCrypto", "MRTDProtocol", "MRTDReaders", "MRTDVerification",
                "MRTDTranscript", "MRTDClient", "MRTDScanners",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOExtras", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ], swiftSettings: strict),
        .executableTarget(
            name: "mrtdd",
            dependencies: [
                "MRTDDaemon", "MRTDClient", "MRTDReaders", "MRTDSimulation", "MRTDProtocol", "MRTDVerification",
                "MRTDCore", "MRTDPlatform", "MRTDCrypto", "MRTDTranscript",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strict),
        // The client and direct reader: never the daemon module (scripts/check-deps).
        .executableTarget(
            name: "mrtdctl",
            dependencies: [
                "MRTDCore", "MRTDPlatform", "MRTDCrypto", "MRTDProtocol", "MRTDReaders", "MRTDVerification",
                "MRTDTranscript", "MRTDSimulation", "MRTDClient", "CLibCurl",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // `mrtdctl console` serves its page on 127.0.0.1 (docs/console.md): the console's own
                // server, not the daemon's.
                .product(name: "Hummingbird", package: "hummingbird"),
                // Its HTTP/1 channel behind the console's own admission and request-target gate.
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ], swiftSettings: strict),

        .testTarget(name: "MRTDPlatformTests", dependencies: ["MRTDPlatform"], swiftSettings: strict),
        .testTarget(name: "MRTDCoreTests", dependencies: ["MRTDCore", "MRTDTesting", .product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        .testTarget(name: "MRTDCryptoTests", dependencies: ["MRTDCrypto", .product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        .testTarget(name: "MRTDScannersTests", dependencies: ["MRTDScanners", "MRTDCore"], swiftSettings: strict),
        // The chip side's crypto against the published vectors, without any product crypto.
        .testTarget(name: "MRTDChipCryptoTests", dependencies: ["MRTDChipCrypto", "MRTDTesting"], swiftSettings: strict),
        .testTarget(
            name: "MRTDProtocolTests", dependencies: ["MRTDProtocol", "MRTDTesting", "MRTDVerification", .product(name: "SwiftASN1", package: "swift-asn1")],
            swiftSettings: strict),
        .testTarget(
            name: "MRTDReadersTests", dependencies: ["MRTDReaders", "MRTDTesting", "MRTDProtocol", "MRTDCore", "MRTDVerification"], swiftSettings: strict),
        .testTarget(name: "MRTDVerificationTests", dependencies: ["MRTDVerification", "MRTDTesting", .product(name: "SwiftASN1", package: "swift-asn1")], swiftSettings: strict),
        .testTarget(
            name: "MRTDDaemonTests",
            dependencies: [
                "MRTDDaemon", "MRTDTesting", "MRTDReaders", "MRTDProtocol", "MRTDCore", "MRTDPlatform", "MRTDVerification",
                .product(name: "Logging", package: "swift-log"),
            ], swiftSettings: strict),
        // BSI TR-03105 Part 5.1, one test per case ID; scripts/conformance writes the matrix.
        .testTarget(
            name: "ConformanceTests",
            dependencies: [
                "MRTDCore", "MRTDCrypto", "MRTDProtocol", "MRTDSimulation", "MRTDTranscript", "MRTDVerification", "MRTDTesting",
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            // The per-unit notes scripts/conformance merges into the matrix: read from the tree, not resources.
            exclude: ["notes"], swiftSettings: strict),
        .testTarget(
            name: "MRTDTestingTests", dependencies: ["MRTDTesting", "MRTDCore", "MRTDCrypto", "MRTDReaders", .product(name: "SwiftASN1", package: "swift-asn1")],
            swiftSettings: strict),
    ]
)
