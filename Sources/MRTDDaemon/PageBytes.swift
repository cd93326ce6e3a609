import Glibc
import MRTDCore
import MRTDCrypto

/// Bytes a finished job keeps for minutes (the face and the other images, 20 KB and more each), in
/// pages of their own (an anonymous mmap) instead of the malloc heap.
///
/// Why (issue 14, flat memory): with the result store full, each read's images were allocated among
/// the read's short-lived allocations and freed minutes later, when a newer result pushed them out,
/// leaving holes the allocator kept partly resident: under steady load RssAnon sat 0.8-0.9 MB (at
/// most 1.4 MB) above the store just full; with the images in pages of their own, 0.2-0.3 MB (at
/// most 0.4 MB). Mapped on their own, the pages go back to the system when the job is purged, and
/// the bytes never linger in a freed heap chunk: they are wiped, then unmapped. The cost is the
/// rounding to whole pages (2 KB per image on average).
///
/// At most 16,384 are mapped at once (`Budget.shared`): each can be a mapping of its own, and the
/// kernel's `vm.max_map_count` (65,530 by default) is shared with thread stacks and the allocator.
/// Beyond that, or when mmap fails, the bytes stay in an ordinary array, wiped in deinit too.
final class PageBytes: @unchecked Sendable {
    /// How many mappings may be alive at once, and how many are.
    final class Budget: Sendable {
        let maximum: Int
        let live = Locked(0)
        init(maximum: Int) { self.maximum = maximum }

        func admit() -> Bool {
            live.withValue { live in
                guard live < maximum else { return false }
                live += 1
                return true
            }
        }

        func release() { live.withValue { $0 -= 1 } }

        /// The daemon's: 16,384 mappings.
        static let shared = Budget(maximum: 16_384)
    }

    // Set in init and only read until deinit wipes them: the mapped memory, or the array.
    private let base: UnsafeMutableRawPointer?
    private let mappedLength: Int
    private var fallback: [UInt8]
    private let budget: Budget
    let count: Int

    init(_ bytes: [UInt8], budget: Budget = .shared) {
        count = bytes.count
        self.budget = budget
        let page = max(sysconf(Int32(_SC_PAGESIZE)), 4096)
        let length = (bytes.count + page - 1) / page * page
        let admitted = length > 0 && budget.admit()
        if admitted, let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
           mapped != MAP_FAILED {
            bytes.withUnsafeBytes { mapped.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
            base = mapped
            mappedLength = length
            fallback = []
        } else {
            if admitted { budget.release() }
            base = nil
            mappedLength = 0
            fallback = bytes
        }
    }

    /// Whether the bytes are in pages of their own (false: in an array).
    var isMapped: Bool { base != nil }

    /// A copy of the bytes.
    var bytes: [UInt8] {
        guard let base else { return fallback }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    deinit {
        if let base {
            secureWipe(UnsafeMutableRawBufferPointer(start: base, count: mappedLength))
            munmap(base, mappedLength)
            budget.release()
        } else {
            // In place: a local copy would share the buffer, and wiping it would wipe a fresh copy.
            secureWipe(&fallback)
        }
    }
}
