import FoundationEssentials
import Glibc
import MRTDCore
import MRTDPlatform

/// Decodes JPEG 2000 faces to PNG for display in a short-lived child process (`opj_decompress`)
/// under resource limits (address space, CPU time, file size, no core dumps), so that a hostile
/// image can at worst kill the child, never the daemon.
struct FaceConverter: Sendable {
    var decoder: String
    /// Wall-clock limit; the child is killed beyond it.
    var timeout: Duration = .seconds(10)
    /// Address-space limit of the child, in KiB (`ulimit -v`).
    var memoryKiB = 512 * 1024
    /// CPU seconds (`ulimit -t`).
    var cpuSeconds = 5

    enum Failure: Error { case unavailable, undecodable }

    var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: decoder) }

    /// PNG bytes of a JPEG 2000 image (`image/jp2` or `image/j2k`).
    func png(fromJPEG2000 image: [UInt8], mimeType: String) async throws(Failure) -> [UInt8] {
        guard isAvailable else { throw .unavailable }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("mrtdd-face-\(UUID().uuidString)", isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw .unavailable
        }
        defer { try? FileManager.default.removeItem(at: directory) }
        let input = directory.appendingPathComponent(mimeType == "image/j2k" ? "face.j2k" : "face.jp2")
        let output = directory.appendingPathComponent("face.png")
        do {
            try Data(image).write(to: input, options: [.withoutOverwriting])
        } catch {
            throw .undecodable
        }
        // Limits first, then exec: the decoder never runs unconstrained. Arguments go through "$@".
        let arguments = [
            "-c", "ulimit -c 0; ulimit -v \(memoryKiB); ulimit -t \(cpuSeconds); ulimit -f 65536; exec \"$0\" \"$@\"",
            decoder, "-quiet", "-i", input.path, "-o", output.path,
        ]
        let status: Int32
        do {
            let pid = try ChildProcess.spawn("/bin/sh", arguments: arguments, environment: ["PATH": "/usr/bin:/bin"])
            status = await ChildProcess.wait(pid, timeout: timeout)
        } catch {
            throw .unavailable
        }
        guard status == 0, let png = try? Data(contentsOf: output), png.starts(with: [0x89, 0x50, 0x4E, 0x47]) else {
            throw .undecodable
        }
        return [UInt8](png)
    }
}
