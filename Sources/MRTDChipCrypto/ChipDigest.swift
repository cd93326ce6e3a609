internal import CLibCrypto

/// The hashes of the chip's signatures (Active Authentication, Terminal Authentication checks).
public enum ChipDigest: String, Sendable, Hashable, CaseIterable {
    case sha1 = "SHA-1", sha224 = "SHA-224", sha256 = "SHA-256", sha384 = "SHA-384", sha512 = "SHA-512"

    /// The hash of `data`.
    public func hash(_ data: [UInt8]) throws(ChipCryptoError) -> [UInt8] { try ChipOpenSSL.digest(md, data) }

    /// The output length in bytes.
    public var length: Int {
        switch self {
        case .sha1: 20
        case .sha224: 28
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// ISO/IEC 10118-3 hash identifier (the first trailer byte of ISO/IEC 9796-2's `xx CC`).
    var identifier: UInt8 {
        switch self {
        case .sha1: 0x33
        case .sha256: 0x34
        case .sha512: 0x35
        case .sha384: 0x36
        case .sha224: 0x38
        }
    }

    /// The DER DigestInfo before the hash in an EMSA-PKCS1-v1_5 encoding (RFC 8017 §9.2 note 1).
    var digestInfoPrefix: [UInt8] {
        switch self {
        case .sha1: [0x30, 0x21, 0x30, 0x09, 0x06, 0x05, 0x2B, 0x0E, 0x03, 0x02, 0x1A, 0x05, 0x00, 0x04, 0x14]
        case .sha224: [0x30, 0x2D, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x04, 0x05, 0x00, 0x04, 0x1C]
        case .sha256: [0x30, 0x31, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01, 0x05, 0x00, 0x04, 0x20]
        case .sha384: [0x30, 0x41, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02, 0x05, 0x00, 0x04, 0x30]
        case .sha512: [0x30, 0x51, 0x30, 0x0D, 0x06, 0x09, 0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x03, 0x05, 0x00, 0x04, 0x40]
        }
    }

    private var md: OpaquePointer? {
        switch self {
        case .sha1: EVP_sha1()
        case .sha224: EVP_sha224()
        case .sha256: EVP_sha256()
        case .sha384: EVP_sha384()
        case .sha512: EVP_sha512()
        }
    }
}
