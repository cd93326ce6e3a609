import FuzzSupport
import MRTDCore
import MRTDCrypto
import MRTDProtocol

/// A reader answering every command with the next response of the input (`[u16 len][R-APDU]…`),
/// whatever the command, then losing the card: status words of every kind (61xx, 6Cxx, 6282, 6700,
/// short and empty responses) drive SELECT, BAC and the first reads. No trap, bounded APDUs, a
/// failure with a stable error code, never `valid`.
@main enum FuzzAPDUTransport {
    static func main() { FuzzDriver.run(test) }

    final class StreamTransport: APDUTransport, @unchecked Sendable {
        var responses: [[UInt8]]
        var next = 0
        let capabilities: TransportCapabilities
        init(responses: [[UInt8]], extended: Bool) {
            self.responses = responses
            capabilities = extended ? .extended : .shortOnly
        }
        func transmit(_ command: [UInt8]) async throws -> [UInt8] {
            guard next < responses.count else { throw TransportError.cardRemoved }
            defer { next += 1 }
            return responses[next]
        }
    }

    struct FixedRandom: RandomSource {
        func randomBytes(_ count: Int) throws -> [UInt8] { Array(repeating: 0xA5, count: count) }
    }

    static let key = try! MRZKey(documentNumber: "L898902C3", dateOfBirth: "740812", dateOfExpiry: "120415")

    static let test: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt = { data, size in
        var input = FuzzInput(data, size)
        let extended = input.bool()
        var responses: [[UInt8]] = []
        while !input.isEmpty { responses.append(input.chunk()) }
        let transport = StreamTransport(responses: responses, extended: extended)
        let result = runBlocking {
            await DocumentReader.read(transport: transport, options: ReadOptions(accessKey: .mrz(key)), random: FixedRandom()).result
        }
        fuzzCheck(result.status != .valid, "a response stream was reported valid")
        fuzzCheck(result.transport.apdus <= responses.count + 1, "more APDUs than responses")
        fuzzCheck(result.status != .failed || !(result.error?.code.isEmpty ?? true), "a failure without an error code")
        return 0
    }
}
