public import Foundation
public import MRTDCrypto
import Synchronization

/// A SoftHSM2 token for tests (Debian `softhsm2`): one per test process, in a private
/// `SOFTHSM2_CONF` under the temporary directory (the module reads it once, when first initialised).
/// Keys are imported with `softhsm2-util --import` of a PKCS #8 PEM, as an operator would.
public final class SoftHSMToken: Sendable {
    public static let module = "/usr/lib/softhsm/libsofthsm2.so"
    public static let util = "/usr/bin/softhsm2-util"
    public static let label = "mrtdd-test"
    public static let pin = "1234"

    /// Why SoftHSM2 cannot be used here.
    public struct Unavailable: Error, CustomStringConvertible {
        public let description: String
    }

    /// The process's token once made.
    private static let shared = Mutex<SoftHSMToken?>(nil)

    public let directory: URL
    /// The objects imported so far and their CKA_IDs.
    private let imported = Mutex<[String: String]>([:])

    /// The process's token, made on first use.
    public static func token() throws -> SoftHSMToken {
        try shared.withLock { shared in
            if let token = shared { return token }
            let token = try makeToken()
            shared = token
            return token
        }
    }

    private static func makeToken() throws -> SoftHSMToken {
        guard FileManager.default.fileExists(atPath: module), FileManager.default.fileExists(atPath: util) else {
            throw Unavailable(description: "SoftHSM2 (\(module), \(util)) is not installed: apt-get install softhsm2 (scripts/setup)")
        }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-softhsm-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("tokens"), withIntermediateDirectories: true)
        let conf = dir.appendingPathComponent("softhsm2.conf")
        try "directories.tokendir = \(dir.path)/tokens\nobjectstore.backend = file\nlog.level = ERROR\n"
            .write(to: conf, atomically: true, encoding: .utf8)
        setenv("SOFTHSM2_CONF", conf.path, 1)
        try run(["--init-token", "--free", "--label", label, "--pin", pin, "--so-pin", "5678"])
        return SoftHSMToken(directory: dir)
    }

    private init(directory: URL) {
        self.directory = directory
    }

    /// Imports `key` under `object` (once) and returns its RFC 7512 URI.
    public func uri(importing key: PrivateKey, as object: String, pin: String = SoftHSMToken.pin) throws -> String {
        try imported.withLock { imported in
            guard imported[object] == nil else { return }
            let pem = directory.appendingPathComponent("\(object).pem")
            let text = "-----BEGIN PRIVATE KEY-----\n" + Data(try key.pkcs8()).base64EncodedString(options: .lineLength64Characters)
                + "\n-----END PRIVATE KEY-----\n"
            try text.write(to: pem, atomically: true, encoding: .utf8)
            defer { try? FileManager.default.removeItem(at: pem) }
            let id = String(format: "%02x", imported.count + 1)
            try Self.run(["--import", pem.path, "--token", Self.label, "--label", object, "--id", id, "--pin", Self.pin])
            imported[object] = id
        }
        return Self.uri(object: object, pin: pin)
    }

    public static func uri(object: String, pin: String = SoftHSMToken.pin) -> String {
        "pkcs11:token=\(label);object=\(object);type=private?module-path=\(module)&pin-value=\(pin)"
    }

    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: util)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Unavailable(description: "softhsm2-util \(arguments.first ?? "") failed: \(output)")
        }
        return output
    }
}
