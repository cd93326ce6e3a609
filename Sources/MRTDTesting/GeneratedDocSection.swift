import Foundation

/// A part of a docs page that code generates (a table of the verdict policy, of the field-quirk
/// scenarios), between `<!-- NAME -->` and `<!-- /NAME -->`: the tests that own it check that the
/// page shows what the code says.
public enum GeneratedDocSection {
    /// The repository's root: this file is Sources/MRTDTesting/GeneratedDocSection.swift.
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// nil when section `name` of `page` (relative to the repository) is `expected`; else why not,
    /// with the expected text written to a temporary file (`NAME.md`) to copy in.
    public static func mismatch(page: String, section name: String, expected: String) throws -> String? {
        let text = try String(contentsOf: repository.appendingPathComponent(page), encoding: .utf8)
        let begin = "<!-- \(name) -->\n", end = "<!-- /\(name) -->"
        guard let start = text.range(of: begin), let stop = text.range(of: end, range: start.upperBound..<text.endIndex) else {
            return "\(page) has no \(begin.dropLast()) … \(end) section"
        }
        guard text[start.upperBound..<stop.lowerBound] != expected else { return nil }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("\(name).md")
        try? expected.write(to: file, atomically: true, encoding: .utf8)
        return "\(page)'s \(name) differs from what the code generates (the code's: \(file.path))"
    }
}
