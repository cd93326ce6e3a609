import ArgumentParser
import FoundationEssentials
import MRTDClient
import Dispatch
import Glibc
import MRTDCore

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

    @Flag(help: "Open the console in the default browser (xdg-open).")
    var open = false

    func validate() throws {
        if let port, !(1...65535).contains(port) {
            throw ValidationError("--port: \(port) is not a port number 1-65535")
        }
    }

    func run() async throws {
        let stop = Self.exitOnSignals()
        defer { stop.forEach { $0.cancel() } }
        let server = ConsoleServer(client: daemon.client, token: ConsoleToken.random())
        try await server.run(port: port ?? 0) { url in
            // The URL (with its token) goes to the operator's terminal only, never to a log.
            StandardOutput.write("mrtdctl console: \(url)\n(daemon socket \(daemon.client.socketPath); Ctrl-C to stop)\n")
            if open { Self.openInBrowser(url) }
        }
    }

    /// SIGINT and SIGTERM end the process at once: the console keeps no state.
    private static func exitOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Glibc.exit(0) }
            source.resume()
            return source
        }
    }

    /// xdg-open through env(1) (it finds it on PATH), reaped in the background.
    private static func openInBrowser(_ url: String) {
        let environment = ProcessInfo.processInfo.environment
        do {
            let pid = try ChildProcess.spawn("/usr/bin/env", arguments: ["xdg-open", url], environment: environment)
            Task.detached { _ = await ChildProcess.wait(pid) }
        } catch {
            StandardError.write("mrtdctl: cannot run xdg-open (\(error)); open the URL yourself\n")
        }
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
