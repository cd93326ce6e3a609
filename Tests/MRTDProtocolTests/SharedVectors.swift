import Foundation
import Testing

/// Reads `../shared/vectors/<name>` (next to the worktree). Missing outside CI: skipped with a
/// printed notice; missing under CI (`CI` set): a failure.
func sharedVectorFile(_ name: String, filePath: String = #filePath) -> Data? {
    let root = URL(fileURLWithPath: filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")
    let url = root.appendingPathComponent("vectors").appendingPathComponent(name)
    guard let data = try? Data(contentsOf: url) else {
        if ProcessInfo.processInfo.environment["CI"] != nil {
            Issue.record("../shared/vectors/\(name) missing (required under CI)")
        } else {
            print("SKIPPED: ../shared/vectors/\(name) missing")
        }
        return nil
    }
    return data
}

/// The BSI EAC worked example arrays (`bsi_eac_worked_example.json`), hex decoded.
func bsiWorkedExample() -> [String: [UInt8]]? {
    guard let data = sharedVectorFile("bsi_eac_worked_example.json"),
          let object = try? JSONSerialization.jsonObject(with: data) as? [String: String] else { return nil }
    return object.compactMapValues { [UInt8](hex: $0) }
}
