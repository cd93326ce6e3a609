import MRTDReaders

/// The reader backends `--direct` uses, in order of preference. Add a backend here (one line) and
/// `readers --direct` and `read --direct` pick it up.
enum DirectBackends {
    static func all() -> [any ReaderBackend] {
        [
            PCSCBackend(),
            LibNFCBackend(),
        ]
    }
}
