public import MRTDCore
import FoundationEssentials

/// How to open a document.
public enum AccessKey: Sendable, Equatable, CustomStringConvertible {
    /// Document number, date of birth and date of expiry from the MRZ (BAC; PACE with an MRZ password).
    case mrz(MRZKey)
    /// The card access number printed on the document (PACE only; ID cards, newer passports).
    case can(String)

    public var passwordType: String {
        switch self {
        case .mrz: return "MRZ"
        case .can: return "CAN"
        }
    }

    /// The PACE password for this key.
    public var pacePassword: PACEPassword {
        switch self {
        case .mrz(let key): return .mrz(key)
        case .can(let can): return .can(can)
        }
    }

    /// Redacted: access keys never reach logs.
    public var description: String { "AccessKey.\(passwordType)(<redacted>)" }
}
