internal import CLibcShims

/// glibc's allocator settings the daemon uses (issue 14, flat memory).
package enum Heap {
    /// At most `count` malloc arenas (mallopt M_ARENA_MAX); false when glibc refused.
    @discardableResult
    package static func limitArenas(to count: Int32) -> Bool { cmalloc_limit_arenas(count) == 1 }

    /// malloc_trim(0): the free pages of every arena go back to the system; true when some did.
    @discardableResult
    package static func trim() -> Bool { cmalloc_trim() == 1 }
}
