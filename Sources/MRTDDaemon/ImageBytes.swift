import MRTDCrypto

/// The bytes of a face or another image that a finished job keeps until it is purged: held in one
/// allocation of its own, read in place, wiped when the last reference goes.
///
/// The image is personal data: its bytes must not linger in freed heap memory after the job is
/// gone. `init(taking:)` copies the image in and wipes the array it was given (the parser's copy);
/// the API writes the bytes straight into the response from here (`withUnsafeBytes`), so no other
/// copy is made.
// Invariant: `storage` is allocated and filled in init, only read until deinit wipes and frees it.
final class ImageBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer

    /// Takes `bytes` over: copies them and wipes the array's buffer in place (every array that shares
    /// it sees zeros from then on, so it must be a temporary of the caller's).
    init(taking bytes: [UInt8]) {
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { storage.baseAddress?.copyMemory(from: base, byteCount: source.count) }
        }
        wipeInPlace(bytes)
    }

    /// Copies `bytes` in, leaving the array as it is (a file the read still uses).
    init(copying bytes: [UInt8]) {
        storage = .allocate(byteCount: bytes.count, alignment: 1)
        bytes.withUnsafeBytes { source in
            if let base = source.baseAddress { storage.baseAddress?.copyMemory(from: base, byteCount: source.count) }
        }
    }

    /// The number of bytes.
    var count: Int { storage.count }

    /// Calls `body` with the bytes; the pointer is valid only inside it.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(storage))
    }

    deinit {
        secureWipe(storage)
        storage.deallocate()
    }
}

/// Wipes the buffer of `bytes` where it is, whoever else shares it (`secureWipe(_: inout)` would
/// copy a shared buffer first and wipe only the copy). For arrays nothing reads any more: the raw
/// data groups and the parsed images of a finished read.
func wipeInPlace(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { secureWipe(UnsafeMutableRawBufferPointer(mutating: $0)) }
}
