public import MRTDCrypto
public import MRTDVerification
import MRTDSimulation

/// The TEST-ONLY CSCA and document signer behind the specimen passport (`certs/test/`).
///
/// Their private keys are published with the source: a document that chains to this CSCA proves
/// nothing. Production code must never put ``cscaCertificatePEM`` into a trust store unless the
/// operator explicitly asked for the test trust store (`--trust certs/test`).
public enum TestPKI {
    /// `certs/test/csca.pem`: `C=UT, O=mrtdd TEST ONLY, CN=mrtdd Test CSCA`, ECDSA P-256.
    public static var cscaCertificatePEM: String { SimulationTrust.cscaCertificatePEM }
    /// `certs/test/dsc.pem`: `C=UT, O=mrtdd TEST ONLY, CN=mrtdd Test DSC`, issued by the test CSCA.
    public static var dscCertificatePEM: String { TestPKIAssets.dscCertificatePEM }
    /// `certs/test/dsc.key.pem`: the test DSC's private key (PKCS#8 PEM).
    public static var dscPrivateKeyPEM: String { TestPKIAssets.dscPrivateKeyPEM }

    /// The test CSCA certificate.
    public static func csca() throws -> Certificate {
        try single(Certificate.parsePEM(cscaCertificatePEM), name: "csca.pem")
    }

    /// The test document signer certificate.
    public static func dsc() throws -> Certificate {
        try single(Certificate.parsePEM(dscCertificatePEM), name: "dsc.pem")
    }

    /// The test document signer's private key.
    public static func dscKey() throws -> PrivateKey {
        try PrivateKey(pem: dscPrivateKeyPEM)
    }

    private static func single(_ certificates: [Certificate], name: String) throws -> Certificate {
        guard certificates.count == 1, let certificate = certificates.first else {
            throw SpecimenDocumentError.badEmbeddedAsset(name)
        }
        return certificate
    }
}
