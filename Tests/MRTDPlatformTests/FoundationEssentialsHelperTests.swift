import Foundation
import Testing
@testable import MRTDPlatform

/// The helpers that replace Foundation APIs in product code (issue 14, footprint) give what Foundation
/// gave: each is checked against Foundation itself, which the tests may still import.
@Suite struct FoundationEssentialsHelperTests {
    static let texts = [
        "", " ", "  a b  ", "\ta\t", "\u{00A0}x\u{3000}", "\nx\n", " \n x \n ", "x", "\u{2003}mid dle\u{2003}", " é ",
    ]

    @Test(arguments: texts) func trimmingMatchesFoundation(_ text: String) {
        #expect(text.trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
        #expect(text.trimmingWhitespace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(text.trimming(while: \.isNewline) == text.trimmingCharacters(in: .newlines))
        #expect(text[...].trimmingSpaces() == text.trimmingCharacters(in: .whitespaces))
    }

    static let encoded = [
        "", "abc", "a%20b", "%2F%2f", "module%3D%2Fusr%2Flib", "%", "%2", "%G0", "%zz", "a+b", "%C3%A9", "%C3", "%FF%FE",
        "100%", "%%41", "%e2%82%ac",
    ]

    @Test(arguments: encoded) func percentDecodingMatchesFoundation(_ text: String) {
        #expect(text.percentDecoded == text.removingPercentEncoding)
    }

    @Test func zeroPaddingMatchesFormat() {
        for (value, width) in [(0, 2), (7, 2), (42, 2), (123, 2), (2026, 4), (5, 4), (-5, 3), (-123, 2), (999, 3)] {
            #expect(value.zeroPadded(width: width) == String(format: "%0\(width)d", value), "\(value) width \(width)")
        }
        #expect(UInt8(9).zeroPadded(width: 3) == "009")
    }

    @Test func fixedPointMatchesFormat() {
        // Halves exactly representable in binary are left out: printf rounds them to even, `fixed` away from zero.
        for value in [0.0, 1.0, 12.34, 0.04, 0.06, 99.96, 1234.5678, 7.0001, -3.14, -0.04, 100_000.2] {
            #expect(value.fixed(decimals: 1) == String(format: "%.1f", value), "\(value)")
            #expect(value.fixed(decimals: 3) == String(format: "%.3f", value), "\(value)")
            #expect(value.fixed(decimals: 0) == String(format: "%.0f", value), "\(value)")
        }
        #expect(Double.infinity.fixed(decimals: 1) == "inf")
        #expect(Double.nan.fixed(decimals: 1) == "nan")
    }

    @Test func pathsMatchNSString() {
        for (directory, name) in [("/a", "b"), ("/a/", "b"), ("", "b"), ("rel", "x/y"), ("/", "etc")] {
            #expect(PathString.join(directory, name) == (directory as NSString).appendingPathComponent(name), "\(directory) + \(name)")
        }
        // "a" is left out of the comparison: corelibs Foundation's deletingLastPathComponent traps on it.
        for path in ["/a/b", "/a/b/", "/", "a/b/c.pem", "//x//y", "/a"] {
            #expect(PathString.lastComponent(path) == (path as NSString).lastPathComponent, "last of \(path)")
            #expect(PathString.parent(path) == (path as NSString).deletingLastPathComponent, "parent of \(path)")
        }
        #expect(PathString.join("/a", "/b") == "/a/b")  // NSString keeps both slashes
        #expect(PathString.parent("a") == "")
        #expect(PathString.lastComponent("a") == "a")
        #expect(PathString.lastComponent("") == "")
        #expect(PathString.standardized("nonexistent/x/../../y") == "y")  // NSString leaves relative paths' ".." alone
        #expect(PathString.standardized("../a/./b") == "../a/b")
        for path in ["/nonexistent/a/../b", "/nonexistent/./c//d/", "/nonexistent/..", "certs/test/./x"] {
            #expect(PathString.standardized(path) == (path as NSString).standardizingPath, "standardized \(path)")
        }
    }

