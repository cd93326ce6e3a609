public import FoundationEssentials
public import MRTDCore
public import MRTDClient

/// A read job as the scheduler holds it at one moment: ids, state, times as `Date`s,
/// progress, failure and result. It knows no HTTP: the API layer (`APIViews`) alone turns it into
/// `ReadJobView`, with its path and date strings.
public struct ReadJobSnapshot: Sendable, Equatable {
    public var id: String
    public var state: JobState
    /// The reader named in the order, or the one that read the card.
    public var reader: String?
    public var created: Date
    public var started: Date?
    public var finished: Date?
    /// When a finished job's result is purged.
    public var expires: Date?
    public var progress: ReadProgress?
    /// Why the job failed or was cancelled.
    public var error: JobFailure?
    /// The result model, once the read has ended.
    public var result: ReadResult?
    /// Whether the job holds a face image (`GET /v1/reads/{id}/face` answers it).
    public var hasFace: Bool
}

/// A reader as the scheduler sees it: its descriptor and whether a job holds it.
public struct ReaderSnapshot: Sendable, Equatable {
    public var name: String
    public var backend: ReaderBackendKind
    public var capabilities: TransportCapabilities
    public var cardPresent: Bool
    public var busy: Bool
}
