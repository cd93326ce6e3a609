import Foundation
import MRTDCore
import MRTDCrypto

/// The CSCA certificates, document signer certificates and CRLs passive authentication trusts
/// (Doc 9303-12 §5–§7), indexed by key identifier and by subject for constant-time lookup.
///
/// Build it with ``load(paths:)`` from `certs/`-style directories (`csca/`, `masterlists/`,
/// `crls/`), single files (PEM or DER certificates, CSCA master lists, CRLs, ICAO PKD LDIF) or
/// add material directly. Immutable once built; share it between reads.
public struct TrustStore: Sendable {
    /// One trusted CSCA (self-signed root or link certificate) and where it came from.
    public struct Anchor: Sendable {
        public let certificate: Certificate
        /// The file (and master list) it was loaded from.
        public let source: String
        /// TEST-ONLY material (`certs/test`, or a subject naming itself TEST ONLY).
        public let isTestMaterial: Bool
    }

    /// Trusted CSCAs and link certificates.
    public private(set) var anchors: [Anchor] = []
    /// Document signer certificates supplied by the operator (for SODs that omit the DSC).
    public private(set) var documentSigners: [Certificate] = []
    /// Loaded CRLs.
    public private(set) var crls: [CertificateRevocationList] = []
    /// What was loaded and rejected, and why.
    public internal(set) var report = TrustStoreReport()

    private var anchorsByKeyID: [[UInt8]: [Int]] = [:]
    private var anchorsBySubject: [String: [Int]] = [:]
    private var anchorIndexByDER: [[UInt8]: Int] = [:]
    private var crlsByIssuer: [String: [Int]] = [:]

    /// An empty store: every verification against it ends in `cscaNotFound`.
    public init() {}

    /// Whether the store holds any CSCA.
    public var isEmpty: Bool { anchors.isEmpty }

    /// Adds a CSCA or link certificate as a trust anchor. Returns `false` for a duplicate.
    @discardableResult
    public mutating func addAnchor(_ certificate: Certificate, source: String, isTestMaterial: Bool = false) -> Bool {
        guard anchorIndexByDER[certificate.derBytes] == nil else { return false }
        let index = anchors.count
        let test = isTestMaterial || certificate.subject.description.uppercased().contains("TEST ONLY")
        anchors.append(Anchor(certificate: certificate, source: source, isTestMaterial: test))
        anchorIndexByDER[certificate.derBytes] = index
        if let ski = certificate.subjectKeyIdentifier { anchorsByKeyID[ski, default: []].append(index) }
        anchorsBySubject[certificate.subject.matchKey, default: []].append(index)
        return true
    }

    /// Adds a document signer certificate (used when an SOD does not embed its DSC).
    public mutating func addDocumentSigner(_ certificate: Certificate) {
        if !documentSigners.contains(certificate) { documentSigners.append(certificate) }
    }

    /// Adds a CRL; its signature is checked against the CSCA when it is used.
    public mutating func addCRL(_ crl: CertificateRevocationList) {
        crlsByIssuer[crl.issuer.matchKey, default: []].append(crls.count)
        crls.append(crl)
    }

    /// The anchors that may have issued `certificate`: by authority key identifier when it has one
    /// (Doc 9303-12 §7.1.1.1), else by issuer name; self-signed roots first.
    func candidateIssuers(of certificate: Certificate) -> [Anchor] {
        var indices: [Int] = []
        if let aki = certificate.authorityKeyIdentifier { indices = anchorsByKeyID[aki] ?? [] }
        if indices.isEmpty { indices = anchorsBySubject[certificate.issuer.matchKey] ?? [] }
        return indices.map { anchors[$0] }.sorted { a, _ in a.certificate.isSelfSigned }
    }

    /// Document signers from the store matching a SignerInfo identifier.
    func documentSigners(matching sid: SignerInfo.Identifier) -> [Certificate] {
        documentSigners.filter { SignedDataVerifier.matches($0, sid) }
    }

    /// CRLs naming `issuer`.
    func crls(issuedBy issuer: Certificate) -> [CertificateRevocationList] {
        (crlsByIssuer[issuer.subject.matchKey] ?? []).map { crls[$0] }
    }
}

extension Certificate {
    /// Self-signed: the authority key identifier (when present) is the subject's own, and the names agree.
    var isSelfSigned: Bool {
        if let aki = authorityKeyIdentifier, let ski = subjectKeyIdentifier { return aki == ski }
        return isSelfIssued
    }
}
