import MRTDReaders

/// The reader backends `--direct` uses, in order of preference: the daemon's factory
/// (`ReaderBackendFactory`), so `readers --direct` and `read --direct` see what the daemon sees.
enum DirectBackends {
    static func all() -> [any ReaderBackend] {
        ReaderBackendFactory.make(ReaderBackendFactory.directKinds)
    }
}
