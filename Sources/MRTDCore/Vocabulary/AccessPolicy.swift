/// Which access protocol opens the chip.
public enum AccessPolicy: String, Sendable, Equatable, Codable, CaseIterable {
    /// PACE when EF.CardAccess offers it, else BAC; when PACE fails for a protocol reason (not a
    /// wrong password), BAC is tried and the fallback reported (`access.fallback`).
    case auto
    /// PACE only; never BAC.
    case pace
    /// BAC only (EF.CardAccess is not read).
    case bac
}
