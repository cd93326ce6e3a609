import FoundationEssentials
public import Logging
import MRTDCore
import MRTDProtocol
public import MRTDReaders
import MRTDPlatform
import MRTDClient

/// Owns readers and read jobs: one chip session per reader at a time, readers in parallel, jobs in
/// arrival order. A job waits for a card; a card already on a free reader is read at once. Finished
/// jobs keep their result (and face) in memory until the retention time ends or they are deleted.
public actor ReadScheduler {
    private struct Slot {
        var descriptor: ReaderDescriptor
        var backend: any ReaderBackend
        var busyJob: String?
    }

    private enum CancelReason { case user, timeout, shutdown }

    private final class Job {
        let id: String
        let requestedReader: String?
        var parameters: ReadParameters
        let peer: PeerCredentials?
        let created = Date()
        let deadline: ContinuousClock.Instant
        var state = JobState.waiting
        var reader: String?
        var started: Date?
        var finished: Date?
        var expires: ContinuousClock.Instant?
        var expiresDate: Date?
        let progress = Locked<ReadProgress?>(nil)
        var task: Task<Void, Never>?
        var connection: (any CardConnection)?
        var cancelReason: CancelReason?
        var error: JobFailure?
        var result: ReadResult?
        /// Wiped when the job is purged (ImageBytes).
        var face: ImageBytes?
        /// The images besides the face (DG3-DG12), by API name; wiped with the face.
        var images: [String: (bytes: ImageBytes, mimeType: String)] = [:]
        /// The files as read (EF.SOD, EF.COM, the data groups, EF.CardSecurity): what the evidence
        /// bundle is made of (docs/evidence.md); wiped with the face.
        var files: [LDSFile: ImageBytes] = [:]
        /// Whether the order asked for them (`keepEvidence`, or an `aaChallenge`).
        var keepsEvidence = false
        var waiters: [CheckedContinuation<Void, Never>] = []

        /// The owner's uid for quotas (every job has a peer: `create` refuses one without).
        var owner: UInt32 { peer?.uid ?? UInt32.max }

        init(id: String, requestedReader: String?, parameters: ReadParameters, peer: PeerCredentials?, deadline: ContinuousClock.Instant) {
            self.id = id
            self.requestedReader = requestedReader
            self.parameters = parameters
            self.peer = peer
            self.deadline = deadline
        }
    }

    private let engine: any ReadEngine
    private let events: EventBus
    private let metrics: DaemonMetrics
    private let configuration: DaemonConfiguration
    private let logger: Logger
    private let clock = ContinuousClock()
    private let transcripts: TranscriptDirectory?

    private var slots: [String: Slot] = [:]
    private var slotOrder: [String] = []
    private var jobs: [String: Job] = [:]
    private var waiting: [String] = []
    private var finishedOrder: [String] = []
    /// Finished results held, by owner uid (`finishedOrder` counted per uid).
    private var retainedByUID: [UInt32: Int] = [:]
    /// Jobs concluded plus jobs purged since start (`Stats.changes`).
    private var changes = 0
    private var shuttingDown = false
    /// The one task that times jobs out: it sleeps until the earliest deadline of the jobs not
    /// finished (`deadlineTimerFiresAt`), expires the overdue ones, and sleeps again. One task for
    /// all jobs rather than one per job: a `clock.sleep` cancelled early keeps its timer, and what
    /// it holds, until the original deadline, so a per-job timer cancelled when the read finished
    /// kept about 1.5 KB per read alive for the whole read timeout (60 s by default): at a few
    /// hundred reads a second, megabytes the daemon never gave back.
    private var deadlineTimer: Task<Void, Never>?
    private var deadlineTimerFiresAt: ContinuousClock.Instant?

    /// - Parameter transcripts: where every session's transcript goes (`record-directory`); nil: nowhere.
    public init(
        engine: any ReadEngine, events: EventBus, metrics: DaemonMetrics, configuration: DaemonConfiguration, logger: Logger,
        transcripts: TranscriptDirectory? = nil
    ) {
        self.transcripts = transcripts
        self.engine = engine
        self.events = events
        self.metrics = metrics
        self.configuration = configuration
        self.logger = logger
    }

    // MARK: Readers

    /// Applies one backend event: updates the reader table, publishes the API event, starts reads.
    public func handle(_ event: ReaderEvent, from backend: any ReaderBackend) {
        switch event {
        case .readerAdded(let descriptor):
            if slots[descriptor.name] == nil { slotOrder.append(descriptor.name) }
            slots[descriptor.name] = Slot(descriptor: descriptor, backend: backend, busyJob: slots[descriptor.name]?.busyJob)
            logger.info("reader added", metadata: ["reader": "\(descriptor.name)", "backend": "\(descriptor.backend.rawValue)"])
            events.publish(.make(.readerAdded, EventPayload.Reader(reader: descriptor.name, backend: descriptor.backend)))
            if descriptor.cardPresent {
                events.publish(.make(.cardInserted, EventPayload.Card(reader: descriptor.name, atr: nil)))
            }
        case .readerRemoved(let name):
            guard slots.removeValue(forKey: name) != nil else { return }
            slotOrder.removeAll { $0 == name }
            logger.info("reader removed", metadata: ["reader": "\(name)"])
            events.publish(.make(.readerRemoved, EventPayload.Reader(reader: name, backend: nil)))
        case .cardInserted(let name, let atr):
            slots[name]?.descriptor.cardPresent = true
            logger.debug("card inserted", metadata: ["reader": "\(name)"])
            events.publish(.make(.cardInserted, EventPayload.Card(reader: name, atr: atr.hex)))
        case .cardRemoved(let name):
            slots[name]?.descriptor.cardPresent = false
            logger.debug("card removed", metadata: ["reader": "\(name)"])
            events.publish(.make(.cardRemoved, EventPayload.Card(reader: name, atr: nil)))
        case .backendUnavailable(let kind, let reason):
            logger.warning("reader backend unavailable", metadata: ["backend": "\(kind.rawValue)", "reason": "\(reason)"])
        case .backendRecovered(let kind):
            logger.info("reader backend recovered", metadata: ["backend": "\(kind.rawValue)"])
        }
        dispatch()
    }

    /// The readers, in the order they were added.
    public func readers() -> [ReaderSnapshot] {
        slotOrder.compactMap { name in
            slots[name].map {
                ReaderSnapshot(
                    name: name, backend: $0.descriptor.backend, capabilities: $0.descriptor.capabilities,
                    cardPresent: $0.descriptor.cardPresent, busy: $0.busyJob != nil)
            }
        }
    }

    /// Ids of the jobs held now (tests, diagnostics).
    func jobIDs() -> [String] { Array(jobs.keys) }

    struct Stats {
        var readers: Int
        var busyReaders: Int
        var activeJobs: Int
        var retainedResults: Int
        /// Jobs concluded since start, and results dropped (purged, deleted or pushed out): together
        /// they say whether the heap may have changed since an earlier look.
        var changes: Int
    }

    func stats() -> Stats {
        let active = jobs.values.filter { !$0.state.isFinished }.count
        return Stats(
            readers: slots.count, busyReaders: slots.values.filter { $0.busyJob != nil }.count,
            activeJobs: active, retainedResults: jobs.count - active, changes: changes)
    }

    // MARK: Jobs

    /// Checks an order against the engine, the configuration and the readers, and queues its job.
    /// The access secret is held by the job until its read ends.
    /// - Parameter announce: called with the job's id once it is queued and before it can start, so
    ///   that an event announcing it precedes the read's own events (the MRZ pairing's `mrz.captured`).
    public func create(
        _ request: ReadJobOrder, peer: PeerCredentials?, announce: (@Sendable (String) -> Void)? = nil
    ) throws(SchedulerError) -> ReadJobSnapshot {
        if shuttingDown { throw .shuttingDown }
        // A job without an owner would be everyone's: refuse.
        guard let peer else { throw .peerUnknown }
        let secret = request.access
        let policy = request.accessPolicy ?? configuration.accessPolicy
        try engine.validate(access: secret, policy: policy)
        var groups = [14, 15]
        if let requested = request.dataGroups {
            guard requested.count <= 16, requested.allSatisfy({ (1...16).contains($0) }) else {
                throw .invalidRequest("dataGroups: each must be a data group number 1-16")
            }
            groups = requested
        }
        let timeout = try Self.timeout(request.timeoutSeconds, cap: configuration.readTimeout)
        if let name = request.reader, slots[name] == nil { throw .readerNotFound(name) }
        let active = jobs.values.filter { !$0.state.isFinished }
        guard active.count < configuration.maxActiveJobs else { throw .tooManyJobs }
        if !peer.isRoot, active.count(where: { $0.peer?.uid == peer.uid }) >= configuration.maxActiveJobsPerUser {
            throw .tooManyJobsForUser
        }

        let id = UUID().uuidString.lowercased()
        let recording = transcripts.map { SessionRecording(job: id, started: Date(), directory: $0) }
        let job = Job(
            id: id, requestedReader: request.reader,
            parameters: ReadParameters(
                access: AccessSecret(secret), dataGroups: groups, accessPolicy: policy, recording: recording,
                aaChallenge: request.aaChallenge, pageMRZ: request.pageMRZ),
            peer: peer, deadline: clock.now.advanced(by: timeout))
        job.keepsEvidence = request.keepEvidence
        jobs[id] = job
        waiting.append(id)
        scheduleDeadlineTimer()
        logger.info("read job created", metadata: [
            "job": "\(id)", "uid": "\(peer.uid)", "pid": "\(peer.pid)", "reader": "\(request.reader ?? "any")",
            "access": "\(job.parameters.access.kind)", "policy": "\(policy.rawValue)",
        ])
        announce?(id)
        dispatch()
        return snapshot(job)
    }

    /// The job's time limit: `timeoutSeconds` (range-checked before any conversion, so no value can
    /// trap) capped at the daemon's read timeout.
    static func timeout(_ seconds: Double?, cap: Duration) throws(SchedulerError) -> Duration {
        guard let seconds else { return cap }
        guard seconds.isFinite, seconds > 0 else { throw .invalidRequest("timeoutSeconds must be a positive number") }
        // Beyond the cap the cap applies; below it the value is small enough to convert exactly.
        guard seconds < cap.seconds else { return cap }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// The job as it is now, if it is the caller's.
    public func snapshot(id: String, peer: PeerCredentials?) throws(SchedulerError) -> ReadJobSnapshot {
        snapshot(try job(id, peer))
    }

    /// Waits until the job has finished, then answers as `snapshot(id:peer:)`.
    public func waitUntilFinished(id: String, peer: PeerCredentials?) async throws(SchedulerError) -> ReadJobSnapshot {
        let job = try job(id, peer)
        if !job.state.isFinished {
            await withCheckedContinuation { job.waiters.append($0) }
        }
        return snapshot(job)
    }

    /// Cancels a waiting or running job (answering its final snapshot), or purges a finished one
    /// (answering nil).
    public func cancel(id: String, peer: PeerCredentials?) async throws(SchedulerError) -> ReadJobSnapshot? {
        let job = try job(id, peer)
        switch job.state {
        case .waiting, .reading:
            logger.info("read job cancel requested", metadata: ["job": "\(id)", "uid": "\(peer.map { String($0.uid) } ?? "unknown")"])
            await stop(job, reason: .user)
            return snapshot(job)
        case .done, .failed, .cancelled:
            purge(job)
            logger.info("read job purged on request", metadata: ["job": "\(id)"])
            return nil
        }
    }

    /// The face image of a finished read, as stored on the chip, and its MIME type. The bytes are
    /// the job's own (no copy): read them in place.
    func face(id: String, peer: PeerCredentials?) throws(SchedulerError) -> (bytes: ImageBytes, mimeType: String) {
        let job = try job(id, peer)
        guard job.state.isFinished else { throw .resultNotReady }
        guard let face = job.face, let mime = job.result?.face?.mimeType else { throw .noFace }
        return (face, mime)
    }

    /// An image of a finished read besides the face (`portrait-1`, `document-front`, `finger-1`, …),
    /// as stored on the chip, and its MIME type. Same owner rule and same bytes (no copy) as the face.
    func image(id: String, name: String, peer: PeerCredentials?) throws(SchedulerError) -> (bytes: ImageBytes, mimeType: String) {
        let job = try job(id, peer)
        guard job.state.isFinished else { throw .resultNotReady }
        guard let image = job.images[name] else { throw .noImage }
        return (image.bytes, image.mimeType)
    }

    /// The files of a finished read and its result, for its evidence bundle. Same owner rule as the
    /// result; the arrays are copies the caller wipes when done.
    func evidence(id: String, peer: PeerCredentials?) throws(SchedulerError) -> (files: [LDSFile: [UInt8]], result: ReadResult)? {
        let job = try job(id, peer)
        guard job.state.isFinished else { throw .resultNotReady }
        guard let result = job.result, job.files[.sod] != nil else { return nil }
        return (job.files.mapValues { $0.withUnsafeBytes { Array($0) } }, result)
    }

    private func job(_ id: String, _ peer: PeerCredentials?) throws(SchedulerError) -> Job {
        guard let job = jobs[id] else { throw .jobNotFound }
        // A job belongs to the uid that created it (and root); others, and callers whose
        // credentials are unknown, see no such job.
        guard let peer, peer.mayAccess(ownedBy: job.peer) else { throw .jobNotFound }
        return job
    }

    private func snapshot(_ job: Job) -> ReadJobSnapshot {
        ReadJobSnapshot(
            id: job.id, state: job.state, reader: job.reader ?? job.requestedReader,
            created: job.created, started: job.started, finished: job.finished, expires: job.expiresDate,
            progress: job.progress.current, error: job.error, result: job.result, hasFace: job.face != nil)
    }

    // MARK: Running reads

    private func dispatch() {
        guard !shuttingDown, !waiting.isEmpty else { return }
        var started: [String] = []
        for id in waiting {
            guard let job = jobs[id] else { continue }
            let candidates = job.requestedReader.map { [$0] } ?? slotOrder
            guard let name = candidates.first(where: { slots[$0].map { $0.descriptor.cardPresent && $0.busyJob == nil } ?? false }) else {
                continue
            }
            start(job, on: name)
            started.append(id)
        }
        if !started.isEmpty { waiting.removeAll { started.contains($0) } }
    }

    private enum Outcome: Sendable {
        case read(DocumentReader.Read)
        case readerError(ReaderError)
    }

    private func start(_ job: Job, on name: String) {
        guard let slot = slots[name] else { return }
        slots[name]?.busyJob = job.id
        job.state = .reading
        job.reader = name
        job.started = Date()
        logger.info("read started", metadata: ["job": "\(job.id)", "reader": "\(name)"])
        let id = job.id
        let backend = slot.backend
        let engine = self.engine
        let parameters = job.parameters
        let events = self.events
        let progressBox = job.progress
        let audience = DaemonEvent.Audience.owner(job.peer?.uid)
        // Detached: the chip session must not run on the scheduler's actor.
        job.task = Task.detached {
            let outcome: Outcome
            do {
                let connection = try await backend.connect(reader: name)
                guard await self.attach(connection, to: id) else {
                    await connection.close()
                    await self.finish(id, .read(.init(result: .init(status: .failed), files: [:])))
                    return
                }
                // After a link fault the read asks for the card again: the old connection is closed,
                // the card awaited on the same reader (bounded), and the new connection attached so
                // that cancelling the job still reaches it.
                let reconnect: @Sendable () async throws -> any APDUTransport = {
                    if let old = await self.detach(from: id) { await old.close() }
                    _ = try await backend.waitForCard(reader: name, timeout: .seconds(10))
                    let fresh = try await backend.connect(reader: name)
                    guard await self.attach(fresh, to: id) else {
                        await fresh.close()
                        throw CancellationError()
                    }
                    return fresh
                }
                let read = await engine.read(transport: connection, reconnect: reconnect, parameters: parameters) { progress in
                    progressBox.withValue { $0 = progress }
                    events.publish(.make(.readProgress, EventPayload.Progress(
                        id: id, reader: name, phase: progress.phase, file: progress.file, percent: progress.percent),
                        audience: audience))
                }
                if let last = await self.detach(from: id) { await last.close() }
                outcome = .read(read)
            } catch let error as ReaderError {
                outcome = .readerError(error)
            } catch {
                outcome = .readerError(.backendFailure(backend.kind, "connect failed"))
            }
            await self.finish(id, outcome)
        }
    }

    /// Takes the connection of a running job back (to close it).
    private func detach(from id: String) -> (any CardConnection)? {
        guard let job = jobs[id] else { return nil }
        defer { job.connection = nil }
        return job.connection
    }

    /// Records the connection of a running job; false when the job was stopped meanwhile.
    private func attach(_ connection: any CardConnection, to id: String) -> Bool {
        guard let job = jobs[id], job.cancelReason == nil else { return false }
        job.connection = connection
        return true
    }

    /// Cancels a job that still waits for its card (an MRZ superseded by a newer scan: one key per
    /// tap); a job already reading or finished is left as it is.
    func supersede(id: String) async {
        guard let job = jobs[id], job.state == .waiting else { return }
        logger.info("read job superseded by a newer MRZ", metadata: ["job": "\(id)"])
        await stop(job, reason: .user)
    }

    private func finish(_ id: String, _ outcome: Outcome) {
        guard let job = jobs[id] else { return }
        job.parameters.access.wipe()
        job.connection = nil
        if let name = job.reader, slots[name]?.busyJob == id { slots[name]?.busyJob = nil }

        var seconds: Double?
        var apdus = 0
        switch (job.cancelReason, outcome) {
        case (.some(let reason), _):
            conclude(job, reason: reason)
        case (nil, .readerError(let error)):
            job.state = .failed
            job.error = JobFailure(error)
        case (nil, .read(let read)):
            job.result = read.result
            seconds = read.result.durationMs / 1000
            apdus = read.result.transport.apdus
            if read.result.status == .failed {
                job.state = .failed
                job.error = read.result.error.map(JobFailure.init) ?? JobFailure(.readFailed, message: "the read failed")
            } else {
                job.state = .done
                job.progress.withValue { $0 = ReadProgress(phase: .verifying, percent: 100) }
                // The raw files for `GET /v1/reads/{id}/evidence`, copied before the images' wipe below.
                if job.keepsEvidence {
                    for (file, bytes) in read.files { job.files[file] = ImageBytes(copying: bytes) }
                }
                // The job keeps its own copy of each image, taken from the read's one parse; the
                // parsed copies and the raw data groups they came from are wiped here, not left in
                // freed memory.
                if read.result.face != nil, let dg2 = read.files[.dg(2)] {
                    job.face = read.parsed.face.map { ImageBytes(taking: $0.imageData) }
                    wipeInPlace(dg2)
                }
                if read.result.images != nil {
                    let images = read.parsed.contents.images
                    for image in images {
                        job.images[image.name] = (ImageBytes(taking: image.image.imageData), image.image.mimeType)
                    }
                    for group in Set(images.map(\.dataGroup)) { if let raw = read.files[group] { wipeInPlace(raw) } }
                }
            }
        }
        let outcomeName = job.state == .done ? (job.result?.status.rawValue ?? "unverified") : job.state.rawValue
        metrics.recordRead(outcome: outcomeName, seconds: seconds, apdus: apdus, errorCode: job.error?.code)
        conclude(job)
        dispatch()
    }

    /// Ends a job that was stopped before or during its read.
    private func conclude(_ job: Job, reason: CancelReason) {
        job.state = reason == .timeout ? .failed : .cancelled
        job.error = reason == .timeout
            ? JobFailure(ReaderError.timeout.errorCode, message: "the job did not finish within its timeout")
            : JobFailure(.cancelled, message: reason == .shutdown ? "the daemon is shutting down" : "cancelled by request")
        job.result = nil
    }

    /// Bookkeeping common to every finished job: retention, events, waiters, logs.
    private func conclude(_ job: Job) {
        job.parameters.pageMRZ = nil
        job.finished = Date()
        job.expires = clock.now.advanced(by: configuration.resultRetention)
        job.expiresDate = Date().addingTimeInterval(configuration.resultRetention.seconds)
        job.task = nil
        finishedOrder.append(job.id)
        retainedByUID[job.owner, default: 0] += 1
        changes &+= 1
        if job.state == .done {
            events.publish(.make(.readFinished, EventPayload.Finished(
                id: job.id, reader: job.reader, status: job.result?.status ?? .unverified,
                durationMs: job.result?.durationMs ?? 0), audience: .owner(job.peer?.uid)))
            logger.info("read finished", metadata: [
                "job": "\(job.id)", "reader": "\(job.reader ?? "-")", "status": "\(job.result?.status.rawValue ?? "-")",
                "durationMs": "\(job.result?.durationMs ?? 0)", "apdus": "\(job.result?.transport.apdus ?? 0)",
            ])
        } else {
            let error = job.error ?? JobFailure(.readFailed, message: "")
            events.publish(.make(
                .readFailed, EventPayload.Failed(id: job.id, reader: job.reader, error: error.errorCode, message: error.message),
                audience: .owner(job.peer?.uid)))
            logger.notice("read \(job.state.rawValue)", metadata: ["job": "\(job.id)", "reader": "\(job.reader ?? "-")", "code": "\(error.code)"])
        }
        for waiter in job.waiters { waiter.resume() }
        job.waiters.removeAll()
        evictBeyondQuotas(after: job)
    }

    /// Beyond a cap, results go early, so memory stays bounded whatever the load: beyond the
    /// owner's quota (`max-results-per-user`), the owner's oldest; beyond `max-results`, the oldest
    /// of the uid that holds the most (the one that overflows the store). A burst of jobs from one
    /// uid evicts its own results, never those of a user holding fewer.
    private func evictBeyondQuotas(after job: Job) {
        let perUser = configuration.maxRetainedResultsPerUser ?? configuration.maxRetainedResults
        while retainedByUID[job.owner, default: 0] > perUser, let oldest = oldestFinished(of: job.owner) {
            purge(oldest)
        }
        while finishedOrder.count > configuration.maxRetainedResults {
            // The largest holder; among equals, the one whose oldest result is oldest.
            let largest = retainedByUID.values.max() ?? 0
            let holders = Set(retainedByUID.filter { $0.value == largest }.keys)
            guard let victim = finishedOrder.lazy.compactMap({ self.jobs[$0] }).first(where: { holders.contains($0.owner) }) else {
                finishedOrder.removeFirst()
                continue
            }
            purge(victim)
        }
    }

    private func oldestFinished(of uid: UInt32) -> Job? {
        finishedOrder.lazy.compactMap { self.jobs[$0] }.first { $0.owner == uid }
    }

    private func stop(_ job: Job, reason: CancelReason) async {
        switch job.state {
        case .waiting:
            waiting.removeAll { $0 == job.id }
            job.parameters.access.wipe()
            conclude(job, reason: reason)
            metrics.recordRead(outcome: job.state.rawValue, seconds: nil, apdus: 0, errorCode: job.error?.code)
            conclude(job)
        case .reading:
            job.cancelReason = reason
            job.task?.cancel()
            if let connection = job.connection { await connection.close() }
            if let task = job.task { await task.value }
        case .done, .failed, .cancelled:
            break
        }
    }

    /// Makes the deadline timer fire at the earliest deadline of the jobs not finished. A timer
    /// already due no later stays as it is (with equal timeouts, every new job's deadline is later,
    /// so jobs come and go without a timer task per job); a timer due later is replaced. A timer
    /// left without jobs fires once, finds nothing overdue, and stops.
    private func scheduleDeadlineTimer() {
        guard !shuttingDown, let earliest = jobs.values.lazy.filter({ !$0.state.isFinished }).map(\.deadline).min() else { return }
        if let fires = deadlineTimerFiresAt, fires <= earliest { return }
        deadlineTimer?.cancel()
        deadlineTimerFiresAt = earliest
        deadlineTimer = Task.detached { [weak self, clock] in
            try? await clock.sleep(until: earliest)
            if !Task.isCancelled { await self?.expireOverdueJobs(timerFiredAt: earliest) }
        }
    }

    /// The deadline timer fired: every job past its deadline ends with `timeout`.
    private func expireOverdueJobs(timerFiredAt instant: ContinuousClock.Instant) async {
        // Unless a job with an earlier deadline replaced the timer meanwhile.
        if deadlineTimerFiresAt == instant {
            deadlineTimer = nil
            deadlineTimerFiresAt = nil
        }
        let now = clock.now
        let overdue = jobs.values.filter { !$0.state.isFinished && $0.deadline <= now }
        for job in overdue where !job.state.isFinished {
            await stop(job, reason: .timeout)
        }
        scheduleDeadlineTimer()
    }

    /// Whether a deadline timer task is pending (tests: at most one, whatever the number of jobs).
    var deadlineTimerPending: Bool { deadlineTimer != nil }

    private func purge(_ job: Job) {
        changes &+= 1
        jobs.removeValue(forKey: job.id)
        if let index = finishedOrder.firstIndex(of: job.id) {
            finishedOrder.remove(at: index)
            retainedByUID[job.owner, default: 1] -= 1
            if retainedByUID[job.owner] == 0 { retainedByUID.removeValue(forKey: job.owner) }
        }
        // ImageBytes wipe themselves as they go.
        job.face = nil
        job.images = [:]
        job.files = [:]
        job.result = nil
    }

    /// Drops finished jobs whose retention has ended.
    func sweep() {
        let now = clock.now
        var expired: [Job] = []
        for id in finishedOrder {
            guard let job = jobs[id], let expires = job.expires else { continue }
            if expires <= now { expired.append(job) } else { break }
        }
        for job in expired {
            purge(job)
            logger.debug("result purged after retention", metadata: ["job": "\(job.id)"])
        }
    }

    /// Shutdown: refuses new jobs, cancels every waiting and running job, wipes their keys.
    public func shutdown() async {
        shuttingDown = true
        deadlineTimer?.cancel()
        deadlineTimer = nil
        deadlineTimerFiresAt = nil
        let active = jobs.values.filter { !$0.state.isFinished }
        for job in active { await stop(job, reason: .shutdown) }
    }

    /// Purges expired results until cancelled (the scheduler's service loop).
    func runSweeper() async {
        let period = min(Duration.seconds(1), configuration.resultRetention / 4)
        while !Task.isCancelled {
            try? await clock.sleep(for: max(period, .milliseconds(20)))
            sweep()
        }
    }
}
