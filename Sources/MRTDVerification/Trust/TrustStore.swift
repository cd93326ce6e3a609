import FoundationEssentials
import MRTDCore
import MRTDCrypto
import Synchronization

/// The CSCA certificates, document signer certificates and CRLs passive authentication trusts
/// (Doc 9303-12 §5–§7), indexed by key identifier and by subject for constant-time lookup.
///
/// Build it with ``load(paths:)`` from `certs/`-style directories (`csca/`, `masterlists/`,
/// `crls/`), single files (PEM or DER certificates, CSCA master lists, CRLs, ICAO PKD LDIF) or
/// add material directly. Immutable once built; share it between reads.
public struct TrustStore: Sendable, Equatable {
    /// One trusted CSCA (self-signed root or link certificate) and where it came from.
    public struct Anchor: Sendable {
        public let certificate: Certificate
        /// The file (and master list) it was loaded from.
        public let source: String
        /// TEST-ONLY material (`certs/test`, or a subject naming itself TEST ONLY).
        public let isTestMaterial: Bool
        let keyCache = PublicKeyCache()

        /// The CSCA's public key, decoded on first use and kept (explicit EC parameters make
        /// decoding cost as much as a verification).
        func publicKey() throws -> PublicKey {
            try keyCache.key { try certificate.publicKey() }
        }
    }

    /// Trusted CSCAs and link certificates.
    public private(set) var anchors: [Anchor] = []
    /// Document signer certificates supplied by the operator (for SODs that omit the DSC).
    public private(set) var documentSigners: [Certificate] = []
    /// Loaded CRLs.
    public private(set) var crls: [CertificateRevocationList] = []
    /// What was loaded and rejected, and why.
    public internal(set) var report = TrustStoreReport()
    /// How literally passive authentication against this store reads the specifications
    /// (``VerificationProfile``): `strict` unless the operator asks to tolerate the SOD deviations of issued documents.
    public var verificationProfile: VerificationProfile = .strict
    /// Verified deviation lists (Doc 9303-12 §10), see ``addDeviationList(_:path:at:)``.
    public internal(set) var deviationLists: [DeviationList] = []
    /// The keys of the signers this store's checks met (document signers, master-list and
    /// deviation-list signers), decoded once: shared by the copies of this store, gone with it.
    let signerKeys = SignerKeyCache(capacity: 32)

    private var anchorsByKeyID: [BytesKey: [Int]] = [:]
    private var anchorsBySubject: [String: [Int]] = [:]
    private var anchorIndexByDER: [BytesKey: Int] = [:]
    private var crlsByIssuer: [String: [Int]] = [:]
    /// Where each of `crls` came from (same order).
    private(set) var crlSources: [String] = []

    /// An empty store: every verification against it ends in `cscaNotFound`.
    public init() {}

    /// Equal when they trust the same CSCAs and document signers and hold the same CRLs.
    public static func == (lhs: TrustStore, rhs: TrustStore) -> Bool {
        lhs.anchors.map(\.certificate) == rhs.anchors.map(\.certificate) && lhs.documentSigners == rhs.documentSigners
            && lhs.crls.map(\.derBytes) == rhs.crls.map(\.derBytes)
    }

    /// Whether the store holds any CSCA.
    public var isEmpty: Bool { anchors.isEmpty }

    /// Adds a CSCA or link certificate as a trust anchor. Returns `false` for a duplicate.
    @discardableResult
    public mutating func addAnchor(_ certificate: Certificate, source: String, isTestMaterial: Bool = false) -> Bool {
        let key = BytesKey(certificate.derBytes)
        guard anchorIndexByDER[key] == nil else { return false }
        let index = anchors.count
        let test = isTestMaterial || (certificate.subject.country == "UT" && certificate.subject.matchKey.contains("test only"))
        anchors.append(Anchor(certificate: certificate, source: source, isTestMaterial: test))
        anchorIndexByDER[key] = index
        if let ski = certificate.subjectKeyIdentifier { anchorsByKeyID[BytesKey(ski), default: []].append(index) }
        anchorsBySubject[certificate.subject.matchKey, default: []].append(index)
        return true
    }

    /// Adds a document signer certificate (used when an SOD does not embed its DSC).
    public mutating func addDocumentSigner(_ certificate: Certificate) {
        if !documentSigners.contains(certificate) { documentSigners.append(certificate) }
    }

    /// Adds a CRL; its signature is checked against the CSCA when it is used.
    public mutating func addCRL(_ crl: CertificateRevocationList) {
        addCRL(crl, source: "added")
    }

    mutating func addCRL(_ crl: CertificateRevocationList, source: String) {
        crlsByIssuer[crl.issuer.matchKey, default: []].append(crls.count)
        crls.append(crl)
        crlSources.append(source)
    }

