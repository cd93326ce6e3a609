public import MRTDCore
public import MRTDProtocol

/// Where a read gets its chip links from.
public enum ReadLinks: Sendable {
    /// One link; the read ends with it.
    case single(any APDUTransport)
    /// Links from `connect`: the first, then a new one after each lost card (a reconnecting read).
    case reconnecting(@Sendable () async throws -> any APDUTransport)
}

extension Transcript {
    /// The one orchestration of a read that may be recorded (docs/transcripts.md): `mrtdctl read
    /// --record` (simulated, card slot or `--direct`) and the daemon's `record-directory` all come
    /// through here. Without `recording` it is a plain ``DocumentReader`` read and the transcript is nil.
    public static func read(
        _ links: ReadLinks, reader: Reader, atr: [UInt8]? = nil, options: ReadOptions, recording: Bool,
        progress: ReadProgressHandler? = nil
    ) async -> (read: DocumentReader.Read, transcript: Transcript?) {
        switch (links, recording) {
        case (.single(let transport), false):
            return (await DocumentReader.read(transport: transport, options: options, progress: progress), nil)
        case (.reconnecting(let connect), false):
            return (await DocumentReader.read(connect: connect, options: options, progress: progress), nil)
        case (.single(let transport), true):
            let recorded = await record(transport: transport, reader: reader, atr: atr, options: options, progress: progress)
            return (recorded.read, recorded.transcript)
        case (.reconnecting(let connect), true):
            let recorded = await record(connect: connect, reader: reader, atr: atr, options: options, progress: progress)
            return (recorded.read, recorded.transcript)
        }
    }
}
