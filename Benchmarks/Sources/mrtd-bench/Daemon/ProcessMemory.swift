#if canImport(Glibc)
import Glibc
#endif

/// Resident memory of a process from /proc/PID/status, in KiB: VmRSS is the total; RssAnon is the
/// process's own (heap, stacks, copy-on-write pages of libraries); RssFile is mapped files, mostly
/// the shared code of libswiftCore, Foundation, ICU, libcrypto that other Swift processes share.
struct ProcessMemory {
    var vmRSS = 0
    var rssAnon = 0
    var rssFile = 0
    var rssShmem = 0
    var vmHWM = 0

    init(pid: pid_t) throws {
        guard let file = fopen("/proc/\(pid)/status", "r") else { throw DaemonBenchError("cannot read /proc/\(pid)/status") }
        defer { fclose(file) }
        var line: UnsafeMutablePointer<CChar>?
        var capacity = 0
        defer { free(line) }
        while getline(&line, &capacity, file) > 0, let line {
            let text = String(cString: line)
            let parts = text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" })
            guard parts.count >= 2, let value = Int(parts[1]) else { continue }
            switch parts[0] {
            case "VmRSS:": vmRSS = value
            case "RssAnon:": rssAnon = value
            case "RssFile:": rssFile = value
            case "RssShmem:": rssShmem = value
            case "VmHWM:": vmHWM = value
            default: break
            }
        }
    }

    /// MiB with one decimal.
    static func mib(_ kib: Int) -> Double { (Double(kib) / 1024 * 10).rounded() / 10 }

    var json: [String: Double] {
        ["vmRSS": Self.mib(vmRSS), "rssAnon": Self.mib(rssAnon), "rssFile": Self.mib(rssFile),
         "rssShmem": Self.mib(rssShmem), "vmHWM": Self.mib(vmHWM)]
    }
}

/// CPU time (user + system, all threads) a process has used, in milliseconds, from fields 14 and
/// 15 of /proc/PID/stat (clock ticks). Load on the machine stretches latency, not this.
func processCPUMilliseconds(pid: pid_t) throws -> Double {
    guard let file = fopen("/proc/\(pid)/stat", "r") else { throw DaemonBenchError("cannot read /proc/\(pid)/stat") }
    defer { fclose(file) }
    var buffer = [UInt8](repeating: 0, count: 2048)
    let count = fread(&buffer, 1, buffer.count, file)
    guard count > 0 else { throw DaemonBenchError("empty /proc/\(pid)/stat") }
    let text = String(decoding: buffer[0..<count], as: UTF8.self)
    // The command name (field 2) is in parentheses and may contain spaces: count after its end.
    guard let close = text.lastIndex(of: ")") else { throw DaemonBenchError("malformed /proc/\(pid)/stat") }
    let fields = text[text.index(after: close)...].split(separator: " ")
    // fields[0] is field 3 (state); utime and stime are fields 14 and 15.
    guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
        throw DaemonBenchError("malformed /proc/\(pid)/stat")
    }
    return (user + system) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
}
