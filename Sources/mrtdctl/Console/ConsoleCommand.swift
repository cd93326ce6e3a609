import ArgumentParser
import FoundationEssentials
import MRTDClient
import Dispatch
import Glibc
import MRTDCore
import MRTDPlatform

/// `mrtdctl console`: the operator console, a web page on 127.0.0.1 that talks to mrtdd
/// (docs/console.md).
struct Console: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the operator console: a web page on 127.0.0.1 for reading documents through mrtdd.",
        discussion: """
            Listens on 127.0.0.1 only, on a random port (or --port), and prints the console's URL, which \
            carries a random access token: every request without it is refused (403), and so is any Host \
            other than 127.0.0.1:PORT or localhost:PORT. Requests are proxied to mrtdd's socket as the user \
            who ran mrtdctl, so the daemon's per-user job isolation applies. Stop with Ctrl-C.
            """)

    @OptionGroup var daemon: DaemonOptions

    @Option(help: "The port on 127.0.0.1 (default: a random free port).")
    var port: Int?

    @Flag(help: "Open the console in the default browser (xdg-open on a private launch page: the token stays off command lines).")
    var open = false

    func validate() throws {
        if let port, !(1...65535).contains(port) {
            throw ValidationError("--port: \(port) is not a port number 1-65535")
        }
    }

    func run() async throws {
        // The --open launch page, removed on every way out (Ctrl-C and SIGTERM included).
        let launch = Locked<ConsoleLaunchFile?>(nil)
        let stop = Self.exitOnSignals { launch.current?.remove() }
        defer {
            stop.forEach { $0.cancel() }
            launch.current?.remove()
        }
        let server = ConsoleServer(client: daemon.client, token: ConsoleToken.random()) { launch.current?.remove() }
        try await server.run(port: port ?? 0) { url in
            // The URL (with its token) goes to the operator's terminal only, never to a log.
            StandardOutput.write("mrtdctl console: \(url)\n(daemon socket \(daemon.client.socketPath); Ctrl-C to stop)\n")
            guard open else { return }
            let page = Self.openInBrowser(url)
            launch.withValue { $0 = page }
        }
    }

    /// SIGINT and SIGTERM end the process at once (after `cleanup`): the console keeps no state.
    private static func exitOnSignals(cleanup: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                cleanup()
                Glibc.exit(0)
            }
            source.resume()
            return source
        }
    }

    /// xdg-open through env(1) (it finds it on PATH), reaped in the background. It gets the `file://`
    /// URL of a launch page that only this user can read, never the console's URL: the command lines
    /// of xdg-open and of the browser are readable by every local user (/proc/PID/cmdline). The page
    /// is removed after `ConsoleLaunchFile.lifetime` if the console has not served it by then.
    private static func openInBrowser(_ url: String) -> ConsoleLaunchFile? {
        let environment = ProcessInfo.processInfo.environment
        let page: ConsoleLaunchFile
        do {
            page = try ConsoleLaunchFile(url: url, environment: environment)
        } catch {
            StandardError.write("mrtdctl: cannot write the launch page (\(error)); open the URL yourself\n")
            return nil
        }
        do {
            let pid = try ChildProcess.spawn("/usr/bin/env", arguments: ["xdg-open", page.fileURL], environment: environment)
            Task.detached { _ = await ChildProcess.wait(pid) }
        } catch {
            StandardError.write("mrtdctl: cannot run xdg-open (\(error)); open the URL yourself\n")
            page.remove()
            return nil
        }
        Task.detached {
            try? await Task.sleep(for: ConsoleLaunchFile.lifetime)
            page.remove()
        }
        return page
    }
}

/// The console's access token: 256 random bits, compared in constant time.
enum ConsoleToken {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2)
        return (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }.hex.lowercased()
    }

    /// Equal without an early exit on the first differing byte (the time depends on lengths only).
    static func matches(_ candidate: Substring, _ token: String) -> Bool {
        let a = Array(candidate.utf8), b = Array(token.utf8)
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for i in 0..<b.count {
            difference |= b[i] ^ (i < a.count ? a[i] : 0)
        }
        return difference == 0
    }
}
