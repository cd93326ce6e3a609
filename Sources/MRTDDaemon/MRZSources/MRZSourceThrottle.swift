import MRTDScanners

/// What keeps one scanner source from flooding the daemon with junk (a device or pty writing
/// megabytes of noise): line errors are reported at most once per ``interval`` with the count of
/// those left out, and a source that gives nothing but errors is read less and less often
/// (``endOfRead()``), until it gives an MRZ again. MRZs are never held back.
struct MRZSourceThrottle {
    /// At most one line error reported (log line, `mrz.rejected`) per source per interval.
    static let interval = Duration.seconds(1)
    /// Errors in a row, with no MRZ between, before the source is backed off.
    static let errorsBeforeBackoff = 32
    /// The longest pause between reads of a source that gives only errors.
    static let maximumBackoff = Duration.seconds(16)

    private var reportedAt: ContinuousClock.Instant?
    /// Line errors left out since the last one reported.
    private(set) var suppressed = 0
    /// Line errors since the last MRZ.
    private(set) var errorsInARow = 0
    /// Reads in a row that brought errors and no MRZ, once ``errorsBeforeBackoff`` was reached.
    private var erroneousReads = 0

    /// `frame` as it is to be handed on, or nil when it is left out.
    mutating func admit(_ frame: ScannerFrame, at now: ContinuousClock.Instant) -> ScannerFrame? {
        switch frame {
        case .mrz:
            errorsInARow = 0
            erroneousReads = 0
            return frame
        case .ignored:
            return frame
        case .malformed(let reason):
            errorsInARow += 1
            if let reportedAt, now - reportedAt < Self.interval {
                suppressed += 1
                return nil
            }
            reportedAt = now
            let left = suppressed
            suppressed = 0
            return .malformed(reason: left == 0 ? reason : "\(reason) (and \(left) more line errors not reported one by one)")
        }
    }

    /// After a read's frames were admitted: how long to wait before the next read. Zero while the
    /// source gives MRZs (or few errors); then 0.5 s, doubling with every further read of errors
    /// alone, up to ``maximumBackoff``.
    mutating func endOfRead() -> Duration {
        guard errorsInARow >= Self.errorsBeforeBackoff else { return .zero }
        erroneousReads += 1
        return min(Self.maximumBackoff, .milliseconds(500) * (1 << min(5, erroneousReads - 1)))
    }
}
