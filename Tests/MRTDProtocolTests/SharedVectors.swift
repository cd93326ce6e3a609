import Foundation
import MRTDTesting
import Testing
import MRTDCore

/// Reads `../shared/vectors/<name>` (next to the worktree). Missing outside CI: skipped with a
/// printed notice; missing under CI (`CI` set): a failure.
func sharedVectorFile(_ name: String, filePath: String = #filePath) -> Data? {
    sharedFile("vectors/\(name)", filePath: filePath)
}

/// Reads `../shared/<relativePath>` with the same skip / CI rule.
func sharedFile(_ relativePath: String, filePath: String = #filePath) -> Data? {
    let root = URL(fileURLWithPath: filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")
    guard let data = try? Data(contentsOf: root.appendingPathComponent(relativePath)) else {
        #expect(Prerequisite.skip("../shared/\(relativePath) missing"))
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
