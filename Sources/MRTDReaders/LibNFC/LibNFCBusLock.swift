import FoundationEssentials
import Glibc

/// One lock for the whole process around libnfc's device enumeration.
///
/// libnfc's USB drivers go through libusb-0.1, whose bus and device lists are global: listing or
/// opening devices (`nfc_list_devices`, `nfc_open`, `nfc_close`) rebuilds them while other threads
/// may be talking to an open reader. Calls on an open device take the lock shared; enumeration
/// takes it exclusively, so it waits for those calls and they wait for it (milliseconds).
// Invariant: the rwlock is initialised once and never freed (a process-wide singleton); a Mutex has no shared mode.
final class LibNFCBusLock: @unchecked Sendable {
    static let shared = LibNFCBusLock()

    private let lock: UnsafeMutablePointer<pthread_rwlock_t>

    private init() {
        lock = .allocate(capacity: 1)
        pthread_rwlock_init(lock, nil)
    }

    /// A call on an open device (shared).
    func device<T>(_ body: () -> T) -> T {
        pthread_rwlock_rdlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body()
    }

    /// Listing, opening or closing devices (exclusive).
    func enumeration<T>(_ body: () -> T) -> T {
        pthread_rwlock_wrlock(lock)
        defer { pthread_rwlock_unlock(lock) }
        return body()
    }
}
