internal import CLibCrypto

/// The operating system's generator through OpenSSL `RAND_bytes`, for what the chip draws outside
/// its configured random source (CA v2 nonces, its static keys).
public enum ChipRandom {
    public static func bytes(_ count: Int) throws -> [UInt8] {
        var output = [UInt8](repeating: 0, count: count)
        guard count == 0 || RAND_bytes(&output, Int32(count)) == 1 else { throw ChipCryptoError.openSSL("RAND_bytes") }
        return output
    }
}
