import MRTDCrypto

/// Zeroes request bytes that carried an access key.
func secureWipeBytes(_ bytes: inout [UInt8]) {
    secureWipe(&bytes)
}
