internal import CLibCrypto

/// What can go wrong in `MRTDCrypto`. No case ever carries key material.
public enum CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    /// OpenSSL refused the operation; the text comes from the OpenSSL error queue.
    case openSSL(String)
    /// A key of a length the algorithm does not accept.
    case invalidKeyLength(Int)
    /// Input of a length the operation does not accept (not a multiple of the block size, etc.).
    case invalidDataLength(Int)
    /// ISO/IEC 9797-1 padding method 2 not found where it must be.
    case invalidPadding
    /// A scripted random source was asked for more bytes than it holds.
    case randomSourceExhausted
    /// An algorithm or parameter this library does not support.
    case unsupported(String)
    /// Malformed input other than a length error (bad IV size, bad OID, bad PEM...).
    case invalidInput(String)

    public var description: String {
        switch self {
        case .openSSL(let text): "OpenSSL error: \(text)"
        case .invalidKeyLength(let length): "invalid key length: \(length) bytes"
        case .invalidDataLength(let length): "invalid data length: \(length) bytes"
        case .invalidPadding: "invalid ISO/IEC 9797-1 method 2 padding"
        case .randomSourceExhausted: "random source exhausted"
        case .unsupported(let what): "unsupported: \(what)"
        case .invalidInput(let what): "invalid input: \(what)"
        }
    }
}

extension CryptoError {
    /// Drains the thread's OpenSSL error queue into one `.openSSL` error.
    ///
    /// `operation` names the failing call, so an empty queue still yields a useful message.
    static func openSSLQueue(_ operation: String) -> CryptoError {
        var messages: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            messages.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return .openSSL(messages.isEmpty ? operation : "\(operation): \(messages.joined(separator: "; "))")
    }

    /// Forgets errors left on the queue by an expected failure (for example the end of a PEM list).
    static func clearOpenSSLQueue() {
        ERR_clear_error()
    }
}
