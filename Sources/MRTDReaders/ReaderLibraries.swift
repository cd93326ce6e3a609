internal import CPCSCLite
internal import CLibNFC

/// Versions and self-checks of the reader libraries this build links.
public enum ReaderLibraries {
    /// libnfc's version string (`nfc_version()`).
    public static var libnfcVersion: String { String(cString: nfc_version()) }

    /// pcsc-lite's description of a PC/SC return code (`pcsc_stringify_error`).
    public static func pcscDescription(_ code: Int64) -> String {
        String(cString: pcsc_stringify_error(LONG(code)))
    }
}