    /// Keeps only the CRLs at the indices `keep` (those whose signature verified at load).
    mutating func retainCRLs(at keep: [Int]) {
        let kept = keep.map { (crls[$0], crlSources[$0]) }
        crls = []
        crlSources = []
        crlsByIssuer = [:]
        for (crl, source) in kept { addCRL(crl, source: source) }
    }

    /// The anchors whose subject is `name` (CRL issuers).
    func anchors(named name: DistinguishedName) -> [Anchor] {
        (anchorsBySubject[name.matchKey] ?? []).map { anchors[$0] }
    }

    /// The anchors that may have issued `certificate`: those whose subject is its issuer, narrowed
    /// by authority key identifier when that matches some; self-signed roots first.
    func candidateIssuers(of certificate: Certificate) -> [Anchor] {
        // Doc 9303-12 §7.1.1.1 / TR-03105 LDS_H_54: the issuer name must be the CSCA's subject;
        // the key identifier narrows the choice among CSCAs of one name (key rollover).
        var indices = anchorsBySubject[certificate.issuer.matchKey] ?? []
        if let aki = certificate.authorityKeyIdentifier, indices.count > 1 {
            let byKey = indices.filter { anchors[$0].certificate.subjectKeyIdentifier == aki }
            if !byKey.isEmpty { indices = byKey }
        }
        return indices.map { anchors[$0] }.sorted { a, _ in a.certificate.isSelfSigned }
    }

    /// Anchors whose subject key identifier is `keyIdentifier` (for diagnostics).
    func anchors(withKeyIdentifier keyIdentifier: [UInt8]) -> [Anchor] {
        (anchorsByKeyID[BytesKey(keyIdentifier)] ?? []).map { anchors[$0] }
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

/// A lazily decoded public key shared by the copies of one ``TrustStore/Anchor``.
final class PublicKeyCache: Sendable {
    private let cached = Mutex<PublicKey?>(nil)

    func key(_ decode: () throws -> PublicKey) throws -> PublicKey {
        try cached.withLock { cached in
            if let cached { return cached }
            let key = try decode()
            cached = key
            return key
        }
    }
}

/// Signer keys decoded once and kept, by SubjectPublicKeyInfo, the most recently used `capacity` of
/// them; a ``TrustStore`` owns one.
///
/// Why: a document signer signs an issuer's documents for months, so a kiosk meets the same few DSCs
/// again and again, and a DSC key usually has the explicit domain parameters Doc 9303-12 §7.1.2 asks
/// for, which OpenSSL 3.0 decodes slowly (`d2i_PUBKEY`: about 1,000 small allocations and 0.46 ms,
/// as much as the verification it serves). CSCA keys are kept by their anchors (``PublicKeyCache``).
/// Keys are public and never mutated after decoding (`PublicKey` may be shared between threads);
/// nothing of a document's holder is kept here.
final class SignerKeyCache: Sendable {
    let capacity: Int
    /// Least recently used first.
    private let entries = Mutex<[(spki: [UInt8], key: PublicKey)]>([])

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// The key of `certificate`, decoded now or kept from an earlier call with the same
    /// SubjectPublicKeyInfo. A key that does not decode is not kept (the error is thrown each time).
    func key(of certificate: Certificate) throws -> PublicKey {
        let spki = Array(certificate.subjectPublicKeyInfo)
        if let kept = entries.withLock({ entries -> PublicKey? in
            guard let index = entries.firstIndex(where: { $0.spki == spki }) else { return nil }
            let entry = entries.remove(at: index)
            entries.append(entry)
            return entry.key
        }) {
            return kept
        }
        // Decoded outside the lock: two threads missing at once both decode, and one entry stays.
        let key = try certificate.publicKey()
        entries.withLock { entries in
            guard !entries.contains(where: { $0.spki == spki }) else { return }
            if entries.count >= capacity { entries.removeFirst(entries.count - capacity + 1) }
            entries.append((spki, key))
        }
        return key
    }

    /// How many keys are kept (tests).
    var count: Int { entries.withLock { $0.count } }

    /// Whether a key with this SubjectPublicKeyInfo is kept (tests).
    func holds(_ certificate: Certificate) -> Bool {
        let spki = Array(certificate.subjectPublicKeyInfo)
        return entries.withLock { $0.contains { $0.spki == spki } }
    }
}

/// A byte string as a dictionary key, hashed in one call rather than byte by byte (certificate
/// DER is ~1.5 KB; a master list has hundreds).
struct BytesKey: Hashable, Sendable {
    let bytes: [UInt8]

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    func hash(into hasher: inout Hasher) {
        bytes.withUnsafeBytes { hasher.combine(bytes: $0) }
    }
}
