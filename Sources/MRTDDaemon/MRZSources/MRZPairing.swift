import FoundationEssentials
public import Logging
public import MRTDClient
import MRTDCore
public import MRTDScanners
import MRTDProtocol

/// Turns captured MRZs into reads: the check digits are verified (one look-alike slip
/// corrected, docs/kiosk.md) before any chip sees a key; an MRZ that passes becomes a read job bound
/// to the source's reader (or any reader) that waits for the card up to the pairing window, so MRZ
/// and card pair in either order. A newer MRZ for the same reader supersedes a job still waiting:
/// the next tap is tried with one key only. Events and logs name the source, the format and the
/// reason, never MRZ content.
public actor MRZPairing {
    private let scheduler: ReadScheduler
    private let events: EventBus
    private let metrics: DaemonMetrics
    private let logger: Logger
    private let window: Duration
    /// Who owns the reads scanners start (`mrz-owner`).
    private let owner: PeerCredentials
    /// The job still waiting for a card, per owner uid and bound reader (`UID:` for any reader).
    private var waitingJobs: [String: String] = [:]

    public init(
        scheduler: ReadScheduler, events: EventBus, metrics: DaemonMetrics, logger: Logger, window: Duration, owner: PeerCredentials
    ) {
        self.scheduler = scheduler
        self.events = events
        self.metrics = metrics
        self.logger = logger
        self.window = window
        self.owner = owner
    }

    /// An MRZ that became a read: the job, the MRZ's format and the corrections made (places and
    /// look-alike pairs, never characters). `POST /v1/mrz` answers it as `MRZSubmission`.
    public struct Submission: Sendable {
        public var job: ReadJobSnapshot
        public var format: String
        public var corrections: [EventPayload.MRZCorrection]
    }

    /// A frame from a scanner source.
    public func handle(_ frame: ScannerFrame, source: String, reader: String?) async {
        switch frame {
        case .ignored(let kind):
            logger.debug("MRZ source: frame ignored", metadata: ["source": "\(source)", "kind": "\(kind)"])
        case .malformed(let reason):
            logger.notice("MRZ source: line error", metadata: ["source": "\(source)", "reason": "\(reason)"])
            metrics.recordMRZ("lineError")
            events.publish(.make(.mrzRejected, EventPayload.MRZRejected(
                source: source, reader: reader, error: .mrzUnreadable, message: "line error: \(reason)"),
                audience: .owner(owner.uid)))
        case .mrz(let scanned):
            _ = try? await submit(scanned, source: source, reader: reader, peer: owner)
        }
    }

    /// Checks an MRZ and starts its read, owned by `peer`. Throws the capture's refusal (published as
    /// `mrz.rejected` first) or the scheduler's.
    public func submit(_ scanned: ScannedMRZ, source: String, reader: String?, peer: PeerCredentials) async throws -> Submission {
        let audience = DaemonEvent.Audience.owner(peer.uid)
        let captured: CapturedMRZ
        do {
            captured = try MRZCapture.validate(scanned)
        } catch {
            reject(error, source: source, reader: reader, audience: audience)
            throw error
        }
        // Per owner and reader: one user's scan never cancels another user's read.
        let key = "\(peer.uid):\(reader ?? "")"
        if let previous = waitingJobs.removeValue(forKey: key) { await scheduler.supersede(id: previous) }
        let order = ReadJobOrder(
            reader: reader, access: .mrz(captured.mrz.accessKey), timeoutSeconds: window.seconds, pageMRZ: captured.mrz)
        let corrections = captured.corrections.map {
            EventPayload.MRZCorrection(field: $0.field, line: $0.line, column: $0.column, pair: $0.pair)
        }
        let format = captured.mrz.format.rawValue
        let events = self.events
        let job: ReadJobSnapshot
        do {
            // mrz.captured goes out before the read can start: "place the document", then its progress.
            job = try await scheduler.create(order, peer: peer) { id in
                events.publish(.make(.mrzCaptured, EventPayload.MRZCaptured(
                    source: source, reader: reader, format: format, corrections: corrections, id: id), audience: audience))
            }
        } catch {
            reject(error, source: source, reader: reader, audience: audience)
            throw error
        }
        if job.state == .waiting { waitingJobs[key] = job.id }
        metrics.recordMRZ("captured")
        if !corrections.isEmpty { metrics.recordMRZ("corrected") }
        // A reader name from a client (`POST /v1/mrz`) is logged only when it names an attached reader.
        let attached = await scheduler.readers().contains { $0.name == reader }
        logger.info("MRZ captured", metadata: [
            "source": "\(source)", "reader": "\(reader.map { attached ? $0 : "not attached" } ?? "any")", "format": "\(format)",
            // The fields only: the position and the look-alike pair would tell a character of the MRZ.
            "corrected": "\(captured.corrections.map(\.field).joined(separator: ", "))", "job": "\(job.id)",
        ])
        return Submission(job: job, format: format, corrections: corrections)
    }

    private func reject(_ error: some CodedError & CustomStringConvertible, source: String, reader: String?, audience: DaemonEvent.Audience) {
        metrics.recordMRZ("rejected")
        // A reader name no reader has came from the client (`POST /v1/mrz`): not echoed into the log.
        let reason = error.errorCode == .readerNotFound ? "no reader of the name given is attached" : error.description
        logger.notice("MRZ rejected: no read started", metadata: [
            "source": "\(source)", "code": "\(error.code)", "reason": "\(reason)",
        ])
        events.publish(.make(.mrzRejected, EventPayload.MRZRejected(
            source: source, reader: reader, error: error.errorCode, message: error.description), audience: audience))
    }
}
