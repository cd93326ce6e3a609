import Foundation
import MRTDCore
import MRTDCrypto
import MRTDTesting
@testable import MRTDVerification

/// A trust store holding `pki`'s CSCA (and `crls`).
func trustStore(_ pki: FixturePKI, crls: [[UInt8]] = [], documentSigners: [[UInt8]] = []) throws -> TrustStore {
    var store = TrustStore()
    store.addAnchor(try Certificate(derEncoded: pki.csca), source: "fixture")
    for crl in crls { store.addCRL(try CertificateRevocationList(derEncoded: crl)) }
    for dsc in documentSigners { store.addDocumentSigner(try Certificate(derEncoded: dsc)) }
    return store
}

/// Passive authentication of `document` signed by `pki`, against `pki`'s CSCA, under `profile`.
func verify(
    _ document: FixtureDocument = FixtureDocument(), pki: FixturePKI, crls: [[UInt8]] = [],
    profile: VerificationProfile = .strict, _ modify: (inout TestSignedData) -> Void = { _ in }
) throws -> PassiveAuthenticationReport {
    let files = try document.files(pki: pki, modify)
    var store = try trustStore(pki, crls: crls)
    store.verificationProfile = profile
    return PassiveAuthentication.verify(files: files, trustStore: store)
}

/// One shared EC P-256 fixture PKI.
enum Shared {
    static let pki: FixturePKI = try! FixturePKI.make(.ecP256)
    static let otherPKI: FixturePKI = try! FixturePKI.make(.ecP256, country: "UU", cscaCommonName: "Other CSCA", keySet: 1)
}
