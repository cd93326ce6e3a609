internal import CLibcShims

/// glibc's allocator settings the daemon uses (issue 14, flat memory).
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

    /// malloc_trim(0): the free pages of every arena go back to the system; true when some did.
    @discardableResult
    package static func trim() -> Bool { cmalloc_trim() == 1 }
}
