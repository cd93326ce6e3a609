import MRTDCrypto

/// Zeroes bytes that carried an access key (a request body) or an image (a converted face).
func secureWipeBytes(_ bytes: inout [UInt8]) {
    secureWipe(&bytes)
}
