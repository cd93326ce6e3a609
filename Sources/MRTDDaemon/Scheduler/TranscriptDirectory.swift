public import FoundationEssentials
public import Logging
import MRTDTranscript
import Synchronization
import MRTDCore
import Glibc
import MRTDPlatform

/// Writes the transcript of every chip session the daemon runs into one directory
/// (`record-directory`, docs/transcripts.md): one `mrtd-transcript/1` file per job, mode 0600, named
/// by start time and job id only.
///
/// A transcript holds the access key, which decrypts every exchange: the directory holds personal
/// data. Writing happens on a thread of its own (one file after another), never on the read path; a full or unwritable
/// directory costs a warning (no personal data) and `mrtdd_transcripts_total{outcome="failed"}`,
/// never a read.
public final class TranscriptDirectory: Sendable {
    /// The directory transcripts go to.
    public let path: String
    private let metrics: DaemonMetrics
    private let logger: Logger
    private let writer = BlockingThread(name: "mrtdd-transcripts")
    private let pending = Mutex(0)
    /// Transcripts waiting to be written at most; beyond this (a stuck disk) new ones are dropped.
    static let maxPending = 16

    public init(path: String, metrics: DaemonMetrics, logger: Logger) {
        self.path = path
        self.metrics = metrics
        self.logger = logger
    }

    /// Hands a finished session's transcript over for writing and returns at once.
    func save(_ transcript: Transcript, job: String, started: Date) {
        let name = Self.fileName(job: job, started: started)
        let admitted = pending.withLock { count in
            guard count < Self.maxPending else { return false }
            count += 1
            return true
        }
        guard admitted else {
            failed(job: job, file: name, reason: "too many transcripts waiting to be written")
            return
        }
        writer.submit { [self] in
            defer { pending.withLock { $0 -= 1 } }
            do {
                let data = try transcript.json()
                try Self.createFile(data, at: PathString.join(path, name))
                metrics.recordTranscript(written: true)
                logger.debug("transcript written", metadata: ["job": "\(job)", "file": "\(name)"])
            } catch let error as WriteError {
                failed(job: job, file: name, reason: error.description)
            } catch {
                failed(job: job, file: name, reason: "cannot encode the transcript")
            }
        }
    }

    /// Waits until every transcript handed over so far is written or has failed (shutdown, tests).
    public func drain() async {
        // The writer runs its jobs in order and never stops: this one runs after every earlier save.
        _ = try? await writer.run {}
    }

    private func failed(job: String, file: String, reason: String) {
        metrics.recordTranscript(written: false)
        logger.warning("transcript not written", metadata: ["job": "\(job)", "file": "\(file)", "reason": "\(reason)"])
    }

    /// `20261121T141600.123Z-<job id>.json`: sorts by start time; nothing read from the document.
    static func fileName(job: String, started: Date) -> String {
        // ISOTime's `2026-11-21T14:16:00.123Z` without its separators.
        let stamp = ISOTime.string(started, fractional: true).filter { $0 != "-" && $0 != ":" }
        let safe = job.unicodeScalars.filter { $0.isASCIIAlphanumeric || $0 == "-" }
        return "\(stamp)-\(String(String.UnicodeScalarView(safe.prefix(64)))).json"
    }

    struct WriteError: Error, CustomStringConvertible {
        var step: String
        var code: Int32
        var description: String { "\(step): \(String(cString: strerror(code))) (errno \(code))" }
    }

    /// Creates `path` (never replacing a file or following a link) with mode 0600 and writes `data`;
    /// removes the partial file when any step fails (a full disk).
    static func createFile(_ data: Data, at path: String) throws(WriteError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw WriteError(step: "open", code: errno) }
        var failure: WriteError?
        data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
            guard let base = raw.baseAddress else { return }
            var offset = 0
            while offset < raw.count {
                let n = write(fd, base + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    failure = WriteError(step: "write", code: errno)
                    return
                }
                offset += n
            }
        }
        if failure == nil, fsync(fd) != 0 { failure = WriteError(step: "fsync", code: errno) }
        if close(fd) != 0, failure == nil { failure = WriteError(step: "close", code: errno) }
        if let failure {
            unlink(path)
            throw failure
        }
    }
}

/// Where the transcript of one job's session goes (set by the scheduler when `record-directory` is on).
public struct SessionRecording: Sendable {
    /// The job the session belongs to.
    public let job: String
    /// When the job was created (the file name's timestamp).
    public let started: Date
    let directory: TranscriptDirectory
}
