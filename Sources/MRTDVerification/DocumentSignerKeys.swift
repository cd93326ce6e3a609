import MRTDCrypto
import Synchronization

/// Signer keys (document signers, master-list and deviation-list signers) decoded once and kept,
/// by SubjectPublicKeyInfo, the most recently used `capacity` of them.
///
/// Why: OpenSSL 3.0 decodes a SubjectPublicKeyInfo (`d2i_PUBKEY`) by building a decoder context
/// over every provider's decoders, each time: about 1,000 small allocations and 0.27-0.46 ms for one
/// RSA or EC key (more with the explicit domain parameters Doc 9303-12 §7.1.2 asks of DSC keys),
/// as much as the signature verification it serves. A document signer signs an issuer's documents
/// for months, so a kiosk meets the same few DSCs again and again; CSCA keys are kept by their
/// trust anchors already (`TrustStore.Anchor`). Keys are public and never mutated after decoding
/// (`PublicKey` may be shared between threads); nothing of a document's holder is kept here.
final class DocumentSignerKeys: Sendable {
    /// The process's: 32 keys, a few KB each at most.
    static let shared = DocumentSignerKeys(capacity: 32)

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
