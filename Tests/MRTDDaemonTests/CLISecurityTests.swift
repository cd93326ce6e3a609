import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
@testable import MRTDDaemon

/// `mrtdctl` as a second local uid attacks it (issue 31, items 2, 6, 7 and 14): the access key in
/// /proc/PID/cmdline, output paths another user planted links in, world-readable dumps, a dumpable
/// process. Each runs the built binary; the tests across uids run it under `setpriv` as 65533 (the
/// victim) with 65534 (`nobody`) as the attacker, and skip loudly (failing under CI) when not root.
@Suite(.serialized) struct CLISecurityTests {
    static let victim: UInt32 = 65533
    static let attacker: UInt32 = 65534
    /// The ICAO specimen's MRZ key (README), and one that does not open it.
    static let key = "L898902C3,740812,120415"
    static let wrongKey = "L898902C3,740812,990101"

    /// The command line of `mrtdctl ARGS` with umask 022 (what a user's shell has).
    static func mrtdctl(_ arguments: [String]) throws -> [String] {
        ["/bin/sh", "-c", "umask 022 && exec \"$@\"", "sh", try DaemonProcessTests.executable("mrtdctl")] + arguments
    }

    /// `command` as `uid` (setpriv) or as this process, `input` on its standard input; started, not
    /// waited for. Standard output and error both go to `output`.
    static func start(_ command: [String], input: String = "", as uid: UInt32? = nil, output: URL) throws -> Process {
        let line = uid.map { ["/usr/bin/setpriv", "--reuid=\($0)", "--regid=\($0)", "--clear-groups"] + command } ?? command
        let process = Process()
        process.executableURL = URL(fileURLWithPath: line[0])
        process.arguments = Array(line.dropFirst())
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = process.standardOutput
        let standardInput = Pipe()
        process.standardInput = standardInput
        try process.run()
        try standardInput.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try standardInput.fileHandleForWriting.close()
        return process
    }

    /// `command` to its end: the exit status and what it printed.
    static func run(
        _ command: [String], input: String = "", as uid: UInt32? = nil, in directory: URL
    ) async throws -> (status: Int32, output: String) {
        let output = directory.appendingPathComponent("run-\(UUID().uuidString.prefix(8)).out")
        let process = try start(command, input: input, as: uid, output: output)
        let status = try await DaemonProcessTests.waitForExit(process, timeout: .seconds(120))
        return (status, try String(contentsOf: output, encoding: .utf8))
    }

    /// A fresh directory any uid can traverse.
    static func directory() throws -> URL {
        let directory = try DaemonProcessTests.temporaryDirectory()
        chmod(directory.path, 0o755)
        return directory
    }

    /// Kills the daemon (a read may still be going) and removes its directory.
    static func remove(_ daemon: ConsoleTests.SimulatedDaemon) {
        daemon.kill()
        try? FileManager.default.removeItem(at: daemon.directory)
    }

    /// The `status` field of the result JSON `output` printed (after any progress lines).
    static func status(_ output: String) -> String? {
        guard let start = output.firstIndex(of: "{"),
              let object = try? JSONSerialization.jsonObject(with: Data(output[start...].utf8)) as? [String: Any]
        else { return nil }
        return object["status"] as? String
    }

    static func mode(_ path: String) -> mode_t {
        var info = stat()
        return lstat(path, &info) == 0 ? info.st_mode & 0o7777 : 0o7777
    }

    // MARK: Item 2: the access key off the command line

