internal import CLibcShims
import Glibc

/// The read-only segments (code and constant data) of the executable and of its shared libraries,
/// as mapped into this process (issue 14, idle footprint; docs/performance.md).
///
/// Most of the daemon's resident memory at idle is such pages: start-up ran code (argument parsing,
/// loading and verifying the master lists, OpenSSL's initialisation) that an idle daemon never
/// runs again, and the kernel's fault-around mapped 64 KiB around every page it touched. The pages
/// are clean copies of their files; ``release()`` drops this process's mappings of them
/// (madvise MADV_DONTNEED on every PT_LOAD segment without write permission), and whatever runs
/// next maps what it uses again from the page cache: a minor fault per 64 KiB, with no disk read
/// while the file stays cached. That is what the kernel does to them under memory pressure, done at
/// a moment the daemon chooses, as the kernel frees its own `__init` code after boot. Writable
/// segments (data, relocated constants, .bss) are never touched, nor is an object with text
/// relocations, nor the vDSO.
package enum ReadOnlyMappings {
    /// What one call did.
    package enum Outcome: Equatable, Sendable {
        /// Bytes of read-only segments whose mappings were dropped.
        case released(bytes: Int)
        /// A debugger or tracer is attached (its breakpoints live in private copies of code pages,
        /// which dropping them would undo): nothing done.
        case skippedTraced
        /// madvise failed (errno's words); the other segments were still released.
        case failed(String)
    }

    /// Drops the mappings of every read-only segment now; see the type's comment.
    @discardableResult
    package static func release() -> Outcome {
        if isTraced() { return .skippedTraced }
        let bytes = crelease_readonly_mappings()
        if bytes < 0 { return .failed(String(cString: strerror(errno))) }
        return .released(bytes: bytes)
    }

    /// True when /proc/self/status names a tracer (TracerPid other than 0).
    static func isTraced() -> Bool {
        guard let status = try? FileContents.text("/proc/self/status", limit: 1 << 16) else { return false }
        for line in status.split(separator: "\n") where line.hasPrefix("TracerPid:") {
            return line.dropFirst("TracerPid:".count).trimmingSpaces() != "0"
        }
        return false
    }
}
