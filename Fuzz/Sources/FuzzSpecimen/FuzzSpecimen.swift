public import FuzzSupport
public import MRTDCore
public import MRTDCrypto
public import MRTDProtocol
public import MRTDTesting
public import MRTDVerification
import MRTDSimulation

/// The specimen the signature oracles know (signed by the TEST-ONLY document signer of certs/test)
/// and the one check they share: `valid` only for what that signer signed.
public enum FuzzSpecimen {
    /// The specimen's MRZ key.
    public static let key = try! MRZKey(documentNumber: "L898902C3", dateOfBirth: "740812", dateOfExpiry: "120415")
    public static let document = try! SpecimenDocument.make()
    /// The signed content of the specimen's SOD (deterministic: the data groups are).
    public static let securityObject = try! LDSSecurityObject(
        version: 0, hashAlgorithmOID: DigestAlgorithm.sha256.oid,
        dataGroupHashes: [1: DigestAlgorithm.sha256.hash(document.files[.dg(1)]!),
                          2: DigestAlgorithm.sha256.hash(document.files[.dg(2)]!)]).derEncoded()
    /// A trust store holding only the TEST-ONLY CSCA.
    public static let trustStore: TrustStore = {
        var store = TrustStore()
        _ = store.addAnchor(try! TestPKI.csca(), source: "test", isTestMaterial: true)
        return store
    }()

    /// The oracle of a whole read: reported `valid`, its EF.SOD carries the specimen's signed
    /// LDSSecurityObject and DG1 and DG2 (when read) are the signed ones.
    public static func checkValidOnlyWhenSigned(_ read: DocumentReader.Read) {
        guard read.result.status == .valid else { return }
        fuzzCheck(fuzzContains(read.files[.sod] ?? [], securityObject),
                  "valid with an SOD whose LDSSecurityObject the test document signer did not sign")
        fuzzCheck(read.files[.dg(1)] == document.files[.dg(1)], "valid with a DG1 that is not the signed one")
        fuzzCheck(read.files[.dg(2)] == nil || read.files[.dg(2)] == document.files[.dg(2)],
                  "valid with a DG2 that is not the signed one")
    }
}
