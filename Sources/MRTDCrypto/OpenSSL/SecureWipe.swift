internal import CLibCrypto

/// Overwrites `bytes` with zeros through `OPENSSL_cleanse` (which the optimiser may not remove);
/// the count is kept. Used to wipe session keys when a session ends.
///
/// Only this array's buffer is wiped: copies made earlier (Swift arrays are copy-on-write) are not.
public func secureWipe(_ bytes: inout [UInt8]) {
    bytes.withUnsafeMutableBytes { buffer in
        guard let base = buffer.baseAddress else { return }
        OPENSSL_cleanse(base, buffer.count)
    }
}

/// Overwrites the memory of `buffer` with zeros through `OPENSSL_cleanse`.
public func secureWipe(_ buffer: UnsafeMutableRawBufferPointer) {
    guard let base = buffer.baseAddress else { return }
    OPENSSL_cleanse(base, buffer.count)
}
