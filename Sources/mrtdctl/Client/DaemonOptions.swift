import ArgumentParser
import FoundationEssentials
import MRTDClient
import MRTDCore
import MRTDPlatform

/// `--socket`: where mrtdd listens (also `MRTDD_SOCKET`).
struct DaemonOptions: ParsableArguments {
    @Option(name: .customLong("socket"), help: "mrtdd's Unix socket (default: $MRTDD_SOCKET or /run/mrtdd/mrtdd.sock).")
    var socketPath: String?

    var client: DaemonClient {
        DaemonClient(socketPath: socketPath ?? ProcessInfo.processInfo.environment["MRTDD_SOCKET"] ?? DaemonClient.defaultSocketPath)
    }
}

/// Exit with a readable message when the daemon refuses or is not there.
func reportingDaemonErrors<T>(_ body: () async throws -> T) async throws -> T {
    do {
        return try await body()
    } catch let error as DaemonClientError {
        StandardError.write("mrtdctl: \(error)\n")
        throw ExitStatus.readFailed
    }
}

func printJSON(_ value: some Encodable) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}
