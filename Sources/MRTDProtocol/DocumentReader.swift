public import MRTDCore
public import MRTDCrypto
import MRTDVerification
import FoundationEssentials
import MRTDPlatform

/// Reads a document and turns the outcome into the result model: the entry point the CLI, the
/// daemon and replay share.
public enum DocumentReader {
    /// The files as read, their data groups as parsed (once: the result was built from them), and
    /// the result. A failed read still gives a result (`status: failed` with an error code) and
    /// whatever files were read.
    public struct Read: Sendable {
        public var result: ReadResult
        public var files: [LDSFile: [UInt8]]
        /// DG1, DG2 (the face) and DG3-DG16 as parsed: the daemon and `mrtdctl read --face/--images`
        /// take the images from here rather than parse the files again.
        public var parsed: ParsedDataGroups

        /// - Parameter parsed: `files` as parsed; nil: parsed here.
        public init(result: ReadResult, files: [LDSFile: [UInt8]], parsed: ParsedDataGroups? = nil) {
            self.result = result
            self.files = files
            self.parsed = parsed ?? ParsedDataGroups(files: files)
        }
    }

    /// Reads over `transport`. Secure-messaging faults are recovered (``RecoveryPolicy``); a lost
    /// card or a chip that stops answering ends the read, as there is no way to reconnect.
    /// - Parameter progress: called at phase and file boundaries (the daemon's progress events).
    public static func read(
        transport: any APDUTransport, options: ReadOptions, random: any RandomSource = SystemRandom(),
        clock: ContinuousClock = ContinuousClock(), progress: ReadProgressHandler? = nil
    ) async -> Read {
        await read(session: ChipSession(transport: transport, options: options, random: random, progress: progress),
                   options: options, clock: clock)
    }

    /// Reads over links from `connect`, which is called once to start and again after each link
    /// fault (card removed, chip timeout, reader gone) to reach the same card afresh: the read then
    /// re-selects, re-authenticates with the same access key, repeats Chip Authentication, and resumes
    /// the interrupted file at its last verified offset, within `options.recovery` (attempts and a
    /// deadline). Each recovery is listed in `result.transport.recoveries`.
    ///
    /// `connect` should wait (briefly) for the card to be presented again and reset it; it may throw
    /// `TransportError` or its backend's errors (each counts as a failed attempt). The daemon and
    /// `mrtdctl read --direct` use this entry point. `progress` is called at phase and file boundaries.
    public static func read(
        connect: @escaping @Sendable () async throws -> any APDUTransport, options: ReadOptions,
        random: any RandomSource = SystemRandom(), clock: ContinuousClock = ContinuousClock(),
        progress: ReadProgressHandler? = nil
    ) async -> Read {
        let start = clock.now
        let transport: any APDUTransport
        do {
            transport = try await connect()
        } catch {
            let failure = (error as? ProtocolError) ?? (error as? TransportError).map { ProtocolError.transport($0) }
                ?? .transport(.readerUnavailable("\(error)"))
            let result = ReadResult(
                status: .failed, error: .init(code: failure.errorCode, message: failure.description),
                durationMs: milliseconds(clock.now - start))
            return Read(result: result, files: [:])
        }
        return await read(
            session: ChipSession(transport: transport, options: options, random: random, connect: connect, progress: progress),
            options: options, clock: clock, start: start)
    }

    private static func read(
        session: ChipSession, options: ReadOptions, clock: ContinuousClock, start: ContinuousClock.Instant? = nil
    ) async -> Read {
        let start = start ?? clock.now
        do {
            let outcome = try await session.run()
            // Each data group is parsed once, here: the result, the checks and the images come from it.
            let parsed = ParsedDataGroups(files: outcome.files)
            var result = ReadResult.assemble(
                files: outcome.files, parsed: parsed, access: outcome.access, applications: outcome.applications,
                skipped: outcome.skipped, transport: outcome.transport,
                durationMs: milliseconds(clock.now - start), checks: outcome.checks)
            result.warnings.insert(contentsOf: outcome.warnings, at: 0)
            result.atrInfo = outcome.atrInfo
            // Doc 9303-11 §5.1: passive authentication over the files as read; then the one
            // verification every path shares (MRTDVerification: chip and active authentication gated
            // by PA, the TR-03135 checks, deviation lists, the status by VerdictPolicy).
            let report = PassiveAuthentication.verify(files: outcome.files, trustStore: options.trustStore)
            var mrzKey: MRZKey?
            if case .mrz(let key) = options.accessKey { mrzKey = key }
            result.verify(
                report: report, parsed: parsed, accessKey: mrzKey, pageMRZ: options.pageMRZ, trustStore: options.trustStore)
            return Read(result: result, files: outcome.files, parsed: parsed)
        } catch {
            let failure = (error as? ProtocolError) ?? .transport(.serviceFailure("\(error)"))
            let result = ReadResult(
                status: .failed, error: .init(code: failure.errorCode, message: failure.description),
                transport: session.transportReport, durationMs: milliseconds(clock.now - start))
            return Read(result: result, files: [:])
        }
    }

    static func milliseconds(_ d: Duration) -> Double {
        let (s, atto) = d.components
        return (Double(s) * 1000 + Double(atto) / 1e15).rounded(toPlaces: 3)
    }
}
