import FoundationEssentials
import Glibc

/// The reason of a failed file operation in words (`No such file or directory`): FoundationEssentials
/// has no `localizedDescription`, so the POSIX error under a CocoaError is spelled by strerror(3).
package func errorReason(_ error: any Error) -> String {
    if let posix = error as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
    if let cocoa = error as? CocoaError {
        if let posix = cocoa.underlying as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
        return "file error \(cocoa.code.rawValue)"
    }
    return "\(error)"
}

extension Unicode.Scalar {
    /// A–Z, a–z or 0–9 (CharacterSet.alphanumerics restricted to ASCII).
    package var isASCIIAlphanumeric: Bool {
        ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self)
    }
}
