internal import CLibcShims
import Glibc

/// glibc's allocator settings the daemon uses.
package enum Heap {
    /// At most `count` malloc arenas (mallopt M_ARENA_MAX); false when glibc refused.
    @discardableResult
    package static func limitArenas(to count: Int32) -> Bool { cmalloc_limit_arenas(count) == 1 }

    /// Fixed mmap and trim thresholds (mallopt M_MMAP_THRESHOLD and M_TRIM_THRESHOLD); false when
    /// glibc refused either.
    ///
    /// glibc starts both at 128 KiB but raises them whenever a block it had mmap'ed is freed: to
    /// that block's size for mmap, to twice it for trim (up to 32 and 64 MiB). Loading the shipped
    /// master lists frees arrays of several MiB, so afterwards blocks of that size came from the
    /// heap and a free top of that size was never given back: 12.5 of the idle daemon's 16.9 MiB
    /// of RssAnon (docs/performance.md). Setting either value turns the raising off.
    @discardableResult
    package static func fixThresholds(mmap: Int32, trim: Int32) -> Bool { cmalloc_fix_thresholds(mmap, trim) == 1 }

    /// Freed memory overwritten (mallopt M_PERTURB): glibc fills each block it frees with `byte`
    /// (and each block it hands out with its complement), so what a freed block held (a decoded
    /// access key, a request body, a result) is gone from the heap, not left for a core dump or a
    /// reader of /proc/PID/mem. Blocks glibc keeps in its per-thread cache (tcache, blocks up to
    /// 1 KiB, a few of each size) are not overwritten: `GLIBC_TUNABLES=glibc.malloc.tcache_count=0`
    /// turns that cache off (systemd/mrtdd.service sets it). A MALLOC_PERTURB_ in the environment
    /// wins (an empty one is no setting, as for glibc). False when glibc refused or was not asked.
    @discardableResult
    package static func overwriteFreedMemory() -> Bool {
        if let set = getenv("MALLOC_PERTURB_"), set.pointee != 0 { return false }
        return cmalloc_perturb(0x5A) == 1
    }

    /// Whether glibc's per-thread cache was turned off at start (`glibc.malloc.tcache_count=0` in
    /// GLIBC_TUNABLES): only then does `overwriteFreedMemory` reach every freed block.
    package static var threadCacheOff: Bool {
        guard let tunables = getenv("GLIBC_TUNABLES") else { return false }
        return String(cString: tunables).split(separator: ":").contains("glibc.malloc.tcache_count=0")
    }

    /// malloc_trim(0): the free pages of every arena go back to the system; true when some did.
    @discardableResult
    package static func trim() -> Bool { cmalloc_trim() == 1 }
}
