import Foundation
import MRTDCore
import Testing

/// The gating rule: CA/CAM/AA pass only when passive authentication passed and covered the key's file.
@Suite struct AuthenticationVerdictTests {
    static let unverified = ReadResult.Check(
        result: .passedUnverifiedKey, reason: "keyFileUnverified: DG14", protocol: "id-CA-ECDH-AES-CBC-CMAC-128",
        keyAgreement: "ECDH brainpoolP256r1", keyFile: "DG14")

    @Test func passesOnlyWithPassiveAuthenticationAndAVerifiedKeyFile() {
        let gated = AuthenticationVerdict.gated(Self.unverified, keyFileHashValid: true, passiveAuthenticationPassed: true)
        #expect(gated.result == .passed && gated.reason == nil)
        #expect(gated.protocol == Self.unverified.protocol && gated.keyFile == "DG14")
    }

    @Test(arguments: [(Bool?.none, true), (nil, false), (true, false)])
    func staysUnverifiedWithoutBothProofs(_ hash: Bool?, _ pa: Bool) {
        let gated = AuthenticationVerdict.gated(Self.unverified, keyFileHashValid: hash, passiveAuthenticationPassed: pa)
        #expect(gated.result == .passedUnverifiedKey)
        #expect(gated.reason?.hasSuffix("DG14") == true)
    }

    @Test(arguments: [true, false])
    func aKeyFileWhoseHashDoesNotMatchFails(_ pa: Bool) {
        let gated = AuthenticationVerdict.gated(Self.unverified, keyFileHashValid: false, passiveAuthenticationPassed: pa)
        #expect(gated.result == .failed && gated.reason == "keyFileHashMismatch: DG14")
    }

    @Test(arguments: [ReadResult.Check(result: .failed, reason: "chipAuthenticationKeyIDMismatch"), .notPerformed("noDG14")])
    func failuresAndSkipsPassThrough(_ check: ReadResult.Check) {
        #expect(AuthenticationVerdict.gated(check, keyFileHashValid: true, passiveAuthenticationPassed: true) == check)
    }

    @Test func newCheckFieldsAreOmittedFromJSONWhenAbsent() throws {
        let json = String(decoding: try JSONEncoder().encode(ReadResult.Check.notPerformed("noDG15")), as: UTF8.self)
        #expect(json == #"{"reason":"noDG15","result":"notPerformed"}"# || json == #"{"result":"notPerformed","reason":"noDG15"}"#)
    }
}
