internal import CLibcShims

/// What a process holding secrets (access keys, the console's token, results) sets about itself.
package enum ProcessHardening {
    /// prctl(PR_SET_DUMPABLE, 0): no core dump, whatever `ulimit -c` or the unit says, and
    /// /proc/PID/mem, environ and maps owned by root, so a crash, or a debugger of the same uid,
    /// gets none of what the process holds (issue 31, item 14). Returns false when the kernel refused.
    @discardableResult
    package static func disableCoreDumps() -> Bool { cprocess_set_undumpable() == 0 }
}
