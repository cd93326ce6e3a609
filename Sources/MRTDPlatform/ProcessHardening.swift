internal import CLibcShims

/// What a process holding secrets (access keys, the console's token, results) sets about itself.
package enum ProcessHardening {
    /// prctl(PR_SET_DUMPABLE, 0): no core dump, whatever `ulimit -c` or the unit says, and
    /// /proc/PID/mem, environ and maps owned by root, so a crash, or a debugger of the same uid,
    /// gets none of what the process holds. Returns false when the kernel refused.
    @discardableResult
    package static func disableCoreDumps() -> Bool { cprocess_set_undumpable() == 0 }

    /// Overwrites, in this process's own argv, the value of every option in `options` (`--can
    /// 123456` and `--can=123456` alike; `-`, which reads the value from standard input, is left),
    /// so that /proc/PID/cmdline and `ps` stop showing it, as mysql's client does with `-p`. The
    /// arguments are copied for parsing first (`CommandLine.arguments`). Returns the options whose
    /// values were overwritten, for the caller's warning.
    package static func scrubArgumentValues(of options: Set<String>) -> [String] {
        _ = CommandLine.arguments
        var scrubbed: [String] = []
        let argv = CommandLine.unsafeArgv
        var index = 1
        while index < Int(CommandLine.argc) {
            guard let pointer = argv[index] else { break }
            let argument = String(cString: pointer)
            if argument == "--" { break }
            if options.contains(argument), index + 1 < Int(CommandLine.argc), let value = argv[index + 1], String(cString: value) != "-" {
                overwrite(value, from: 0)
                scrubbed.append(argument)
                index += 2
                continue
            }
            let bytes = Array(argument.utf8)
            if let equals = bytes.firstIndex(of: UInt8(ascii: "=")), options.contains(String(decoding: bytes[..<equals], as: UTF8.self)),
               bytes[(equals + 1)...] != [UInt8(ascii: "-")] {
                overwrite(pointer, from: equals + 1)
                scrubbed.append(String(decoding: bytes[..<equals], as: UTF8.self))
            }
            index += 1
        }
        return scrubbed
    }

    /// `x` over the C string at `pointer` from byte `offset` on (its length is kept: the kernel's
    /// view of the argument area does not move).
    private static func overwrite(_ pointer: UnsafeMutablePointer<CChar>, from offset: Int) {
        var cursor = pointer + offset
        while cursor.pointee != 0 {
            cursor.pointee = CChar(UInt8(ascii: "x"))
            cursor += 1
        }
    }
}
