import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import Testing

@testable import MRTDProtocol

/// Terminal Authentication with the IS key in a real PKCS #11 token: SoftHSM2 from Debian, a token
/// initialised by the test in a private SOFTHSM2_CONF. Without SoftHSM2 the test fails under CI and
/// says it was skipped elsewhere.
@Suite(.serialized) struct PKCS11TerminalKeyTests {
    static let module = "/usr/lib/softhsm/libsofthsm2.so"
    static let util = "/usr/bin/softhsm2-util"

    static func available() -> Bool {
        guard FileManager.default.fileExists(atPath: module), FileManager.default.fileExists(atPath: util) else {
            if ProcessInfo.processInfo.environment["CI"] != nil {
                Issue.record("SoftHSM2 is missing (apt-get install softhsm2; scripts/setup installs it)")
            } else {
                print("SKIPPED PKCS11TerminalKeyTests: SoftHSM2 (\(module), \(util)) is not installed")
            }
            return false
        }
        return true
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
        process.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        guard process.terminationStatus == 0 else { throw CryptoError.unsupported("softhsm2-util \(arguments.first ?? ""): \(output)") }
        return output
    }

    /// A fresh token `mrtdd-test` (user PIN 1234) holding `key` as `is-key`, id 01.
    static func token(with keys: [(label: String, id: String, key: PrivateKey)]) throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("softhsm-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("tokens"), withIntermediateDirectories: true)
        let conf = dir.appendingPathComponent("softhsm2.conf")
        try "directories.tokendir = \(dir.path)/tokens\nobjectstore.backend = file\nlog.level = ERROR\n"
            .write(to: conf, atomically: true, encoding: .utf8)
        // The module reads SOFTHSM2_CONF when it is initialised: once per process, so this suite
        // makes one token for all its tests.
        setenv("SOFTHSM2_CONF", conf.path, 1)
        try run(["--init-token", "--free", "--label", "mrtdd-test", "--pin", "1234", "--so-pin", "5678"])
        for entry in keys {
            let pem = dir.appendingPathComponent("\(entry.label).pem")
            let der = try entry.key.pkcs8()
            let text = "-----BEGIN PRIVATE KEY-----\n" + Data(der).base64EncodedString(options: .lineLength64Characters)
                + "\n-----END PRIVATE KEY-----\n"
            try text.write(to: pem, atomically: true, encoding: .utf8)
            try run(["--import", pem.path, "--token", "mrtdd-test", "--label", entry.label, "--id", entry.id, "--pin", "1234"])
            try FileManager.default.removeItem(at: pem)
        }
        return dir
    }

    static let ecSet = try! EACTestSet.make()
    static let rsaSet = try! EACTestSet.make(algorithmOID: "0.4.0.127.0.7.2.2.2.1.4", rsaBits: 2048)
    nonisolated(unsafe) static var tokenDirectory: URL?

    static func prepared() throws -> URL? {
        guard available() else { return nil }
        if let tokenDirectory { return tokenDirectory }
        let dir = try token(with: [("is-key", "01", ecSet.isKey), ("rsa-key", "02", rsaSet.isKey)])
        tokenDirectory = dir
        return dir
    }

    static func uri(_ object: String, pin: String = "1234") -> String {
        "pkcs11:token=mrtdd-test;object=\(object);type=private?module-path=\(module)&pin-value=\(pin)"
    }

    @Test(arguments: [("is-key", false), ("rsa-key", true)])
    func terminalAuthenticationWithTheKeyInSoftHSM2(object: String, rsa: Bool) async throws {
        guard let dir = try Self.prepared() else { return }
        let set = rsa ? Self.rsaSet : Self.ecSet
        // A terminal directory as an operator writes it: certificates, and a URI instead of a key file.
        let terminal = dir.appendingPathComponent("terminal-\(object)")
        try FileManager.default.createDirectory(at: terminal, withIntermediateDirectories: true)
        try set.write(to: terminal.path)
        try FileManager.default.removeItem(at: terminal.appendingPathComponent("is.pkcs8"))
        try Self.uri(object).write(to: terminal.appendingPathComponent("is.pkcs11"), atomically: true, encoding: .utf8)
        let credentials = try TerminalCredentials.load(directory: terminal.path)
        #expect(credentials.terminals.map(\.key.source) == ["pkcs11"])

        let setup = try TerminalAuthenticationTests.setup(chipTrusts: set)
        let read = await TerminalAuthenticationTests.read(setup, credentials)
        let ta = try #require(read.result.checks.terminalAuthentication)
        #expect(ta.result == "passed", "\(ta)")
        #expect(ta.keySource == "pkcs11")
        #expect(read.files[.dg(3)] == TerminalAuthenticationTests.dg3)
        #expect(read.files[.dg(4)] == TerminalAuthenticationTests.dg4)
    }

    @Test func aWrongPINOrAMissingKeyIsKeyUnavailableAndNeverPassed() async throws {
        guard try Self.prepared() != nil else { return }
        let set = Self.ecSet
        for uri in [Self.uri("is-key", pin: "0000"), Self.uri("no-such-key"),
                    "pkcs11:token=other;object=is-key?module-path=\(Self.module)&pin-value=1234"] {
            let credentials = TerminalCredentials(
                certificates: [set.cvca, set.dv, set.inspectionSystem],
                terminals: [.init(certificate: set.inspectionSystem, key: try PKCS11TerminalKey(uri: uri))])
            let read = await TerminalAuthenticationTests.read(try TerminalAuthenticationTests.setup(chipTrusts: set), credentials)
            let ta = read.result.checks.terminalAuthentication
            #expect(ta?.result == "failed")
            #expect(ta?.reason == TerminalAuthenticationFailure.keyUnavailable.code)
            #expect(ta?.detail?.contains("0000") == false, "the PIN must not be reported")
            #expect(read.files[.dg(3)] == nil)
        }
    }

    @Test func uriParsing() throws {
        let key = try PKCS11Key(uri: "pkcs11:token=My%20Token;id=%01%02;type=private?module-path=/m.so&pin-value=9999")
        #expect(key.token == "My Token")
        #expect(key.id == [1, 2])
        #expect(key.modulePath == "/m.so")
        #expect(!key.description.contains("9999"))
        for bad in ["pkcs12:token=x", "pkcs11:token=x;object=y", "pkcs11:token=x?module-path=/m.so",
                    "pkcs11:object=y;type=cert?module-path=/m.so", "pkcs11:id=%G1?module-path=/m.so"] {
            #expect(throws: CryptoError.self) { try PKCS11Key(uri: bad) }
        }
    }
}