    /// `-` reads the key from standard input and `--access-file` from a 0600 file: a right key opens
    /// the specimen, a wrong one is denied (so the key given is the one used, not --simulate's default).
    @Test func theKeyFromStandardInputOrAnAccessFileOpensTheSpecimen() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        for (input, expected) in [(Self.key, "valid"), (Self.wrongKey, "failed")] {
            let piped = try await Self.run(Self.mrtdctl(["read", "--simulate", "--json", "--mrz-key", "-"]), input: input + "\n", in: directory)
            #expect(Self.status(piped.output) == expected, "--mrz-key - with \(input): \(piped.output)")
            let file = directory.appendingPathComponent("key-\(expected)")
            try "# the specimen\nmrz-key=\(input)\n".write(to: file, atomically: false, encoding: .utf8)
            chmod(file.path, 0o600)
            let filed = try await Self.run(Self.mrtdctl(["read", "--simulate", "--json", "--access-file", file.path]), in: directory)
            #expect(Self.status(filed.output) == expected, "--access-file with \(input): \(filed.output)")
        }
        let can = try await Self.run(Self.mrtdctl(["read", "--simulate", "--sim-chip", "can-only", "--json", "--can", "-"]), input: "123456\n", in: directory)
        #expect(Self.status(can.output) == "valid" && can.output.contains("\"password\" : \"CAN\""), "--can -: \(can.output)")
        // The MRZ as printed, both lines; the second with a wrong date of expiry does not open the chip.
        let lines = ["P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<", "L898902C36UTO7408122F1204159ZE184226B<<<<<10"]
        let mrz = try await Self.run(Self.mrtdctl(["read", "--simulate", "--json", "--mrz", "-"]), input: lines.joined(separator: "\n") + "\n", in: directory)
        #expect(Self.status(mrz.output) == "valid", "--mrz -: \(mrz.output)")
        let file = directory.appendingPathComponent("mrz")
        let wrong = "L898902C36UTO7408122F9901018ZE184226B<<<<<14"  // expiry 990101, check digits recomputed
        try "mrz=\(lines[0])\nmrz=\(wrong)\n".write(to: file, atomically: false, encoding: .utf8)
        chmod(file.path, 0o400)
        let filed = try await Self.run(Self.mrtdctl(["read", "--simulate", "--json", "--access-file", file.path]), in: directory)
        #expect(Self.status(filed.output) == "failed" && filed.output.contains("accessDenied"), "mrz= lines: \(filed.output)")
        let help = try await Self.run(Self.mrtdctl(["help", "read"]), in: directory)
        let words = help.output.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(words.contains("visible to every local user"), "the help warns that argv is public: \(help.output)")
    }

    /// An access file others could read, someone else's, or a link is refused with a usage error
    /// naming the reason, and nothing is read.
    @Test func anAccessFileOthersCouldTouchIsRefused() async throws {
        guard SecurityTests.canSwitchUsers() else { return }
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let readable = directory.appendingPathComponent("readable")
        try "mrz-key=\(Self.key)\n".write(to: readable, atomically: false, encoding: .utf8)
        chmod(readable.path, 0o644)
        let foreign = directory.appendingPathComponent("foreign")
        try "mrz-key=\(Self.key)\n".write(to: foreign, atomically: false, encoding: .utf8)
        chmod(foreign.path, 0o600)
        chown(foreign.path, Self.attacker, Self.attacker)
        let private_ = directory.appendingPathComponent("private")
        try "mrz-key=\(Self.key)\n".write(to: private_, atomically: false, encoding: .utf8)
        chmod(private_.path, 0o600)
        let link = directory.appendingPathComponent("link")
        symlink(private_.path, link.path)
        for (file, reason) in [(readable, "mode 644"), (foreign, "owned by uid \(Self.attacker)"), (link, "symbolic link")] {
            let result = try await Self.run(Self.mrtdctl(["read", "--simulate", "--json", "--access-file", file.path]), in: directory)
            #expect(result.status == 64 && result.output.contains(reason), "\(file.lastPathComponent): \(result.status) \(result.output)")
            #expect(Self.status(result.output) == nil, "nothing was read with \(file.lastPathComponent)")
        }
    }

    /// While a read through the daemon waits for its document, another uid sees neither the key in
    /// mrtdctl's command line nor its environment: the process is undumpable, the files in its /proc/PID
    /// root's (item 14).
    @Test func aWaitingDaemonReadShowsNoKeyAndIsNotDumpable() async throws {
        guard SecurityTests.canSwitchUsers() else { return }
        // 2 s per APDU: the read is still going when the checks run.
        let daemon = try await ConsoleTests.SimulatedDaemon.start(latencyMs: 2000)
        defer { Self.remove(daemon) }
        chmod(daemon.directory.path, 0o755)
        chmod(daemon.socket, 0o666)
        let output = daemon.directory.appendingPathComponent("read.out")
        let read = try Self.start(
            Self.mrtdctl(["read", "--socket", daemon.socket, "--mrz-key", "-", "--timeout", "30"]), input: Self.key + "\n", as: Self.attacker, output: output)
        defer { if read.isRunning { kill(read.processIdentifier, SIGKILL) } }
        let deadline = ContinuousClock.now + .seconds(30)
        while !((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("mrtdctl: job ") {
            guard read.isRunning, ContinuousClock.now < deadline else {
                throw TestFailure("the read never waited: \((try? String(contentsOf: output, encoding: .utf8)) ?? "")")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        let proc = "/proc/\(read.processIdentifier)"
        let cmdline = try await Self.run(["/bin/cat", "\(proc)/cmdline"], as: Self.attacker, in: daemon.directory)
        #expect(cmdline.output.contains("mrtdctl") && cmdline.output.contains("--mrz-key"), "cmdline was read: \(cmdline.output)")
        #expect(!cmdline.output.contains("L898902C3"), "the key is in argv: \(cmdline.output)")
        let environ = try await Self.run(["/bin/cat", "\(proc)/environ"], as: Self.attacker, in: daemon.directory)
        #expect(environ.status != 0, "the same uid read mrtdctl's environment: \(environ.output)")
        // /proc/PID itself keeps the process's uid; the files in it are root's when it is undumpable.
        var info = stat()
        #expect(stat("\(proc)/environ", &info) == 0 && info.st_uid == 0, "\(proc)/environ belongs to uid \(info.st_uid), not root: mrtdctl is dumpable")
        let status = try String(contentsOfFile: "\(proc)/status", encoding: .utf8)
        #expect(status.contains("Uid:\t\(Self.attacker)"), "mrtdctl runs as \(Self.attacker): \(status)")
        #expect(read.isRunning, "mrtdctl was still waiting for the read")
    }

    /// With no key on a terminal, a read through the daemon asks for it with echo off: the key typed
    /// opens the specimen and never appears on the terminal.
    @Test func aReadWithNoKeyPromptsOnTheTerminalWithoutEcho() async throws {
        let daemon = try await ConsoleTests.SimulatedDaemon.start()
        defer { Self.remove(daemon) }
        let script = """
            import os, pty, sys, time
            pid, fd = pty.fork()
            if pid == 0:
                os.execv(sys.argv[1], sys.argv[1:])
            seen, typed = b"", False
            deadline = time.time() + 60
            while time.time() < deadline:
                try:
                    chunk = os.read(fd, 4096)
                except OSError:
                    break
                if not chunk:
                    break
                seen += chunk
                if not typed and b"Access key" in seen:
                    os.write(fd, sys.stdin.readline().encode())
                    typed = True
            _, status = os.waitpid(pid, 0)
            sys.stdout.write(seen.decode(errors="replace"))
            sys.exit(os.waitstatus_to_exitcode(status))
            """
        let python = daemon.directory.appendingPathComponent("prompt.py")
        try script.write(to: python, atomically: false, encoding: .utf8)
        let (status, terminal) = try await Self.run(
            ["/usr/bin/python3", python.path, try DaemonProcessTests.executable("mrtdctl"), "read", "--socket", daemon.socket, "--json"],
            input: Self.key + "\n", in: daemon.directory)
        #expect(status == 0 && terminal.contains("Access key") && Self.status(terminal) == "valid", "\(status): \(terminal)")
        #expect(!terminal.contains(Self.key), "the key was echoed: \(terminal)")
    }

    // MARK: Items 6 and 7: output files

    /// Another user's 0777 directory with links to the victim's file planted at the names mrtdctl
    /// writes: every output option as the victim is refused with the reason, and the victim's file
    /// is unchanged (before: overwritten through the link).
    @Test func outputIntoAPlantedDirectoryIsRefusedAndFollowsNoLink() async throws {
        guard SecurityTests.canSwitchUsers() else { return }
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let home = directory.appendingPathComponent("victim")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: false)
        let precious = home.appendingPathComponent("precious")
        try "the victim's own file\n".write(to: precious, atomically: false, encoding: .utf8)
        let planted = directory.appendingPathComponent("planted")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        for name in ["portrait-1.jpg", "signature-1.jpg", "DG1.bin", "EF_COM.bin", "face.jpg", "session.json"] {
            symlink(precious.path, planted.appendingPathComponent(name).path)
            lchown(planted.appendingPathComponent(name).path, Self.attacker, Self.attacker)
        }
        chown(home.path, Self.victim, Self.victim)
        chown(precious.path, Self.victim, Self.victim)
        chmod(precious.path, 0o600)
        chown(planted.path, Self.attacker, Self.attacker)
        chmod(planted.path, 0o777)
        let read = ["read", "--simulate", "--sim-full-lds", "--data-groups", "5,7,11,12,13,16"]
        let attempts: [(options: [String], reason: String)] = [
            (["--images", planted.path], "belongs to uid \(Self.attacker)"),
            (["--dump", planted.path], "belongs to uid \(Self.attacker)"),
            // A file in the attacker's directory: refused for its directory before its link is reached.
            (["--face", planted.appendingPathComponent("face.jpg").path], "belongs to uid \(Self.attacker)"),
            (["--record", planted.appendingPathComponent("session.json").path], "belongs to uid \(Self.attacker)"),
        ]
        for attempt in attempts {
            let result = try await Self.run(Self.mrtdctl(read + attempt.options), as: Self.victim, in: directory)
            #expect(result.status != 0 && result.output.contains("refusing to write") && result.output.contains(attempt.reason),
                    "\(attempt.options): \(result.status) \(result.output)")
            #expect(try String(contentsOf: precious, encoding: .utf8) == "the victim's own file\n", "\(attempt.options) wrote through the link")
        }
        // The victim's own directory that others may write to is refused as well.
        let shared = home.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        chown(shared.path, Self.victim, Self.victim)
        chmod(shared.path, 0o777)
        let open = try await Self.run(Self.mrtdctl(read + ["--dump", shared.path]), as: Self.victim, in: directory)
        #expect(open.status != 0 && open.output.contains("writable by group or others"), "\(open.output)")
    }

    /// `mrtdctl result ID --face/--images` write as `read` does: into a planted directory, refused.
    @Test func resultOutputIntoAPlantedDirectoryIsRefused() async throws {
        guard SecurityTests.canSwitchUsers() else { return }
        let daemon = try await ConsoleTests.SimulatedDaemon.start()
        defer { Self.remove(daemon) }
        let read = try await Self.run(
            Self.mrtdctl(["read", "--socket", daemon.socket, "--mrz-key", Self.key, "--data-groups", "5,7"]), in: daemon.directory)
        let words = read.output.split(whereSeparator: \.isWhitespace).map(String.init)
        let id = try #require(words.drop { $0 != "job" }.dropFirst().first, "\(read.output)")
        let precious = daemon.directory.appendingPathComponent("precious")
        try "root's own file\n".write(to: precious, atomically: false, encoding: .utf8)
        let planted = daemon.directory.appendingPathComponent("planted")
        try FileManager.default.createDirectory(at: planted, withIntermediateDirectories: false)
        symlink(precious.path, planted.appendingPathComponent("portrait-1.jpg").path)
        symlink(precious.path, planted.appendingPathComponent("face.jpg").path)
        chown(planted.path, Self.attacker, Self.attacker)
        chmod(planted.path, 0o777)
        for options in [["--images", planted.path], ["--face", planted.appendingPathComponent("face.jpg").path]] {
            let result = try await Self.run(Self.mrtdctl(["result", id, "--socket", daemon.socket] + options), in: daemon.directory)
            #expect(result.status != 0 && result.output.contains("refusing to write"), "\(options): \(result.output)")
            #expect(try String(contentsOf: precious, encoding: .utf8) == "root's own file\n", "\(options) wrote through the link")
        }
    }

    /// Under umask 022 a dump and the images are a 0700 directory of 0600 files (before: 0755 and
    /// 0644, DG1 holding the MRZ); the same command again replaces the user's own files, and a
    /// file with a second link is refused.
    @Test func dumpsArePrivateWhateverTheUmaskAndCanBeWrittenAgain() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let dump = directory.appendingPathComponent("a/dump").path
        let images = directory.appendingPathComponent("images").path
        let face = directory.appendingPathComponent("face.jpg").path
        let arguments = ["read", "--simulate", "--sim-full-lds", "--data-groups", "5,7", "--dump", dump, "--images", images, "--face", face]
        for run in 1...2 {
            let result = try await Self.run(Self.mrtdctl(arguments), in: directory)
            #expect(result.status == 0, "run \(run): \(result.output)")
            #expect(Self.mode(dump) == 0o700 && Self.mode(images) == 0o700, "run \(run): \(String(Self.mode(dump), radix: 8))")
            let files = try FileManager.default.contentsOfDirectory(atPath: dump).map { "\(dump)/\($0)" }
                + FileManager.default.contentsOfDirectory(atPath: images).map { "\(images)/\($0)" } + [face]
            #expect(files.count > 6 && files.contains("\(dump)/DG1.bin") && files.contains("\(images)/portrait-1.jpg"), "\(files)")
            for file in files { #expect(Self.mode(file) == 0o600, "run \(run): \(file) is \(String(Self.mode(file), radix: 8))") }
            chmod(face, 0o644)  // the second run makes it private again
        }
        link(face, directory.appendingPathComponent("second-link").path)
        let linked = try await Self.run(Self.mrtdctl(arguments), in: directory)
        #expect(linked.status != 0 && linked.output.contains("single link"), "\(linked.output)")
    }
}
