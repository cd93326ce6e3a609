public import MRTDCore
/// The one place reader backends are made from their kinds: the daemon (`backends = pcsc,libnfc`)
/// and `mrtdctl --direct` use it. Add a backend kind here and both pick it up.
public enum ReaderBackendFactory {
    /// What `mrtdctl --direct` uses, in order of preference (the daemon's default too).
    public static let directKinds: [ReaderBackendKind] = [.pcsc, .libnfc]

    /// A backend of `kind`, or nil for `.virtual` (made by the simulation, not from a reader library).
    public static func make(_ kind: ReaderBackendKind) -> (any ReaderBackend)? {
        switch kind {
        case .pcsc: return PCSCBackend()
        case .libnfc: return LibNFCBackend()
        case .virtual: return nil
        }
    }

    /// Backends of `kinds`, in that order, skipping those ``make(_:)`` cannot make.
    public static func make(_ kinds: [ReaderBackendKind]) -> [any ReaderBackend] {
        kinds.compactMap { make($0) }
    }
}
