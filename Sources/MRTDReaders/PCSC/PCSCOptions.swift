/// How the PC/SC backend behaves.
public struct PCSCOptions: Sendable, Equatable {
    /// Whether extended-length APDUs go to the reader.
    public enum ExtendedLength: String, Sendable, Equatable, CaseIterable {
        /// Learn it from the reader (PC/SC v2 Part 10 TLV properties, `SCARD_ATTR_MAXINPUT`); when
        /// the reader says nothing, try and fall back to short APDUs on the first failure.
        case auto
        /// Always offer extended length (the reader is known to carry it).
        case always
        /// Short APDUs only.
        case never
    }

    /// The reader's side of extended length (the chip's comes from its ATR).
    public var extendedLength: ExtendedLength
    /// After an exchange fails without saying why (`SCARD_E_NOT_TRANSACTED`, `SCARD_F_COMM_ERROR`),
    /// how long to wait for pcscd to report the card gone before calling it a reader failure.
    public var removalConfirmation: Duration
    /// First delay before re-establishing a context after pcscd went away; doubles up to `maxRetryDelay`.
    public var retryDelay: Duration
    /// The longest delay between two attempts to reach pcscd again.
    public var maxRetryDelay: Duration
    /// Reset the card when a session ends, so no secure-messaging state outlives it.
    public var resetOnClose: Bool

    public init(
        extendedLength: ExtendedLength = .auto, removalConfirmation: Duration = .milliseconds(1500),
        retryDelay: Duration = .milliseconds(100), maxRetryDelay: Duration = .seconds(2), resetOnClose: Bool = true
    ) {
        self.extendedLength = extendedLength
        self.removalConfirmation = removalConfirmation
        self.retryDelay = retryDelay
        self.maxRetryDelay = maxRetryDelay
        self.resetOnClose = resetOnClose
    }
}

extension Duration {
    /// Whole milliseconds, for C timeouts.
    var wholeMilliseconds: UInt {
        let (seconds, attoseconds) = components
        return UInt(max(0, seconds * 1000 + attoseconds / 1_000_000_000_000_000))
    }
}
