/// Where a read stands, reported at phase and file boundaries (the daemon's `read.progress` events).
public struct ReadProgress: Sendable, Equatable, Codable {
    /// The phase just entered.
    public enum Phase: String, Sendable, Codable {
        /// SELECT of the LDS applications.
        case selecting
        /// BAC or PACE: establishing secure messaging.
        case authenticating
        /// Reading a file (`file` names it).
        case reading
        /// Every file read; the result is being assembled and verified.
        case verifying
    }

    public var phase: Phase
    /// The file being read (`EF_COM`, `DG2`, ...) in phase `reading`.
    public var file: String?
    /// 0...100, monotonic within a read.
    public var percent: Int

    public init(phase: Phase, file: String? = nil, percent: Int) {
        self.phase = phase
        self.file = file
        self.percent = percent
    }
}

/// Receives progress from a read. Called on the reading task; must return quickly.
public typealias ReadProgressHandler = @Sendable (ReadProgress) -> Void
