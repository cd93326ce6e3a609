import Foundation

/// The `kB` fields of /proc/PID/status (`VmRSS`, `RssAnon`) that the memory tests read.
enum ProcStatus {
    /// `field` (without its colon) of this process or of `pid`, in KiB; nil when the file or the
    /// field cannot be read.
    static func kiB(_ field: String, of pid: Int32? = nil) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid.map(String.init) ?? "self")/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") })
        else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }
}
