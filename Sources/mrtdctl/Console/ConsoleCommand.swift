import ArgumentParser
import Foundation
import MRTDClient

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
            FileHandle.standardOutput.write(Data(
                "mrtdctl console: \(url)\n(daemon socket \(daemon.client.socketPath); Ctrl-C to stop)\n".utf8))
            if open { Self.openInBrowser(url) }
        }
    }

    /// SIGINT and SIGTERM end the process at once: the console keeps no state.
    private static func exitOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { Foundation.exit(0) }
            source.resume()
            return source
        }
    }

    private static func openInBrowser(_ url: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["xdg-open", url]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            FileHandle.standardError.write(Data("mrtdctl: cannot run xdg-open (\(error)); open the URL yourself\n".utf8))
        }
    }
}

/// The console's access token: 256 random bits, compared in constant time.
enum ConsoleToken {
    static func random() -> String {
        var generator = SystemRandomNumberGenerator()  // getrandom(2)
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
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
