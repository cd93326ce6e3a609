import MRTDCore
import MRTDCrypto
public import MRTDVerification
public import MRTDProtocol

extension EACTestSet {
    /// The CVCA link certificate that introduces this set's CVCA key to chips trusting `previous`'s
    /// CVCA (TR-03110-3 §2.5): holder this CVCA, authority the previous one, signed with its key, with
    /// the domain parameters (a CVCA certificate's key carries them, TR-03110-3 §D.3).
    public func linkCertificate(from previous: EACTestSet, effective: CVDate = .init(year: 2020, month: 1, day: 1),
                                expiration: CVDate = .init(year: 2045, month: 1, day: 1)) throws -> CVCertificate {
        try CVCertificateBuilder(
            authorityReference: previous.cvca.holderReference, holderReference: cvca.holderReference,
            algorithmOID: algorithmOID, holderKey: cvcaKey, includeDomainParameters: true,
            accessRights: Self.cvcaRole | 0x03, effectiveDate: effective, expirationDate: expiration
        ).build(issuerKey: previous.cvcaKey, issuerAlgorithmOID: previous.algorithmOID)
    }

    /// This set's terminal credentials with CVCA link certificates in front (oldest first), as a
    /// terminal directory holds them after CVCA key rollovers.
    public func credentials(links: [CVCertificate]) -> TerminalCredentials {
        TerminalCredentials(
            certificates: links + [cvca, dv, inspectionSystem],
            terminals: [.init(certificate: inspectionSystem, key: FileTerminalKey(key: isKey))])
    }
}
