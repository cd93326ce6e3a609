import Foundation

/// A test whose prerequisite is missing (`../shared`, a tool such as pcscd, vpcd, SoftHSM2, chromium,
/// opj_decompress, nfc-list or setpriv, or root): strict by default. The test
/// fails, in CI and on a developer's machine alike, unless the caller opted out with
/// `MRTD_ALLOW_SKIPS=1`; either way it prints a `SKIPPED:` line, which `scripts/test` lists at the
/// end of the run.
public enum Prerequisite {
    /// Whether the caller allows missing prerequisites to skip tests (`MRTD_ALLOW_SKIPS=1`).
    public static var skipsAllowed: Bool { ProcessInfo.processInfo.environment["MRTD_ALLOW_SKIPS"] == "1" }

    /// Prints `SKIPPED: why` and answers whether that skip is allowed; when it is not, the caller
    /// records an issue (`#expect(Prerequisite.skip("..."))`), so the run fails.
    public static func skip(_ why: String) -> Bool {
        print("SKIPPED: \(why)\(skipsAllowed ? "" : " (a failure: set MRTD_ALLOW_SKIPS=1 to let it skip)")")
        return skipsAllowed
    }
}
