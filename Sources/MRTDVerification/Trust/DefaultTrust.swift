public import FoundationEssentials

/// The trust material shipped with mrtdd and trusted unless turned off: the public CSCA master
/// lists of Germany (BSI) and the Netherlands (RDW) in `certs/masterlists/` (see certs/README.md).
///
/// Where they are found, first match wins:
/// 1. `$MRTD_DEFAULT_TRUST` when set (a directory or file; an empty value turns the defaults off);
/// 2. `<prefix>/share/mrtdd/masterlists` beside the executable's `<prefix>/bin` (`make install`
///    style: `/usr/local/bin/mrtdd` → `/usr/local/share/mrtdd/masterlists`);
/// 3. ``installedPath`` (`/usr/share/mrtdd/masterlists`, distribution packages);
/// 4. a source checkout: `certs/masterlists` in the first ancestor of the executable that holds
///    `Package.swift` (`.build/debug/mrtdctl` run from a clone).
public enum DefaultTrust {
    /// Where packages install the shipped master lists.
    public static let installedPath = "/usr/share/mrtdd/masterlists"
    /// Overrides the search (tests, unusual layouts).
    public static let environmentVariable = "MRTD_DEFAULT_TRUST"

    /// The shipped master lists' location, or nil when none is found (or the variable is empty).
    public static func locate(
        environment: [String: String] = ProcessInfo.processInfo.environment, executable: String? = nil
    ) -> String? {
        if let value = environment[environmentVariable] { return value.isEmpty ? nil : value }
        let exe = executable ?? Self.executablePath()
        let binDirectory = URL(fileURLWithPath: exe).deletingLastPathComponent()
        var candidates = [binDirectory.deletingLastPathComponent().appendingPathComponent("share/mrtdd/masterlists").path, installedPath]
        var directory = binDirectory
        for _ in 0..<6 {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                candidates.append(directory.appendingPathComponent("certs/masterlists").path)
                break
            }
            directory = directory.deletingLastPathComponent()
        }
        return candidates.first { containsMasterList($0) }
    }

    /// Whether `directory` holds at least one `.ml` file.
    static func containsMasterList(_ directory: String) -> Bool {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return false }
        return names.contains { $0.lowercased().hasSuffix(".ml") }
    }

    /// This process's executable, symlinks resolved (`/proc/self/exe` on Linux).
    static func executablePath() -> String {
        if let resolved = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") { return resolved }
        return URL(fileURLWithPath: CommandLine.arguments[0]).standardizedFileURL.resolvingSymlinksInPath().path
    }
}
