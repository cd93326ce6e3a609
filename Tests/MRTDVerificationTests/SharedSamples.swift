import Foundation
import MRTDTesting
import Testing

/// The `../shared/samples` folder next to the worktree, or nil when it is absent.
///
/// When the folder is missing the test is skipped with a printed notice, except under CI
/// (environment variable `CI` set), where a missing folder is a failure.
func sharedSamplesRoot(filePath: String = #filePath) -> URL? {
    let root = URL(fileURLWithPath: filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared").appendingPathComponent("samples")
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDir), isDir.boolValue else {
        #expect(Prerequisite.skip("../shared/samples missing; real-document passive authentication not tested"))
        return nil
    }
    return root
}

/// Reads one file from `../shared/samples`; nil (skipped or recorded as an issue) when absent.
func sharedSample(_ relativePath: String) -> [UInt8]? {
    guard let root = sharedSamplesRoot() else { return nil }
    guard let data = try? Data(contentsOf: root.appendingPathComponent(relativePath)) else {
        Issue.record("sample \(relativePath) unreadable")
        return nil
    }
    return [UInt8](data)
}
