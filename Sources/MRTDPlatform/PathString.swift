// The NSString path methods product code used, without Foundation. Lexical only:
// nothing here touches the file system.

package enum PathString {
    /// `directory/name`, as NSString's `appendingPathComponent`: one separator between them.
    package static func join(_ directory: String, _ name: String) -> String {
        if directory.isEmpty { return name }
        let trimmedName = name.drop(while: { $0 == "/" })
        return directory.hasSuffix("/") ? directory + trimmedName : directory + "/" + trimmedName
    }

    /// The last component (`b` of `/a/b/`), as NSString's `lastPathComponent`.
    package static func lastComponent(_ path: String) -> String {
        let parts = path.split(separator: "/")
        guard let last = parts.last else { return path.hasPrefix("/") ? "/" : "" }
        return String(last)
    }

    /// The path without its last component, as NSString's `deletingLastPathComponent`:
    /// `/a/b` → `/a`, `/a` → `/`, `a` → ``.
    package static func parent(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        let parts = path.split(separator: "/").dropLast()
        let joined = parts.joined(separator: "/")
        return absolute ? "/" + joined : joined
    }

    /// `.` removed, `..` applied and repeated separators collapsed, as NSString's `standardizingPath`
    /// without the tilde and symlink steps.
    package static func standardized(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var out: [Substring] = []
        for part in path.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                if let last = out.last, last != ".." { out.removeLast() } else if !absolute { out.append(part) }
            default: out.append(part)
            }
        }
        let joined = out.joined(separator: "/")
        return absolute ? "/" + joined : (joined.isEmpty ? "." : joined)
    }
}
