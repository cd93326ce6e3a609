import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import MRTDVerification
import SwiftASN1
import Testing

@testable import MRTDProtocol
import MRTDSimulation

/// Terminal Authentication with the IS key in a real PKCS #11 token: SoftHSM2 from Debian, a token
/// initialised by the test in a private SOFTHSM2_CONF. Without SoftHSM2 the test fails under CI and
/// says it was skipped elsewhere.
@Suite(.serialized) struct PKCS11TerminalKeyTests {
    static let module = SoftHSMToken.module
    static let ecSet = try! EACTestSet.make()
    static let rsaSet = try! EACTestSet.make(algorithmOID: "0.4.0.127.0.7.2.2.2.1.4", rsaBits: 2048)

    /// The process's SoftHSM2 token with both IS keys, or nil (skipped loudly; a failure under CI).
    static func prepared() throws -> SoftHSMToken? {
        do {
            let token = try SoftHSMToken.token()
            _ = try token.uri(importing: ecSet.isKey, as: "is-key")
            _ = try token.uri(importing: rsaSet.isKey, as: "rsa-key")
            return token
        } catch let why as SoftHSMToken.Unavailable {
            #expect(Prerequisite.skip("PKCS11TerminalKeyTests: \(why)"))
            return nil
        }
    }

    static func uri(_ object: String, pin: String = "1234") -> String { SoftHSMToken.uri(object: object, pin: pin) }

    @Test(arguments: [("is-key", false), ("rsa-key", true)])
    func terminalAuthenticationWithTheKeyInSoftHSM2(object: String, rsa: Bool) async throws {
        guard let token = try Self.prepared() else { return }
        let dir = token.directory
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
        #expect(ta.result == .passed, "\(ta)")
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
            #expect(ta?.result == .failed)
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
