import Foundation
import MRTDCrypto
public import MRTDSimulation
import MRTDVerification

extension EACTestSet {
    /// The TEST-ONLY set of `certs/test-eac` (made by `scripts/make-test-fixtures`, embedded in
    /// `EACTestAssets.swift`): what `mrtdd --simulate`'s passport trusts.
    public static func fixture() throws -> EACTestSet {
        func certificate(_ base64: String) throws -> CVCertificate {
            try CVCertificate(rawBytes: [UInt8](Data(base64Encoded: base64) ?? Data()))
        }
        let cvca = try SimulationTrust.eacCVCA()
        return EACTestSet(
            cvcaKey: try PrivateKey(pem: EACTestAssets.cvcaPrivateKeyPEM), dvKey: try PrivateKey(pem: EACTestAssets.dvPrivateKeyPEM),
            isKey: try PrivateKey(pem: EACTestAssets.isPrivateKeyPEM), cvca: cvca,
            dv: try certificate(EACTestAssets.dvCertificateBase64),
            inspectionSystem: try certificate(EACTestAssets.isCertificateBase64), algorithmOID: cvca.publicKey.algorithmOID)
    }
}