    @Test func fileContentsReadsRegularFilesDevicesAndPipes() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mrtdd-fc-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("a.conf").path
        let bytes = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        #expect(try FileContents.read(file) == bytes)
        // What FoundationEssentials' Data(contentsOf:) refuses with EACCES.
        #expect(try FileContents.read("/dev/null") == [])
        let fifo = directory.appendingPathComponent("fifo").path
        #expect(mkfifo(fifo, 0o600) == 0)
        let writer = Thread {
            let fd = open(fifo, O_WRONLY)
            _ = "log-level = debug\n".withCString { write(fd, $0, 18) }
            close(fd)
        }
        writer.start()
        #expect(try FileContents.text(fifo) == "log-level = debug\n")

        #expect(throws: FileContents.Failure(path: "/nonexistent/x", reason: "No such file or directory")) {
            try FileContents.read("/nonexistent/x")
        }
        #expect(throws: FileContents.Failure(path: directory.path, reason: "Is a directory")) {
            try FileContents.read(directory.path)
        }
        #expect(throws: FileContents.Failure(path: file, reason: "larger than 1000 bytes")) {
            try FileContents.read(file, limit: 1000)
        }
        try Data([0xC3, 0x28]).write(to: URL(fileURLWithPath: file))
        #expect(throws: FileContents.Failure(path: file, reason: "not UTF-8 text")) { try FileContents.text(file) }
    }

    @Test func asciiAlphanumerics() {
        let scalars = (0..<0x250).compactMap(Unicode.Scalar.init)
        for scalar in scalars {
            #expect(scalar.isASCIIAlphanumeric == (scalar.isASCII && CharacterSet.alphanumerics.contains(scalar)), "\(scalar)")
        }
    }
}

/// posix_spawn in place of Foundation's Process: exit codes, the timeout kill, descriptors and signals.
@Suite struct ChildProcessTests {
    @Test func exitStatusAndEnvironment() async throws {
        let pid = try ChildProcess.spawn("/bin/sh", arguments: ["-c", "test \"$ONLY\" = yes && test -z \"$HOME\" && exit 3"],
                                         environment: ["ONLY": "yes"])
        #expect(await ChildProcess.wait(pid) == 3)
    }

    @Test func timeoutKills() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        let pid = try ChildProcess.spawn("/bin/sleep", arguments: ["30"], environment: [:])
        let status = await ChildProcess.wait(pid, timeout: .milliseconds(200))
        #expect(status == 128 + SIGKILL)
        #expect(clock.now - start < .seconds(5))
    }

    @Test func childSeesNoneOfOurDescriptorsAndDefaultSignals() async throws {
        // An inheritable descriptor of ours (no O_CLOEXEC), and SIGPIPE ignored as the daemon does.
        let fd = open("/dev/null", O_RDONLY)
        #expect(fd > 2)
        defer { close(fd) }
        let previous = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previous) }
        let pid = try ChildProcess.spawn(
            "/bin/sh",
            arguments: ["-c", """
                test ! -e /proc/self/fd/\(fd) || exit 10
                # Signals 1-31 at their defaults; glibc's posix_spawn leaves its internal 32 and 33 ignored.
                case $(awk '/^SigIgn/ { print substr($2, 9) }' /proc/self/status) in 00000000|80000000) ;; *) exit 11 ;; esac
                """],
            environment: ["PATH": "/usr/bin:/bin"])
        let status = await ChildProcess.wait(pid)
        #expect(status == 0, "10: our descriptor leaked into the child; 11: the child inherited an ignored signal")
    }

    @Test func missingProgramIsAnError() {
        #expect(throws: ChildProcess.Failure.self) {
            _ = try ChildProcess.spawn("/nonexistent/program", arguments: [], environment: [:])
        }
    }
}
