/// Which library drives a reader.
public enum ReaderBackendKind: String, Sendable, Codable, CaseIterable {
    /// CCID and other PC/SC readers through pcscd (libpcsclite).
    case pcsc
    /// PN53x boards and others driven by libnfc.
    case libnfc
    /// The in-process virtual reader (`--simulate`, tests).
    case virtual
}
