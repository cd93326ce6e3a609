/// Why a chip-side cryptographic operation failed. The virtual chip turns every one of these into a
/// status word (6300, 6A80, 6988, 6F00); none reaches a user.
public enum ChipCryptoError: Error, Sendable, Equatable {
    /// An OpenSSL call failed; the name of the call.
    case openSSL(String)
    /// The input is not acceptable (a key of the wrong length, a point off the curve, bad padding).
    case invalidInput(String)
    /// The chip does not implement this (a curve OpenSSL does not know, IM on a curve with p ≢ 3 mod 4).
    case unsupported(String)
}
