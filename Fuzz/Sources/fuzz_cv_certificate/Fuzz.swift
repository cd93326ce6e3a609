import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol
import MRTDTesting
import MRTDVerification
import MRTDSimulation

/// CV certificates (BSI TR-03110-3 §C) and EF.CVCA: any input either parses or throws
/// `CVCertificateError`; a parsed certificate keeps its bytes, its body and signature objects are
/// parts of them, dates are ordered, and building its key for OpenSSL (with the TEST-ONLY CVCA's
/// domain parameters) and checking its signature return a verdict, never trap. The same bytes as
/// EF.CVCA give trust points or an error.
@main enum FuzzCVCertificate {
    static func main() {
        if FuzzSeeds.writeIfAsked({
            let set = try EACTestSet.fixture()
            return ["cvca": set.cvca.rawBytes, "dv": set.dv.rawBytes, "is": set.inspectionSystem.rawBytes,
                    "efcvca": TerminalAuthentication.efCVCA(trustPoints: [set.cvca.holderReference])]
        }) { return }
        FuzzDriver.run(test)
    }

    static let cvca = try! EACTestSet.fixture().cvca

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let bytes = input.rest()
        _ = try? TerminalAuthentication.trustPoints(efCVCA: bytes)
        do {
            let certificate = try CVCertificate(rawBytes: bytes)
            fuzzCheck(certificate.rawBytes == bytes, "rawBytes differ from the input")
            fuzzCheck(certificate.body.count + certificate.signatureObject.count < bytes.count, "body and signature exceed the certificate")
            fuzzCheck(certificate.effectiveDate <= certificate.expirationDate, "dates out of order")
            _ = try? certificate.publicKey.subjectPublicKeyInfo(domain: cvca.publicKey)
            _ = certificate.isSigned(by: cvca.publicKey, domain: cvca.publicKey)
            _ = certificate.isSigned(by: certificate.publicKey, domain: certificate.publicKey)
            _ = (certificate.role, certificate.grantsDG3, certificate.grantsDG4)
        } catch {
            fuzzCheck(error is CVCertificateError, "unexpected error type \(type(of: error))")
        }
        return 0
    }
}
