public import SwiftASN1
internal import CLibCrypto

/// The hash functions of LDS security objects and key derivation (Doc 9303-10 §4.6.2.2, Doc 9303-11 §9.7.1).
public enum DigestAlgorithm: String, Sendable, Codable, CaseIterable {
    case sha1 = "SHA-1"
    case sha224 = "SHA-224"
    case sha256 = "SHA-256"
    case sha384 = "SHA-384"
    case sha512 = "SHA-512"

    /// The digest length in bytes.
    public var outputLength: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The object identifier (OIW for SHA-1, NIST `hashAlgs` for SHA-2).
    public var oid: ASN1ObjectIdentifier {
        switch self {
        case .sha1: [1, 3, 14, 3, 2, 26]
        case .sha224: [2, 16, 840, 1, 101, 3, 4, 2, 4]
        case .sha256: [2, 16, 840, 1, 101, 3, 4, 2, 1]
        case .sha384: [2, 16, 840, 1, 101, 3, 4, 2, 2]
        case .sha512: [2, 16, 840, 1, 101, 3, 4, 2, 3]
        }
    }

    /// The algorithm with the given OID, or `nil`.
    public init?(oid: ASN1ObjectIdentifier) {
        guard let match = DigestAlgorithm.allCases.first(where: { $0.oid == oid }) else { return nil }
        self = match
    }

    /// Hashes `data` in one shot (`EVP_Digest`); contiguous input is hashed in place, without a copy.
    public func hash(_ data: some Collection<UInt8>) -> [UInt8] {
        if let digest = data.withContiguousStorageIfAvailable({ hash(buffer: UnsafeRawBufferPointer($0)) }) {
            return digest
        }
        return Array(data).withUnsafeBytes { hash(buffer: $0) }
    }

    private func hash(buffer: UnsafeRawBufferPointer) -> [UInt8] {
        let md = FetchedAlgorithms.shared.digest(self)
        var output = [UInt8](repeating: 0, count: outputLength)
        var length: UInt32 = 0
        let status = output.withUnsafeMutableBufferPointer { out in
            // EVP_Digest wants a non-null pointer even for empty input.
            EVP_Digest(buffer.baseAddress ?? UnsafeRawPointer(out.baseAddress!), buffer.count, out.baseAddress, &length, md, nil)
        }
        // A fetched digest over memory fails only on allocation failure.
        precondition(status == 1 && Int(length) == outputLength, "EVP_Digest failed for \(rawValue)")
        return output
    }
}
