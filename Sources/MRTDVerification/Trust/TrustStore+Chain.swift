import FoundationEssentials
import MRTDCrypto

/// The outcome of a certificate path check from a signer (DSC or master list signer) to a CSCA.
struct ChainVerification: Sendable {
    var anchor: TrustStore.Anchor
    var warnings: [String]
}

extension TrustStore {
    /// What the signer signs: documents (keyUsage digitalSignature required, Doc 9303-12 §7.1.1)
    /// or a master list.
    enum SignerRole {
        case documentSigner
        case masterListSigner
    }

    /// Doc 9303-11 §5.1.1 step 3 / Doc 9303-12 §7: checks the signer certificate, finds the CSCA
    /// that signed it, verifies that signature, checks CRLs and reports validity.
    ///
    /// Expiry policy: a DSC or CSCA expired at `date` is a warning (`dscExpired`, `cscaExpired`),
    /// not a failure — documents outlive their signer's private key usage period. A DSC not yet
    /// valid at `date`, or a signingTime outside the DSC's validity, is a failure.
    func verifyChain(
        of signer: Certificate, role: SignerRole, at date: Date, signingTime: Date? = nil,
        extraAnchors: [Certificate] = []
    ) throws(PAFailure) -> ChainVerification {
        var warnings: [String] = []
        // RFC 5280 §4.1.1.2: the outer signatureAlgorithm must equal the TBS `signature` field.
        guard signer.signatureAlgorithm == signer.innerSignatureAlgorithm else {
            throw PAFailure(.dscInvalid, "certificate signatureAlgorithm differs from its TBSCertificate signature field")
        }
        guard !signer.hasNonConformingTime else {
            throw PAFailure(.dscInvalid, "validity in GeneralizedTime before 2050 (RFC 5280 §4.1.2.5)")
        }
        if role == .documentSigner {
            // Doc 9303-12 §7.1.1 (Table 6) makes these fields of a DSC mandatory; TR-03105-5.1 fails a
            // DSC without them (LDS_H_48/49, 53, 60/61, 62). Issued passports are not all so careful:
            // the `strict` profile fails them as the plan does, the standard one verifies and warns
            // (`dscNonConforming: ...`), like the other deviations of issued documents it tolerates.
            var nonConforming: [(PassiveAuthenticationReason, String)] = []
            if signer.version != 2 {
                nonConforming.append((.dscInvalid, "certificate version \(signer.version.map { "value \($0)" } ?? "absent (v1)"), expected v3"))
            }
            if signer.issuer.country == nil || signer.subject.country == nil {
                nonConforming.append((.dscInvalid, "issuer or subject name without countryName"))
            }
            if signer.authorityKeyIdentifier == nil {
                nonConforming.append((.dscInvalid, signer.hasAuthorityKeyIdentifierExtension
                    ? "authorityKeyIdentifier without keyIdentifier" : "authorityKeyIdentifier extension missing"))
            }
            guard signer.keyUsage != nil else { throw PAFailure(.dscKeyUsageInvalid, "keyUsage extension missing") }
            guard signer.allowsDigitalSignature else {
                throw PAFailure(.dscKeyUsageInvalid, "keyUsage lacks digitalSignature")
            }
            if !signer.keyUsageCritical { nonConforming.append((.dscKeyUsageInvalid, "keyUsage not marked critical")) }
            if let (reason, detail) = nonConforming.first, verificationProfile == .strict {
                throw PAFailure(reason, detail + " (strict profile)")
            }
            warnings += nonConforming.map { "dscNonConforming: \($0.1)" }
        }
        do {
            _ = try signer.signatureAlgorithm.signatureScheme(defaultDigest: nil)
        } catch {
            throw PAFailure(.signatureAlgorithmNotAllowed, "certificate signatureAlgorithm: \(error)")
        }
        guard !signer.signatureValue.isEmpty else { throw PAFailure(.dscSignatureInvalid, "certificate signature is empty") }

        var candidates = candidateIssuers(of: signer)
        var extra: TrustStore?
        if !extraAnchors.isEmpty {
            var store = TrustStore()
            for certificate in extraAnchors { store.addAnchor(certificate, source: "signed message") }
            candidates += store.candidateIssuers(of: signer)
            extra = store
        }
        guard !candidates.isEmpty else {
            if let aki = signer.authorityKeyIdentifier, !anchors(withKeyIdentifier: aki).isEmpty {
                throw PAFailure(.cscaNotFound, "a CSCA has the authority key identifier, but not the issuer name \(signer.issuer)")
            }
            throw PAFailure(.cscaNotFound, "no CSCA for issuer \(signer.issuer)")
        }
        var anchor: Anchor?
        for candidate in candidates {
            guard let key = try? candidate.publicKey() else { continue }
            if (try? signer.isSigned(by: key)) == true {
                anchor = candidate
                break
            }
        }
        guard let anchor else {
            throw PAFailure(.dscSignatureInvalid, "certificate signature does not verify with any of \(candidates.count) matching CSCA keys")
        }
        // Found by the issuer name and the verified signature while the signer's authority key
        // identifier names another key (zkpassport#153: try every CSCA of the name): reported.
        if let aki = signer.authorityKeyIdentifier, let ski = anchor.certificate.subjectKeyIdentifier, aki != ski {
            warnings.append("cscaKeyIdentifierMismatch")
        }

        // Revocation (Doc 9303-12 §7.1.4): CRLs by the CSCA's name, trusted only if the CSCA signed them.
        let crls = self.crls(issuedBy: anchor.certificate) + (extra?.crls(issuedBy: anchor.certificate) ?? [])
        if crls.isEmpty {
            warnings.append("revocationNotChecked")
        } else if let key = try? anchor.publicKey() {
            // Several CRLs of one CSCA (a store refreshed by adding files): the newest one whose
            // signature verifies wins (RFC 5280 §6.3.3: the most recent complete CRL).
            if let crl = Self.newestValidCRL(crls, key: key) {
                if crl.isRevoked(serialNumber: signer.serialNumber) {
                    throw PAFailure(.dscRevoked, "serial \(signer.serialNumberHex) is on the CRL of \(anchor.certificate.subject)")
                }
                if let next = crl.nextUpdate, next < date { warnings.append("crlOutdated") }
            } else {
                warnings.append("revocationNotChecked")
            }
        }

        if let signingTime, !signer.isValid(at: signingTime) {
            throw PAFailure(.dscNotValidAtSigning, "signingTime outside the certificate's validity")
        }
        if date < signer.notBefore {
            throw PAFailure(.dscNotValidAtSigning, "certificate not yet valid")
        }
        if date > signer.notAfter { warnings.append(role == .documentSigner ? "dscExpired" : "masterListSignerExpired") }
        if date > anchor.certificate.notAfter { warnings.append("cscaExpired") }
        if !anchor.certificate.isValid(at: signer.notBefore) { warnings.append("dscIssuedOutsideCscaValidity") }
        if !anchor.certificate.isSelfSigned { warnings.append(contentsOf: followLink(anchor.certificate)) }
        if anchor.isTestMaterial { warnings.append("testTrustAnchor") }
        return ChainVerification(anchor: anchor, warnings: warnings)
    }

    /// The CRL with the latest thisUpdate among those `key` signed (ties: the one listing more serials).
    static func newestValidCRL(_ crls: [CertificateRevocationList], key: PublicKey) -> CertificateRevocationList? {
        crls.filter { $0.isSigned(by: key) }.max { a, b in
            a.thisUpdate != b.thisUpdate ? a.thisUpdate < b.thisUpdate : a.revokedCount < b.revokedCount
        }
    }

    /// A link certificate (new CSCA key signed by the old one, Doc 9303-12 §5.5.2) is trusted as
    /// loaded; this follows it to the CSCA that signed it and says when that fails.
    private func followLink(_ link: Certificate) -> [String] {
        for candidate in candidateIssuers(of: link) where candidate.certificate != link {
            if let key = try? candidate.publicKey(), (try? link.isSigned(by: key)) == true {
                return ["cscaIsLinkCertificate"]
            }
        }
        return ["cscaIsLinkCertificate", "linkCertificateIssuerNotFound"]
    }
}
