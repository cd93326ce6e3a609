internal import CLibCrypto

/// Algorithm implementations fetched once from the default provider and kept for the life of the
/// process, so hot paths (digests, CMAC) skip OpenSSL 3's implicit fetch on every call.
/// Fetched `EVP_MD` / `EVP_MAC` objects are immutable and safe to share between threads.
// Invariant: fetched once in init, read-only afterwards (OpenSSL fetched objects are thread-safe).
final class FetchedAlgorithms: @unchecked Sendable {
    static let shared = FetchedAlgorithms()

    let sha1: OpaquePointer
    let sha224: OpaquePointer
    let sha256: OpaquePointer
    let sha384: OpaquePointer
    let sha512: OpaquePointer
    let cmac: OpaquePointer

    private init() {
        func digest(_ name: String) -> OpaquePointer {
            guard let md = EVP_MD_fetch(nil, name, nil) else { fatalError("OpenSSL default provider lacks \(name)") }
            return md
        }
        sha1 = digest("SHA1")
        sha224 = digest("SHA224")
        sha256 = digest("SHA256")
        sha384 = digest("SHA384")
        sha512 = digest("SHA512")
        guard let mac = EVP_MAC_fetch(nil, "CMAC", nil) else { fatalError("OpenSSL default provider lacks CMAC") }
        cmac = mac
    }

    func digest(_ algorithm: DigestAlgorithm) -> OpaquePointer {
        switch algorithm {
        case .sha1: sha1
        case .sha224: sha224
        case .sha256: sha256
        case .sha384: sha384
        case .sha512: sha512
        }
    }
}
