import Glibc
import MRTDCore
import MRTDPlatform

/// What `mrtdctl console --open` hands to `xdg-open` instead of the URL: a small HTML page, readable
/// by the user only, that sends the browser on to the console's URL. A command line is no place for
/// the token: /proc/PID/cmdline of xdg-open and of the browser it starts is readable by every local
/// user. The page sits in a fresh directory (mkdtemp: mode 0700) under $XDG_RUNTIME_DIR, or /tmp
/// without one, and is created mode 0600 with O_EXCL|O_NOFOLLOW, so nothing planted at its path is
/// followed or reused. It is removed once the console has served its page, after `lifetime`, or
/// when mrtdctl stops, whichever comes first (docs/console.md).
final class ConsoleLaunchFile: Sendable {
    /// The page's path (`DIRECTORY/open.html`).
    let path: String
    let directory: String
    private let removed = Locked(false)
    /// Long enough for a browser to start cold and read the page.
    static let lifetime: Duration = .seconds(60)

    struct Failure: Error, CustomStringConvertible {
        let step: String
        let code: Int32
        var description: String { "\(step): \(String(cString: strerror(code)))" }
    }

    init(url: String, environment: [String: String]) throws(Failure) {
        let runtime = environment["XDG_RUNTIME_DIR"].flatMap { $0.hasPrefix("/") ? $0 : nil }
        guard let directory = Self.makeDirectory(in: runtime) ?? Self.makeDirectory(in: "/tmp") else {
            throw Failure(step: "mkdtemp", code: errno)
        }
        self.directory = directory
        path = directory + "/open.html"
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            let code = errno
            rmdir(directory)
            throw Failure(step: "open \(path)", code: code)
        }
        defer { close(fd) }
        if let code = FileContents.write(Self.page(for: url).utf8, descriptor: fd) {
            remove()
            throw Failure(step: "write \(path)", code: code)
        }
    }

    /// A new mode-0700 directory `mrtdctl-console-XXXXXX` in `parent` (nil when it cannot be made).
    private static func makeDirectory(in parent: String?) -> String? {
        guard let parent else { return nil }
        var template = Array((parent + "/mrtdctl-console-XXXXXX").utf8CString)
        return template.withUnsafeMutableBufferPointer { buffer in
            mkdtemp(buffer.baseAddress!).map { String(cString: $0) }
        }
    }

    /// The page: a meta refresh to the console, and a link for a browser that ignores it. No script,
    /// no referrer.
    static func page(for url: String) -> String {
        """
        <!doctype html>
        <meta charset="utf-8">
        <meta name="referrer" content="no-referrer">
        <meta http-equiv="refresh" content="0; url=\(url)">
        <title>mrtdd operator console</title>
        <p><a href="\(url)">Open the mrtdd operator console</a></p>

        """
    }

    /// The `file://` URL of the page (bytes other than letters, digits and `/._~-` percent-encoded).
    var fileURL: String {
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._~-".utf8)
        return "file://" + path.utf8.map { safe.contains($0) ? String(UnicodeScalar($0)) : "%" + [$0].hex }.joined()
    }

    /// Removes the page and its directory (once; later calls do nothing).
    func remove() {
        let first = removed.withValue { done in
            defer { done = true }
            return !done
        }
        guard first else { return }
        unlink(path)
        rmdir(directory)
    }
}
