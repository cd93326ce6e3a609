import FoundationEssentials
import MRTDClient
import MRTDCore

/// The API's paths of a read job (docs/openapi.yaml).
enum APIPaths {
    /// `/v1/reads/{id}`: the job's `location`.
    static func read(_ id: String) -> String { "/v1/reads/\(id)" }
}

// The wire views of the scheduler's domain snapshots: paths and date strings are made
// here, in the API layer, never in the scheduler.

extension ReadJobView {
    init(_ job: ReadJobSnapshot) {
        func iso(_ date: Date) -> String { ISOTime.string(date, fractional: true) }
        self.init(
            id: job.id, state: job.state, location: APIPaths.read(job.id), reader: job.reader,
            createdAt: iso(job.created), startedAt: job.started.map(iso),
            finishedAt: job.finished.map(iso), expiresAt: job.expires.map(iso),
            progress: job.progress, error: job.error.map { .init(error: $0.errorCode, message: $0.message) }, result: job.result)
    }
}

extension ReaderView {
    init(_ reader: ReaderSnapshot) {
        self.init(
            name: reader.name, backend: reader.backend, capabilities: reader.capabilities,
            cardPresent: reader.cardPresent, busy: reader.busy)
    }
}

extension MRZSubmission {
    init(_ submission: MRZPairing.Submission) {
        self.init(job: ReadJobView(submission.job), format: submission.format, corrections: submission.corrections)
    }
}
