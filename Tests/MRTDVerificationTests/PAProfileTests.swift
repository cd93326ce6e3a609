import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
import SwiftASN1
import Testing
@testable import MRTDVerification

/// Where passive authentication and trust store loading spend their time (printed, release builds).
@Suite(.serialized) struct PAProfileTests {
    static func perCall(_ iterations: Int, _ body: () throws -> Void) rethrows -> Double {
        let start = ContinuousClock.now
        for _ in 0..<iterations { try body() }
        let elapsed = ContinuousClock.now - start
        return (Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(iterations)
    }

    @Test func stepsOfOneDocument() throws {
        let pki = try FixturePKI.make(.rsaPSS)
        let files = try FixtureDocument().files(pki: pki)
        let store = try trustStore(pki)
        let sod = files[.sod]!
        let outer = try BERExtent.contents(sod[...])
        let signedData = try SignedData(contentInfo: outer.content)
        let verification = try SignedDataVerifier.verify(signedData, expectedContentType: LDSSecurityObject.oid, externalSigners: { _ in [] })
        let n = 300
        let extent = Self.perCall(n) { _ = try? BERExtent.contents(sod[...]) }
        let parse = try Self.perCall(n) { _ = try SignedData(contentInfo: outer.content) }
        let berOnly = try Self.perCall(n) { _ = try BER.parse(outer.content) }
        let cert = try Self.perCall(n) { _ = try Certificate(derEncoded: pki.dsc) }
        let signer = try Self.perCall(n) { _ = try SignedDataVerifier.verify(signedData, expectedContentType: LDSSecurityObject.oid, externalSigners: { _ in [] }) }
        let lso = try Self.perCall(n) { _ = try LDSSecurityObject(derEncoded: verification.content) }
        let com = try Self.perCall(n) { _ = try EFCOM(rawBytes: files[.com]!) }
        let chain = try Self.perCall(n) { _ = try store.verifyChain(of: verification.signer, role: .documentSigner, at: Date()) }
        let key = try Self.perCall(n) { _ = try verification.signer.publicKey() }
        let all = Self.perCall(n) { _ = PassiveAuthentication.verify(files: files, trustStore: store) }
        print("PROFILE µs: extent \(Int(extent)), SignedData parse \(Int(parse)) (BER.parse \(Int(berOnly)), one certificate \(Int(cert))), signer verify \(Int(signer)), LSO \(Int(lso)), EF.COM \(Int(com)), chain \(Int(chain)), DSC key decode \(Int(key)), whole PA \(Int(all))")
    }

    /// A loop of PA alone (RSA), for `perf record --filter onlyPassiveAuthenticationLoop`.
    @Test func onlyPassiveAuthenticationLoop() throws {
        let pki = try FixturePKI.make(.rsa)
        let files = try FixtureDocument().files(pki: pki)
        let store = try trustStore(pki)
        let n = 2000
        let each = Self.perCall(n) { _ = PassiveAuthentication.verify(files: files, trustStore: store) }
        print("PROFILE µs: PA RSA \(Int(each))")
    }

    @Test func stepsOfLoadingAMasterList() throws {
        guard let bytes = sharedSample("gmrtd/master_lists/DE_ML_2026-05-28-08-28-45.ml") else { return }
        let n = 5
        let ber = try Self.perCall(n) { _ = try BER.parse(bytes) }
        let signedData = try SignedData(contentInfo: bytes[...])
        let sd = try Self.perCall(n) { _ = try SignedData(contentInfo: bytes[...]) }
        let content = signedData.eContent!
        let list = try Self.perCall(n) { _ = try CscaMasterList(content: content) }
        let parsed = try CscaMasterList(content: content)
        let index = Self.perCall(n) {
            var store = TrustStore()
            for c in parsed.certificates { store.addAnchor(c, source: "x") }
        }
        let verify = try Self.perCall(n) { _ = try SignedDataVerifier.verify(signedData, expectedContentType: OID.cscaMasterList, externalSigners: { _ in [] }) }
        let whole = Self.perCall(n) { var s = TrustStore(); s.addMasterList(bytes, path: "de") }
        print("PROFILE ms DE list (\(parsed.certificates.count) certificates): BER.parse \(ber / 1000), SignedData \(sd / 1000), CscaMasterList \(list / 1000), index \(index / 1000), signature \(verify / 1000), whole \(whole / 1000)")
    }
}
