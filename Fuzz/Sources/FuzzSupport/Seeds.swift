import Foundation

/// Seed generation: `TARGET --write-seeds DIR` writes the target's seeds (made from the virtual
/// specimen and the test PKI, so they carry valid signatures and keys) instead of fuzzing.
public enum FuzzSeeds {
    /// Writes `make()`'s seeds to the directory after `--write-seeds` and returns true, or returns
    /// false when the flag is absent.
    public static func writeIfAsked(_ make: () throws -> [String: [UInt8]]) -> Bool {
        let arguments = CommandLine.arguments
        guard let index = arguments.firstIndex(of: "--write-seeds"), index + 1 < arguments.count else { return false }
        let directory = arguments[index + 1]
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            for (name, bytes) in try make() {
                try Data(bytes).write(to: URL(fileURLWithPath: directory).appendingPathComponent(name))
            }
        } catch {
            print("seed generation failed: \(error)")
            exit(1)
        }
        return true
    }

    /// A fuzz input of length-prefixed chunks (the format `FuzzInput.chunk()` reads), after `prefix`.
    public static func chunks(_ prefix: [UInt8], _ parts: [[UInt8]]) -> [UInt8] {
        prefix + parts.flatMap { [UInt8(($0.count >> 8) & 0xFF), UInt8($0.count & 0xFF)] + $0 }
    }
}
