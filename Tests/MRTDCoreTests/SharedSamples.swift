import Foundation
import MRTDTesting
import Testing

/// Reads a file from `../shared/samples` (next to the worktree).
///
/// When the folder is missing the test is skipped with a printed notice, which fails the run unless
/// the caller opts out with MRTD_ALLOW_SKIPS=1 (`Prerequisite`).
func sharedSample(_ relativePath: String, filePath: String = #filePath) -> [UInt8]? {
    let root = URL(fileURLWithPath: filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared")
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDir), isDir.boolValue else {
        #expect(Prerequisite.skip("../shared missing; real-sample tests not run"))
        return nil
    }
    let url = root.appendingPathComponent("samples").appendingPathComponent(relativePath)
    guard let data = try? Data(contentsOf: url) else {
        Issue.record("sample \(relativePath) unreadable")
        return nil
    }
    return [UInt8](data)
}
